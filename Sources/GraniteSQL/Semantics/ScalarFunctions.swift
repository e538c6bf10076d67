import GraniteStorage

/// SQLite's built-in scalar functions.
package enum SQLScalarFunctions {
    /// The names `call` understands (lower case).
    package static let names: Set<String> = [
        "length", "lower", "upper", "abs", "round", "coalesce", "ifnull", "nullif", "substr", "substring",
        "instr", "replace", "trim", "ltrim", "rtrim", "typeof", "hex", "quote", "random", "unicode", "char",
        "min", "max", "iif", "date", "time", "datetime", "julianday", "unixepoch", "strftime",
        "swiftlowercasestring", "swiftuppercasestring", "swiftcapitalizedstring", "printf", "format",
        "zeroblob", "randomblob",
    ]

    /// SQLite's default `SQLITE_MAX_LENGTH`: the longest string or blob a function may return.
    package static let maximumLength: Int64 = 1_000_000_000

    /// Calls the function `name` (case-insensitive) with already-evaluated arguments.
    package static func call(_ name: String, _ args: [Value]) throws -> Value {
        let n = name.lowercased()
        func arity(_ counts: ClosedRange<Int>) throws {
            if !counts.contains(args.count) {
                throw SQLFunctionError("wrong number of arguments to function \(n)()")
            }
        }
        switch n {
        case TriggerRow.raiseFunction:
            throw TriggerRaise(args)
        case "length":
            try arity(1...1)
            return length(args[0])
        case "lower":
            try arity(1...1)
            return lower(args[0])
        case "upper":
            try arity(1...1)
            return upper(args[0])
        case "abs":
            try arity(1...1)
            return try abs(args[0])
        case "swiftlowercasestring":
            try arity(1...1)
            guard let string = args[0].swiftString else { return .null }
            return .text(string.lowercased())
        case "swiftuppercasestring":
            try arity(1...1)
            guard let string = args[0].swiftString else { return .null }
            return .text(string.uppercased())
        case "swiftcapitalizedstring":
            try arity(1...1)
            guard let string = args[0].swiftString else { return .null }
            return .text(capitalized(string))
        case "round":
            try arity(1...2)
            return round(args[0], args.count > 1 ? args[1] : nil)
        case "coalesce":
            if args.count < 2 { throw SQLFunctionError("wrong number of arguments to function coalesce()") }
            return coalesce(args)
        case "ifnull":
            try arity(2...2)
            return coalesce(args)
        case "nullif":
            try arity(2...2)
            return nullif(args[0], args[1])
        case "substr", "substring":
            try arity(2...3)
            return substr(args[0], args[1], args.count > 2 ? args[2] : nil)
        case "instr":
            try arity(2...2)
            return instr(args[0], args[1])
        case "replace":
            try arity(3...3)
            return replace(args[0], args[1], args[2])
        case "trim":
            try arity(1...2)
            return trim(args[0], args.count > 1 ? args[1] : nil, left: true, right: true)
        case "ltrim":
            try arity(1...2)
            return trim(args[0], args.count > 1 ? args[1] : nil, left: true, right: false)
        case "rtrim":
            try arity(1...2)
            return trim(args[0], args.count > 1 ? args[1] : nil, left: false, right: true)
        case "typeof":
            try arity(1...1)
            return typeof(args[0])
        case "hex":
            try arity(1...1)
            return hex(args[0])
        case "quote":
            try arity(1...1)
            return quote(args[0])
        case "random":
            try arity(0...0)
            return random()
        case "zeroblob":
            try arity(1...1)
            return try zeroblob(args[0])
        case "randomblob":
            try arity(1...1)
            return try randomblob(args[0])
        case "unicode":
            try arity(1...1)
            return unicode(args[0])
        case "char": return char(args)
        case "min", "max":
            if args.count < 2 { throw SQLFunctionError("wrong number of arguments to function \(n)()") }
            return n == "min" ? minimum(args) : maximum(args)
        case "iif":
            try arity(3...3)
            return (args[0].sqlTruth ?? false) ? args[1] : args[2]
        case "date": return SQLDateTime.date(args)
        case "time": return SQLDateTime.time(args)
        case "datetime": return SQLDateTime.datetime(args)
        case "julianday": return SQLDateTime.julianday(args)
        case "unixepoch": return SQLDateTime.unixepoch(args)
        case "strftime": return SQLDateTime.strftime(args)
        case "printf", "format": return SQLPrintf.format(args)
        default: throw SQLFunctionError(.noSuchFunction(name))
        }
    }

    /// Characters up to the first NUL for TEXT (and numbers' text), bytes for BLOB.
    package static func length(_ x: Value) -> Value {
        switch x {
        case .null: return .null
        case .blob(let b): return .integer(Int64(b.count))
        case .invalidUTF8Text(let b): return .integer(Int64(SQLTextCharacters.count(b)))
        default:
            var n: Int64 = 0
            for u in (x.sqlText ?? "").unicodeScalars {
                if u.value == 0 { break }
                n += 1
            }
            return .integer(n)
        }
    }

    private static func mapASCII(_ x: Value, _ f: (UInt8) -> UInt8) -> Value {
        guard let b = x.sqlTextBytes else { return .null }
        let mapped = b.map(f)
        switch x {
        case .text, .integer, .real:
            // ASCII mapped to ASCII: valid UTF-8 stays valid.
            return .text(String(decoding: mapped, as: UTF8.self))
        case .invalidUTF8Text:
            return .invalidUTF8Text(mapped)
        default:
            return .text(utf8: mapped)
        }
    }

    /// Every word (a run of non-whitespace) with its first character uppercased and the others lowercased,
    /// like Foundation's `String.capitalized`.
    package static func capitalized(_ string: String) -> String {
        var result = ""
        var atWordStart = true
        for character in string {
            if character.isWhitespace {
                result.append(character)
                atWordStart = true
            } else if atWordStart {
                result += String(character).uppercased()
                atWordStart = false
            } else {
                result += String(character).lowercased()
            }
        }
        return result
    }

    /// ASCII lower-casing.
    package static func lower(_ x: Value) -> Value { mapASCII(x) { ($0 >= 0x41 && $0 <= 0x5a) ? $0 + 32 : $0 } }
    /// ASCII upper-casing.
    package static func upper(_ x: Value) -> Value { mapASCII(x) { ($0 >= 0x61 && $0 <= 0x7a) ? $0 - 32 : $0 } }

    /// `abs(x)`; throws "integer overflow" for the smallest integer.
    package static func abs(_ x: Value) throws -> Value {
        switch x {
        case .null: return .null
        case .integer(let i):
            if i == Int64.min { throw SQLEvaluationError.integerOverflow }
            return .integer(i < 0 ? -i : i)
        default:
            let r = x.sqlReal
            return .real(r < 0 ? -r : r)
        }
    }

    /// `round(x[, digits])`.
    package static func round(_ x: Value, _ digits: Value?) -> Value {
        var n: Int64 = 0
        if let d = digits {
            if d.isNull { return .null }
            n = Swift.max(0, Swift.min(30, d.sqlInt32))
        }
        if x.isNull { return .null }
        var r = x.sqlReal
        if r < -4503599627370496.0 || r > 4503599627370496.0 {
            // No fractional part.
        } else if n == 0 {
            r = Double(SQLNumberParsing.truncatingInt(r + (r < 0 ? -0.5 : 0.5)))
        } else {
            r = SQLNumberParsing.atof(SQLRealFormatting.fixed(r, digits: Int(n))).value
        }
        return .real(r)
    }

    /// The first non-NULL argument.
    package static func coalesce(_ args: [Value]) -> Value {
        for a in args where !a.isNull { return a }
        return .null
    }

    /// NULL if the arguments compare equal (BINARY), else the first.
    package static func nullif(_ a: Value, _ b: Value) -> Value {
        SQLComparison.compare(a, b) == 0 ? .null : a
    }

    /// `substr(x, start[, length])` with SQLite's handling of negative and out-of-range arguments.
    package static func substr(_ x: Value, _ start: Value, _ length: Value?) -> Value {
        if start.isNull || (length?.isNull ?? false) { return .null }
        if x.isNull { return .null }
        var p1 = start.sqlInt32
        var p2: Int64
        var negP2 = false
        if let l = length {
            p2 = l.sqlInt32
            if p2 < 0 {
                p2 = -p2
                negP2 = true
            }
        } else {
            p2 = 1_000_000_000
        }
        if case .blob(let bytes) = x {
            if bytes.isEmpty { return .null }
            let len = Int64(bytes.count)
            adjust(&p1, &p2, negP2, len)
            if p1 + p2 > len { p2 = Swift.max(0, len - p1) }
            if p1 >= len { return .blob([]) }
            return .blob(Array(bytes[Int(p1)..<Int(p1 + p2)]))
        }
        if case .text(let s) = x { return substr(s, &p1, &p2, negP2) }
        // Bytes that are not valid UTF-8 (or a BLOB's): split into characters as SQLite does.
        let bytes = x.sqlTextBytes ?? []
        let starts = SQLTextCharacters.boundaries(bytes)
        let len = Int64(starts.count - 1)
        adjust(&p1, &p2, negP2, p1 < 0 ? len : 0)
        let from = Swift.min(p1, len)
        let to = Swift.min(from + p2, len)
        return .text(utf8: Array(bytes[starts[Int(from)]..<starts[Int(to)]]))
    }

    /// `substr` of valid UTF-8 text, by Unicode scalars (the characters SQLite counts in valid UTF-8).
    private static func substr(_ s: String, _ p1: inout Int64, _ p2: inout Int64, _ negP2: Bool) -> Value {
        var chars: [Unicode.Scalar] = []
        for u in s.unicodeScalars {
            if u.value == 0 { break }
            chars.append(u)
        }
        let len = Int64(chars.count)
        adjust(&p1, &p2, negP2, p1 < 0 ? len : 0)
        let from = Swift.min(p1, len)
        let to = Swift.min(from + p2, len)
        var out = String.UnicodeScalarView()
        out.append(contentsOf: chars[Int(from)..<Int(to)])
        return .text(String(out))
    }

    private static func adjust(_ p1: inout Int64, _ p2: inout Int64, _ negP2: Bool, _ len: Int64) {
        if p1 < 0 {
            p1 += len
            if p1 < 0 {
                p2 += p1
                if p2 < 0 { p2 = 0 }
                p1 = 0
            }
        } else if p1 > 0 {
            p1 -= 1
        } else if p2 > 0 {
            p2 -= 1
        }
        if negP2 {
            p1 -= p2
            if p1 < 0 {
                p2 += p1
                p1 = 0
            }
        }
    }

    /// 1-based character position of `needle` in `haystack` (bytes for two BLOBs), 0 if absent.
    package static func instr(_ haystack: Value, _ needle: Value) -> Value {
        if haystack.isNull || needle.isNull { return .null }
        var isText = true
        if case .blob = haystack, case .blob = needle { isText = false }
        let h = haystack.sqlTextBytes ?? []
        let nd = needle.sqlTextBytes ?? []
        if nd.isEmpty { return .integer(1) }
        var n: Int64 = 1
        var i = 0
        while nd.count <= h.count - i {
            if h[i] == nd[0] && h[i..<(i + nd.count)].elementsEqual(nd) { return .integer(n) }
            n += 1
            repeat { i += 1 } while isText && i < h.count && (h[i] & 0xc0) == 0x80
        }
        return .integer(0)
    }

    /// `replace(x, pattern, replacement)` on UTF-8 bytes.
    package static func replace(_ x: Value, _ pattern: Value, _ replacement: Value) -> Value {
        guard let s = x.sqlTextBytes else { return .null }
        guard let p = pattern.sqlTextBytes else { return .null }
        if p.isEmpty {
            if case .blob = x { return .text(utf8: s) }
            return x
        }
        guard let r = replacement.sqlTextBytes else { return .null }
        var out: [UInt8] = []
        out.reserveCapacity(s.count)
        var i = 0
        while i < s.count {
            if s.count - i >= p.count && s[i] == p[0] && s[i..<(i + p.count)].elementsEqual(p) {
                out.append(contentsOf: r)
                i += p.count
            } else {
                out.append(s[i])
                i += 1
            }
        }
        return .text(utf8: out)
    }

    /// `trim`/`ltrim`/`rtrim` with an optional set of characters (default: space), on the bytes as SQLite's
    /// `trimFunc`: the set is split into characters as ``SQLTextCharacters`` does, and a character is trimmed
    /// while the text's bytes at that end equal one of them.
    package static func trim(_ x: Value, _ set: Value?, left: Bool, right: Bool) -> Value {
        guard let bytes = x.sqlTextBytes else { return .null }
        var characters: [ArraySlice<UInt8>] = [[0x20]]
        if let set = set {
            guard let setBytes = set.sqlTextBytes else { return .null }
            let starts = SQLTextCharacters.boundaries(setBytes)
            characters = (0..<(starts.count - 1)).map { setBytes[starts[$0]..<starts[$0 + 1]] }
        }
        var from = 0
        var to = bytes.count
        if left {
            while from < to,
                let c = characters.first(where: { $0.count <= to - from && bytes[from...].starts(with: $0) })
            {
                from += c.count
            }
        }
        if right {
            while from < to,
                let c = characters.first(where: {
                    $0.count <= to - from && bytes[(to - $0.count)..<to].elementsEqual($0)
                })
            {
                to -= c.count
            }
        }
        if from == 0 && to == bytes.count, x.isText { return x }
        return .text(utf8: Array(bytes[from..<to]))
    }

    /// The storage class name.
    package static func typeof(_ x: Value) -> Value {
        switch x {
        case .null: return .text("null")
        case .integer: return .text("integer")
        case .real: return .text("real")
        case .text, .invalidUTF8Text: return .text("text")
        case .blob: return .text("blob")
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    private static func hexBytes(_ b: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(b.count * 2)
        for byte in b {
            out.append(hexDigits[Int(byte >> 4)])
            out.append(hexDigits[Int(byte & 15)])
        }
        return out
    }

    /// Upper-case hex of the value's bytes (empty for NULL); a TEXT's bytes are its UTF-8, valid or not.
    package static func hex(_ x: Value) -> Value {
        .text(String(decoding: hexBytes(x.sqlTextBytes ?? []), as: UTF8.self))
    }

    /// An SQL literal for the value.
    package static func quote(_ x: Value) -> Value {
        switch x {
        case .null: return .text("NULL")
        case .integer(let i): return .text(String(i))
        case .real(let r):
            let s = SQLRealFormatting.render(r)
            let back = SQLNumberParsing.atof(s).value
            if back != r { return .text(SQLRealFormatting.exponent20(r)) }
            return .text(s)
        case .text(let s):
            var out = "'"
            for ch in s.unicodeScalars {
                if ch.value == 0 { break }
                if ch == "'" { out.unicodeScalars.append("'") }
                out.unicodeScalars.append(ch)
            }
            out += "'"
            return .text(out)
        case .invalidUTF8Text(let b):
            // The bytes as they are, up to the first NUL, with quotes doubled.
            var out: [UInt8] = [0x27]
            for byte in b.prefix(SQLTextCharacters.lengthBeforeNUL(b)) {
                if byte == 0x27 { out.append(0x27) }
                out.append(byte)
            }
            out.append(0x27)
            return .text(utf8: out)
        case .blob(let b):
            return .text("X'" + String(decoding: hexBytes(b), as: UTF8.self) + "'")
        }
    }

    /// A random 64-bit integer.
    package static func random() -> Value { .integer(Int64.random(in: Int64.min...Int64.max)) }

    /// `zeroblob(N)`: N zero bytes (none for N < 1), N read as `sqlite3_value_int64` reads it.
    /// - Throws: `string or blob too big` past ``maximumLength``.
    package static func zeroblob(_ count: Value) throws -> Value {
        let n = max(count.sqlInteger, 0)
        guard n <= maximumLength else { throw SQLEvaluationError.tooBig }
        return .blob([UInt8](repeating: 0, count: Int(n)))
    }

    /// `randomblob(N)`: N random bytes, at least one.
    /// - Throws: `string or blob too big` past ``maximumLength``.
    package static func randomblob(_ count: Value) throws -> Value {
        let n = max(count.sqlInteger, 1)
        guard n <= maximumLength else { throw SQLEvaluationError.tooBig }
        var generator = SystemRandomNumberGenerator()
        return .blob((0..<Int(n)).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// The code point of the first character as SQLite reads it (``SQLTextCharacters/read(_:at:)``), NULL for
    /// NULL or empty text.
    package static func unicode(_ x: Value) -> Value {
        guard let bytes = x.sqlTextBytes, let first = bytes.first, first != 0 else { return .null }
        var offset = 0
        // SQLite returns the u32 through sqlite3_result_int: a code point that wrapped past 2^31 (a lead byte
        // followed by many continuation bytes) comes out negative.
        return .integer(Int64(Int32(bitPattern: SQLTextCharacters.read(bytes, at: &offset))))
    }

    /// Text from code points (invalid ones become U+FFFD).
    package static func char(_ args: [Value]) -> Value {
        var out = String.UnicodeScalarView()
        for a in args {
            let v = a.sqlInteger
            let scalar = (v >= 0 && v <= 0x10ffff) ? Unicode.Scalar(UInt32(v)) : nil
            out.append(scalar ?? "\u{FFFD}")
        }
        return .text(String(out))
    }

    /// Multi-argument `min`: NULL if any argument is NULL.
    package static func minimum(_ args: [Value], collation: SQLCollation = .binary) -> Value {
        var best = 0
        for i in args.indices {
            if args[i].isNull { return .null }
            if i > 0 && SQLComparison.compare(args[best], args[i], collation: collation) >= 0 { best = i }
        }
        return args.isEmpty ? .null : args[best]
    }

    /// Multi-argument `max`: NULL if any argument is NULL.
    package static func maximum(_ args: [Value], collation: SQLCollation = .binary) -> Value {
        var best = 0
        for i in args.indices {
            if args[i].isNull { return .null }
            if i > 0 && SQLComparison.compare(args[best], args[i], collation: collation) < 0 { best = i }
        }
        return args.isEmpty ? .null : args[best]
    }
}

extension Value {
    /// A TEXT as the Swift string functions GRDB registers receive it (`String.fromDatabase`): bytes that are not
    /// valid UTF-8 repaired with U+FFFD; `nil` for the other storage classes.
    fileprivate var swiftString: String? {
        switch self {
        case .text(let s): return s
        case .invalidUTF8Text(let b): return String(decoding: b, as: UTF8.self)
        default: return nil
        }
    }
}
