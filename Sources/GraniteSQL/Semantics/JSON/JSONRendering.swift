// Minified JSON text from parsed nodes and SQL values, as SQLite 3.40 writes it.

import GraniteStorage

/// Writes JSON text (SQLite's `jsonRenderNode`, `jsonAppendValue` and `jsonAppendString`).
enum JSONRendering {
    /// The minified text of `node`: scalars as their original tokens, containers without whitespace.
    static func text(of node: JSONNode) throws(JSONError) -> [UInt8] {
        var out: [UInt8] = []
        try append(node, to: &out)
        return out
    }

    /// Appends the minified text of `node`.
    ///
    /// Walks the tree with an explicit stack of pending work rather than by recursion, so that deep documents
    /// do not need a deep thread stack.
    static func append(_ node: JSONNode, to out: inout [UInt8]) throws(JSONError) {
        /// What remains to be written, innermost last.
        enum Pending {
            case node(JSONNode)
            case member(JSONMember)
            case byte(UInt8)
        }
        var pending: [Pending] = [.node(node)]
        while let next = pending.popLast() {
            switch next {
            case .byte(let byte): out.append(byte)
            case .member(let member):
                appendKey(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                pending.append(.node(member.value))
            case .node(let node):
                switch node {
                case .null: out.append(contentsOf: "null".utf8)
                case .true: out.append(contentsOf: "true".utf8)
                case .false: out.append(contentsOf: "false".utf8)
                case .integer(let token), .real(let token): out.append(contentsOf: token)
                case .string(let raw, _):
                    out.append(UInt8(ascii: "\""))
                    out.append(contentsOf: raw)
                    out.append(UInt8(ascii: "\""))
                case .array(let elements, _):
                    out.append(UInt8(ascii: "["))
                    pending.append(.byte(UInt8(ascii: "]")))
                    for (index, element) in elements.enumerated().reversed() {
                        pending.append(.node(element))
                        if index > 0 { pending.append(.byte(UInt8(ascii: ","))) }
                    }
                case .object(let members):
                    out.append(UInt8(ascii: "{"))
                    pending.append(.byte(UInt8(ascii: "}")))
                    let shown = members.filter { !$0.isRemoved }
                    for (index, member) in shown.enumerated().reversed() {
                        pending.append(.member(member))
                        if index > 0 { pending.append(.byte(UInt8(ascii: ","))) }
                    }
                case .replaced(let argument):
                    try appendValue(argument, to: &out)
                }
            }
        }
    }

    static func appendKey(_ key: JSONKey, to out: inout [UInt8]) {
        if key.isPlain {
            appendString(key.bytes, to: &out)
        } else {
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: key.bytes)
            out.append(UInt8(ascii: "\""))
        }
    }

    /// Appends an SQL value as JSON: NULL as `null`, numbers as their SQL text, a JSON-subtyped text as is,
    /// any other text as a string; a BLOB is an error.
    static func appendValue(_ argument: JSONArgument, to out: inout [UInt8]) throws(JSONError) {
        switch argument.value {
        case .null: out.append(contentsOf: "null".utf8)
        case .integer(let i): out.append(contentsOf: String(i).utf8)
        case .real(let r): out.append(contentsOf: SQLRealFormatting.render(r).utf8)
        case .text(let s):
            if argument.isJSON {
                out.append(contentsOf: s.utf8)
            } else {
                appendString(Array(s.utf8), to: &out)
            }
        case .invalidUTF8Text(let bytes):
            // The bytes are kept as they are, as SQLite keeps them.
            if argument.isJSON {
                out.append(contentsOf: bytes)
            } else {
                appendString(bytes, to: &out)
            }
        case .blob: throw .blob
        }
    }

