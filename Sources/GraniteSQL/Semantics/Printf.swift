import GraniteStorage

/// SQLite's `printf(FORMAT, …)` SQL function (also named `format`), as SQLite 3.40 formats: the flags
/// `-+ #!0,`, widths and precisions (digits or `*`), the `l`/`ll` size letters (ignored), and the conversions
/// `d i u x X o p r c s z q Q w f e E g G n %`. Arguments are taken in order and read as SQLite reads them
/// (`sqlite3_value_int64`, `_double`, `_text`); a missing one is 0 or empty.
///
/// Quirks kept from SQLite: an unknown conversion ends the output there; a format that appends nothing is
/// NULL; a result longer than SQLite's 1,000,000,000-byte limit is NULL, not an error.
package enum SQLPrintf {
    /// SQLite's default `SQLITE_MAX_LENGTH`.
    static let maximumLength = 1_000_000_000

    /// `printf(args[0], args[1...])`: the formatted text, or NULL.
    package static func format(_ args: [Value]) -> Value {
        guard let format = args.first?.sqlTextBytes else { return .null }
        var output = Output()
        var arguments = Arguments(values: args)
        render(format.prefix { $0 != 0 }, &arguments, &output)
        guard output.started, !output.overflowed else { return .null }
        return .text(utf8: output.bytes)
    }

    /// The text being built, and whether anything (even nothing) was appended: SQLite returns NULL otherwise.
    struct Output {
        var bytes: [UInt8] = []
        var started = false
        var overflowed = false

        mutating func append<C: Collection>(_ piece: C) where C.Element == UInt8 {
            started = true
            guard reserve(piece.count) else { return }
            bytes.append(contentsOf: piece)
        }

        mutating func appendRepeated(_ byte: UInt8, count: Int) {
            started = true
            guard count > 0, reserve(count) else { return }
            bytes.append(contentsOf: [UInt8](repeating: byte, count: count))
        }

        /// Whether `count` more bytes stay within the limit; past it the output is dropped for good.
        mutating func reserve(_ count: Int) -> Bool {
            if overflowed { return false }
            if count > SQLPrintf.maximumLength - bytes.count {
                overflowed = true
                bytes = []
                return false
            }
            return true
        }
    }

    /// The arguments after the format, consumed in order.
    struct Arguments {
        let values: [Value]
        var next = 1

        mutating func take() -> Value? {
            guard next < values.count else { return nil }
            defer { next += 1 }
            return values[next]
        }

        mutating func integer() -> Int64 { take()?.sqlInteger ?? 0 }
        mutating func real() -> Double { take()?.sqlReal ?? 0 }
        /// The argument's text up to its first NUL (as C sees it), `nil` for NULL or a missing argument.
        mutating func text() -> ArraySlice<UInt8>? {
            guard let bytes = take()?.sqlTextBytes else { return nil }
            return bytes.prefix { $0 != 0 }
        }
    }

    /// One `%…` directive's flags, width and precision.
    struct Directive {
        var leftJustify = false
        var signPrefix: UInt8? = nil
        var alternate = false
        var altForm2 = false
        var zeroPad = false
        var thousands = false
        var width = 0
        /// -1 when none was given.
        var precision = -1
    }

    /// Appends `format` with its directives expanded; stops at an unknown conversion as SQLite does.
    static func render(_ format: ArraySlice<UInt8>, _ arguments: inout Arguments, _ output: inout Output) {
        let f = Array(format)
        var i = 0
        while i < f.count {
            if f[i] != UInt8(ascii: "%") {
                let start = i
                while i < f.count && f[i] != UInt8(ascii: "%") { i += 1 }
                output.append(f[start..<i])
                continue
            }
            i += 1
            guard i < f.count else {
                output.append([UInt8(ascii: "%")])
                return
            }
            var directive = Directive()
            let conversion = parseDirective(f, &i, &directive, &arguments)
            guard expand(conversion, directive, &arguments, &output) else { return }
            i += 1
        }
    }

    /// Reads the flags, width and precision starting at `f[i]`, leaving `i` at the conversion letter, which it
    /// returns (0 at the end of the format). `*` takes its value from the arguments.
    static func parseDirective(
        _ f: [UInt8], _ i: inout Int, _ d: inout Directive, _ arguments: inout Arguments
    ) -> UInt8 {
        func at(_ k: Int) -> UInt8 { k < f.count ? f[k] : 0 }
        var c = at(i)
        var done = false
        while true {
            switch c {
            case UInt8(ascii: "-"): d.leftJustify = true
            case UInt8(ascii: "+"): d.signPrefix = UInt8(ascii: "+")
            case UInt8(ascii: " "): d.signPrefix = UInt8(ascii: " ")
            case UInt8(ascii: "#"): d.alternate = true
            case UInt8(ascii: "!"): d.altForm2 = true
            case UInt8(ascii: "0"): d.zeroPad = true
            case UInt8(ascii: ","): d.thousands = true
            case UInt8(ascii: "l"):
                i += 1
                c = at(i)
                if c == UInt8(ascii: "l") {
                    i += 1
                    c = at(i)
                }
                done = true
            case UInt8(ascii: "1")...UInt8(ascii: "9"):
                // C's unsigned arithmetic: the width wraps at 2^32 and keeps 31 bits.
                var wx = UInt32(c - 0x30)
                i += 1
                c = at(i)
                while c >= 0x30 && c <= 0x39 {
                    wx = wx &* 10 &+ UInt32(c - 0x30)
                    i += 1
                    c = at(i)
                }
                d.width = Int(wx & 0x7fff_ffff)
                if c != UInt8(ascii: ".") && c != UInt8(ascii: "l") { done = true } else { i -= 1 }
            case UInt8(ascii: "*"):
                var w = Int(Int32(truncatingIfNeeded: arguments.integer()))
                if w < 0 {
                    d.leftJustify = true
                    w = w >= -2_147_483_647 ? -w : 0
                }
                d.width = w
                let following = at(i + 1)
                if following != UInt8(ascii: ".") && following != UInt8(ascii: "l") {
                    i += 1
                    c = at(i)
                    done = true
                }
            case UInt8(ascii: "."):
                i += 1
                c = at(i)
                if c == UInt8(ascii: "*") {
                    let p = Int(Int32(truncatingIfNeeded: arguments.integer()))
                    d.precision = p >= 0 ? p : (p >= -2_147_483_647 ? -p : -1)
                    i += 1
                    c = at(i)
                } else {
                    var px: UInt32 = 0
                    while c >= 0x30 && c <= 0x39 {
                        px = px &* 10 &+ UInt32(c - 0x30)
                        i += 1
                        c = at(i)
                    }
                    d.precision = Int(px & 0x7fff_ffff)
                }
                if c == UInt8(ascii: "l") { i -= 1 } else { done = true }
            default:
                done = true
            }
            if done { return c }
            i += 1
            c = at(i)
            if c == 0 { return 0 }
        }
    }

    /// Appends one conversion; false for an unknown letter, where SQLite stops formatting.
    static func expand(
        _ conversion: UInt8, _ d: Directive, _ arguments: inout Arguments, _ output: inout Output
    ) -> Bool {
        var d = d
        let produced: [UInt8]?
        switch conversion {
        case UInt8(ascii: "d"), UInt8(ascii: "i"):
            produced = integerText(arguments.integer(), signed: true, radix: .decimal, d)
        case UInt8(ascii: "u"): produced = integerText(arguments.integer(), signed: false, radix: .decimal, d)
        case UInt8(ascii: "r"): produced = integerText(arguments.integer(), signed: true, radix: .ordinal, d)
        case UInt8(ascii: "x"): produced = integerText(arguments.integer(), signed: false, radix: .lowerHex, d)
        case UInt8(ascii: "X"): produced = integerText(arguments.integer(), signed: false, radix: .upperHex, d)
        case UInt8(ascii: "p"): produced = integerText(arguments.integer(), signed: false, radix: .pointer, d)
        case UInt8(ascii: "o"): produced = integerText(arguments.integer(), signed: false, radix: .octal, d)
        case UInt8(ascii: "f"), UInt8(ascii: "e"), UInt8(ascii: "E"), UInt8(ascii: "g"), UInt8(ascii: "G"):
            produced = floatText(arguments.real(), conversion, d)
        case UInt8(ascii: "s"), UInt8(ascii: "z"): produced = stringText(arguments.text() ?? [], d)
        case UInt8(ascii: "q"), UInt8(ascii: "Q"), UInt8(ascii: "w"):
            produced = escapedText(arguments.text(), conversion, d)
        case UInt8(ascii: "c"): return appendCharacter(arguments.text(), d, &output)
        case UInt8(ascii: "%"): produced = [UInt8(ascii: "%")]
        case UInt8(ascii: "n"):
            // Writes nothing (C's "characters so far" has no SQL meaning), and ignores the width.
            d.width = 0
            produced = []
        default: return false
        }
        guard let piece = produced else {
            output.started = true
            output.overflowed = true
            return false
        }
        if d.altForm2 && d.width > 0 && isTextConversion(conversion) {
            // Widths count characters under `!`: every continuation byte widens the field by one.
            d.width += piece.reduce(0) { $0 + ($1 & 0xc0 == 0x80 ? 1 : 0) }
        }
        appendPadded(piece, d, &output)
        return true
    }

    static func isTextConversion(_ c: UInt8) -> Bool {
        c == UInt8(ascii: "s") || c == UInt8(ascii: "z") || c == UInt8(ascii: "q") || c == UInt8(ascii: "Q")
            || c == UInt8(ascii: "w")
    }

    /// Appends `piece` with spaces up to the width, on the left unless `-` was given.
    static func appendPadded(_ piece: [UInt8], _ d: Directive, _ output: inout Output) {
        let padding = d.width - piece.count
        if padding > 0 && !d.leftJustify { output.appendRepeated(UInt8(ascii: " "), count: padding) }
        output.append(piece)
        if padding > 0 && d.leftJustify { output.appendRepeated(UInt8(ascii: " "), count: padding) }
    }
}
