/// The text of each printf conversion before padding: integers, reals, strings, SQL-quoted strings and
/// repeated characters. A `nil` result is a conversion SQLite refuses to allocate (the result becomes NULL).
extension SQLPrintf {
    /// How an integer conversion writes its digits.
    enum Radix {
        case decimal, ordinal, lowerHex, upperHex, pointer, octal

        var base: UInt64 {
            switch self {
            case .decimal, .ordinal: return 10
            case .lowerHex, .upperHex, .pointer: return 16
            case .octal: return 8
            }
        }

        /// The digits, lower-case only for `%x`.
        var digits: [UInt8] {
            self == .lowerHex ? Array("0123456789abcdef".utf8) : Array("0123456789ABCDEF".utf8)
        }

        /// What `#` puts in front of a non-zero value.
        var alternatePrefix: [UInt8] {
            switch self {
            case .lowerHex, .pointer: return Array("0x".utf8)
            case .upperHex: return Array("0X".utf8)
            case .octal: return [UInt8(ascii: "0")]
            case .decimal, .ordinal: return []
            }
        }
    }

    /// `%d %i %u %r %x %X %p %o`: digits, zeros up to the precision (or the width under `0`), thousands
    /// separators (decimal only), then the sign and the `#` prefix.
    static func integerText(_ value: Int64, signed: Bool, radix: Radix, _ d: Directive) -> [UInt8]? {
        var magnitude: UInt64
        var prefix: UInt8? = nil
        if signed {
            magnitude = value.magnitude
            prefix = value < 0 ? UInt8(ascii: "-") : d.signPrefix
        } else {
            magnitude = UInt64(bitPattern: value)
        }
        let alternate = d.alternate && magnitude != 0
        var precision = d.precision
        let signWidth = prefix == nil ? 0 : 1
        if d.zeroPad && precision < d.width - signWidth { precision = d.width - signWidth }
        if precision > maximumLength - 10 { return nil }
        // Built backwards, as the digits come out least significant first.
        var reversed: [UInt8] = []
        if radix == .ordinal {
            var x = Int(magnitude % 10)
            if x >= 4 || (magnitude / 10) % 10 == 1 { x = 0 }
            let suffix = Array(["th", "st", "nd", "rd"][x].utf8)
            reversed.append(suffix[1])
            reversed.append(suffix[0])
        }
        let digits = radix.digits
        repeat {
            reversed.append(digits[Int(magnitude % radix.base)])
            magnitude /= radix.base
        } while magnitude > 0
        if precision > reversed.count {
            reversed.append(contentsOf: [UInt8](repeating: UInt8(ascii: "0"), count: precision - reversed.count))
        }
        var text: [UInt8] = []
        if alternate { text.append(contentsOf: radix.alternatePrefix) }
        if let p = prefix { text.append(p) }
        let body = Array(reversed.reversed())
        if d.thousands && (radix == .decimal) {
            text.append(contentsOf: groupedInThousands(body))
        } else {
            text.append(contentsOf: body)
        }
        return text
    }

    /// `1234567` as `1,234,567`: a comma before every group of three counted from the right.
    static func groupedInThousands(_ digits: [UInt8]) -> [UInt8] {
        var grouped: [UInt8] = []
        grouped.reserveCapacity(digits.count + digits.count / 3)
        for (k, digit) in digits.enumerated() {
            if k > 0 && (digits.count - k) % 3 == 0 { grouped.append(UInt8(ascii: ",")) }
            grouped.append(digit)
        }
        return grouped
    }