    /// Appends `text` as a JSON string: `"` and `\` escaped, control characters as `\b \t \n \f \r` or
    /// `\u00XX`, everything else (non-ASCII included) as is.
    static func appendString(_ text: [UInt8], to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for c in text {
            switch c {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                out.append(UInt8(ascii: "\\"))
                out.append(c)
            case 0x08: out.append(contentsOf: "\\b".utf8)
            case 0x09: out.append(contentsOf: "\\t".utf8)
            case 0x0A: out.append(contentsOf: "\\n".utf8)
            case 0x0C: out.append(contentsOf: "\\f".utf8)
            case 0x0D: out.append(contentsOf: "\\r".utf8)
            case 0..<0x20:
                out.append(contentsOf: "\\u00".utf8)
                out.append(hexDigits[Int(c >> 4)])
                out.append(hexDigits[Int(c & 0xF)])
            default: out.append(c)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// The SQL value of a node (SQLite's `jsonReturn`): `null` is NULL, `true`/`false` are 1/0, integers that
    /// fit are INTEGER and others REAL, strings are unescaped TEXT, and containers are their JSON text.
    static func sqlValue(of node: JSONNode) throws(JSONError) -> JSONArgument {
        switch node {
        case .null: return JSONArgument(.null)
        case .true: return JSONArgument(.integer(1))
        case .false: return JSONArgument(.integer(0))
        case .integer(let token):
            if let i = integerValue(token) { return JSONArgument(.integer(i)) }
            return JSONArgument(.real(realValue(token)))
        case .real(let token): return JSONArgument(.real(realValue(token)))
        case .string(let raw, let escaped):
            let bytes = escaped ? unescape(raw) : raw
            return JSONArgument(.text(utf8: bytes))
        case .array, .object:
            return JSONArgument(.text(utf8: try text(of: node)), isJSON: true)
        case .replaced(let argument):
            return argument
        }
    }

    /// A number token's value as a REAL, correctly rounded (SQLite converts JSON numbers with `strtod`, not
    /// with the scanner it uses for SQL text, which can be one unit in the last place off).
    static func realValue(_ token: [UInt8]) -> Double {
        Double(String(decoding: token, as: UTF8.self)) ?? SQLNumberParsing.atof(token).value
    }

    /// An integer token's value, or nil when SQLite returns it as a REAL (beyond 64 bits, with
    /// −9223372036854775808 still an integer).
    static func integerValue<Token: Collection<UInt8>>(_ token: Token) -> Int64? {
        let negative = token.first == UInt8(ascii: "-")
        let digits = token.dropFirst(negative ? 1 : 0)
        let limit = Int64.max / 10
        var value: Int64 = 0
        var index = digits.startIndex
        while index < digits.endIndex {
            let digit = Int64(digits[index] - 0x30)
            let next = digits.index(after: index)
            if value >= limit {
                if value > limit || next < digits.endIndex || digit == 9 { return nil }
                if digit == 8 { return negative ? Int64.min : nil }
            }
            value = value * 10 + digit
            index = next
        }
        return negative ? -value : value
    }

    /// The text of a string's escaped bytes (SQLite's unescaping): `\uXXXX` becomes UTF-8 (a surrogate pair
    /// one character), and `\u0000` ends the text.
    static func unescape(_ raw: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var i = 0
        func hex4(_ at: Int) -> UInt32 {
            var v: UInt32 = 0
            for k in 0..<4 { v = v << 4 | (JSONParser.hexValue(at + k < raw.count ? raw[at + k] : 0) ?? 0) }
            return v
        }
        while i < raw.count {
            let c = raw[i]
            guard c == UInt8(ascii: "\\"), i + 1 < raw.count else {
                out.append(c)
                i += 1
                continue
            }
            i += 1
            let e = raw[i]
            if e == UInt8(ascii: "u") {
                var v = hex4(i + 1)
                i += 4
                if v == 0 { break }
                if v >= 0xD800 && v <= 0xDBFF, i + 6 < raw.count, raw[i + 1] == UInt8(ascii: "\\"),
                    raw[i + 2] == UInt8(ascii: "u")
                {
                    let low = hex4(i + 3)
                    if low & 0xFC00 == 0xDC00 {
                        v = ((v & 0x3FF) << 10) + (low & 0x3FF) + 0x10000
                        i += 6
                    }
                }
                appendUTF8(v, to: &out)
            } else {
                switch e {
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                default: out.append(e)
                }
            }
            i += 1
        }
        return out
    }

    /// Appends `v` in UTF-8 (a lone surrogate as its three-byte form, as SQLite does).
    private static func appendUTF8(_ v: UInt32, to out: inout [UInt8]) {
        switch v {
        case 0..<0x80: out.append(UInt8(v))
        case 0x80..<0x800:
            out.append(UInt8(0xC0 | (v >> 6)))
            out.append(UInt8(0x80 | (v & 0x3F)))
        case 0x800..<0x10000:
            out.append(UInt8(0xE0 | (v >> 12)))
            out.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (v & 0x3F)))
        default:
            out.append(UInt8(0xF0 | (v >> 18)))
            out.append(UInt8(0x80 | ((v >> 12) & 0x3F)))
            out.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (v & 0x3F)))
        }
    }
}