    /// `%f %e %E %g %G`, with `0` padding inserted after the sign (but not for `Inf` and `NaN`).
    static func floatText(_ value: Double, _ conversion: UInt8, _ d: Directive) -> [UInt8]? {
        let kind: SQLRealFormatting.Conversion
        switch conversion {
        case UInt8(ascii: "f"): kind = .float
        case UInt8(ascii: "e"), UInt8(ascii: "E"): kind = .exponent
        default: kind = .generic
        }
        let precision = d.precision < 0 ? 6 : min(d.precision, SQLRealFormatting.maximumPrecision)
        if precision + d.width + 15 > maximumLength { return nil }
        let style = SQLRealFormatting.Style(
            conversion: kind, altForm2: d.altForm2, alternate: d.alternate, signPrefix: d.signPrefix,
            uppercase: conversion == UInt8(ascii: "E") || conversion == UInt8(ascii: "G"))
        var text: [UInt8] = []
        let finite = SQLRealFormatting.append(value, precision: precision, style: style, to: &text)
        if finite && d.zeroPad && !d.leftJustify && text.count < d.width {
            let signWidth = value < 0 || d.signPrefix != nil ? 1 : 0
            text.insert(contentsOf: repeatElement(UInt8(ascii: "0"), count: d.width - text.count), at: signWidth)
        }
        return text
    }

    /// `%s %z`: the text, cut to `precision` bytes (characters under `!`).
    static func stringText(_ text: ArraySlice<UInt8>, _ d: Directive) -> [UInt8] {
        guard d.precision >= 0 else { return Array(text) }
        if d.altForm2 { return Array(text.prefix(byteCount(ofCharacters: d.precision, in: text))) }
        return Array(text.prefix(d.precision))
    }

    /// The bytes that the first `count` UTF-8 characters of `text` take.
    static func byteCount(ofCharacters count: Int, in text: ArraySlice<UInt8>) -> Int {
        var index = text.startIndex
        var remaining = count
        while remaining > 0 && index < text.endIndex {
            let lead = text[index]
            index += 1
            if lead >= 0xc0 {
                while index < text.endIndex && text[index] & 0xc0 == 0x80 { index += 1 }
            }
            remaining -= 1
        }
        return index - text.startIndex
    }

    /// `%q` (quotes doubled), `%Q` (also enclosed in quotes; NULL as `NULL`), `%w` (double quotes doubled).
    /// The precision counts input bytes, or characters under `!`.
    static func escapedText(_ argument: ArraySlice<UInt8>?, _ conversion: UInt8, _ d: Directive) -> [UInt8] {
        let quote = conversion == UInt8(ascii: "w") ? UInt8(ascii: "\"") : UInt8(ascii: "'")
        let enclose = argument != nil && conversion == UInt8(ascii: "Q")
        let text = argument ?? ArraySlice((conversion == UInt8(ascii: "Q") ? "NULL" : "(NULL)").utf8)
        // How much of the text the precision lets through.
        var end = text.startIndex
        var remaining = d.precision
        while remaining != 0 && end < text.endIndex {
            let byte = text[end]
            if d.altForm2 && byte & 0xc0 == 0xc0 {
                while end + 1 < text.endIndex && text[end + 1] & 0xc0 == 0x80 { end += 1 }
            }
            end += 1
            remaining -= 1
        }
        var escaped: [UInt8] = []
        escaped.reserveCapacity(end - text.startIndex + 2)
        if enclose { escaped.append(quote) }
        for byte in text[text.startIndex..<end] {
            escaped.append(byte)
            if byte == quote { escaped.append(quote) }
        }
        if enclose { escaped.append(quote) }
        return escaped
    }

    /// `%c`: the first character of the argument (a NUL byte when there is none), repeated `precision` times;
    /// the width counts characters.
    static func appendCharacter(_ argument: ArraySlice<UInt8>?, _ d: Directive, _ output: inout Output) -> Bool {
        var character: [UInt8] = [0]
        if let text = argument, let lead = text.first {
            character = [lead]
            if lead & 0xc0 == 0xc0 {
                var index = text.startIndex + 1
                while character.count < 4 && index < text.endIndex && text[index] & 0xc0 == 0x80 {
                    character.append(text[index])
                    index += 1
                }
            }
        }
        let copies = max(d.precision, 1)
        guard copies <= maximumLength / character.count else {
            output.overflowed = true
            output.started = true
            return false
        }
        let padding = d.width - copies
        if padding > 0 && !d.leftJustify { output.appendRepeated(UInt8(ascii: " "), count: padding) }
        for _ in 0..<copies { output.append(character) }
        if padding > 0 && d.leftJustify { output.appendRepeated(UInt8(ascii: " "), count: padding) }
        return true
    }
}
