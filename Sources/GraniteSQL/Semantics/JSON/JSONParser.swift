// A JSON parser with SQLite 3.40's acceptance rules (RFC 8259 plus its quirks) that never traps.

/// Parses JSON text into a ``JSONNode`` as SQLite 3.40's `jsonParse` does.
///
/// Rules mirrored from SQLite: whitespace is space, tab, LF and CR only; the text ends at its first NUL byte;
/// strings reject raw control characters and unknown escapes (`\u` needs four hex digits); numbers reject
/// leading zeros, a bare `-`, `1.` and `.5`; `null`, `true` and `false` must not run into a letter or digit;
/// containers nest at most 2000 deep. Any violation is ``JSONError/malformed``.
struct JSONParser {
    /// SQLite's `JSON_MAX_DEPTH`.
    static let maximumDepth = 2000

    private let bytes: [UInt8]
    private var depth = 0

    private init(_ bytes: [UInt8]) {
        if let nul = bytes.firstIndex(of: 0) {
            self.bytes = Array(bytes[..<nul])
        } else {
            self.bytes = bytes
        }
    }

    /// Parses a whole document (surrounding whitespace allowed).
    static func parse(_ text: [UInt8]) throws(JSONError) -> JSONNode {
        var parser = JSONParser(text)
        guard case .value(let node, var end) = parser.value(at: parser.skipSpace(0)) else { throw .malformed }
        end = parser.skipSpace(end)
        guard end == parser.bytes.count else { throw .malformed }
        return node
    }

    /// What one call of ``value(at:)`` found.
    private enum Step {
        /// A value, and the offset just past it.
        case value(JSONNode, Int)
        /// A `}` or `]` where a value would start (how SQLite sees an empty container).
        case closeBrace, closeBracket
        /// Anything else: end of text or bad syntax.
        case failure
    }

    private func byte(_ i: Int) -> UInt8 { i < bytes.count ? bytes[i] : 0 }

    private func skipSpace(_ start: Int) -> Int {
        var i = start
        while true {
            let c = byte(i)
            guard c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D else { return i }
            i += 1
        }
    }

    private mutating func value(at i: Int) -> Step {
        let c = byte(i)
        switch c {
        case UInt8(ascii: "{"): return object(at: i)
        case UInt8(ascii: "["): return array(at: i)
        case UInt8(ascii: "\""): return string(at: i)
        case UInt8(ascii: "n"): return literal("null", .null, at: i)
        case UInt8(ascii: "t"): return literal("true", .true, at: i)
        case UInt8(ascii: "f"): return literal("false", .false, at: i)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number(at: i)
        case UInt8(ascii: "}"): return .closeBrace
        case UInt8(ascii: "]"): return .closeBracket
        default: return .failure
        }
    }

    private mutating func object(at start: Int) -> Step {
        depth += 1
        defer { depth -= 1 }
        if depth > Self.maximumDepth { return .failure }
        var members: [JSONMember] = []
        var j = start + 1
        while true {
            j = skipSpace(j)
            let labelStep = value(at: j)
            guard case .value(let label, let afterLabel) = labelStep else {
                if case .closeBrace = labelStep, members.isEmpty { return .value(.object([]), j + 1) }
                return .failure
            }
            guard case .string(let key, _) = label else { return .failure }
            j = skipSpace(afterLabel)
            guard byte(j) == UInt8(ascii: ":") else { return .failure }
            j = skipSpace(j + 1)
            guard case .value(let member, let afterValue) = value(at: j) else { return .failure }
            members.append(JSONMember(key: JSONKey(bytes: key, isPlain: false), value: member))
            j = skipSpace(afterValue)
            switch byte(j) {
            case UInt8(ascii: ","): j += 1
            case UInt8(ascii: "}"): return .value(.object(members), j + 1)
            default: return .failure
            }
        }
    }

    private mutating func array(at start: Int) -> Step {
        depth += 1
        defer { depth -= 1 }
        if depth > Self.maximumDepth { return .failure }
        var elements: [JSONNode] = []
        var j = start + 1
        while true {
            j = skipSpace(j)
            let step = value(at: j)
            guard case .value(let element, let after) = step else {
                if case .closeBracket = step, elements.isEmpty { return .value(.array([], appended: 0), j + 1) }
                return .failure
            }
            elements.append(element)
            j = skipSpace(after)
            switch byte(j) {
            case UInt8(ascii: ","): j += 1
            case UInt8(ascii: "]"): return .value(.array(elements, appended: 0), j + 1)
            default: return .failure
            }
        }
    }

    private func string(at start: Int) -> Step {
        var escaped = false
        var j = start + 1
        while true {
            var c = byte(j)
            if c < 0x20 { return .failure }  // control characters, and the end of the text
            if c == UInt8(ascii: "\\") {
                j += 1
                c = byte(j)
                switch c {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    escaped = true
                case UInt8(ascii: "u") where (1...4).allSatisfy({ Self.hexValue(byte(j + $0)) != nil }):
                    escaped = true
                default: return .failure
                }
            } else if c == UInt8(ascii: "\"") {
                return .value(.string(Array(bytes[(start + 1)..<j]), escaped: escaped), j + 1)
            }
            j += 1
        }
    }

    private func literal(_ word: StaticString, _ node: JSONNode, at start: Int) -> Step {
        let count = word.utf8CodeUnitCount
        let matches = word.withUTF8Buffer { w in (0..<count).allSatisfy { byte(start + $0) == w[$0] } }
        guard matches, !Self.isAlphanumeric(byte(start + count)) else { return .failure }
        return .value(node, start + count)
    }

    /// A number, checked as SQLite checks it: an optional `-`, digits without a leading zero, at most one `.`
    /// (not right after the sign), at most one exponent (after a digit, with at least one digit), and a digit
    /// last.
    private func number(at start: Int) -> Step {
        let first = byte(start)
        let digitsStart = first == UInt8(ascii: "-") ? start + 1 : start
        if byte(digitsStart) == UInt8(ascii: "0"), Self.isDigit(byte(digitsStart + 1)) { return .failure }
        var seenPoint = false
        var seenExponent = false
        var j = start + 1
        scan: while true {
            let c = byte(j)
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): break
            case UInt8(ascii: "."):
                if byte(j - 1) == UInt8(ascii: "-") || seenPoint { return .failure }
                seenPoint = true
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                if byte(j - 1) < UInt8(ascii: "0") || seenExponent { return .failure }
                seenPoint = true
                seenExponent = true
                var next = byte(j + 1)
                if next == UInt8(ascii: "+") || next == UInt8(ascii: "-") {
                    j += 1
                    next = byte(j + 1)
                }
                if !Self.isDigit(next) { return .failure }
            default: break scan
            }
            j += 1
        }
        if byte(j - 1) < UInt8(ascii: "0") { return .failure }
        let token = Array(bytes[start..<j])
        return .value(seenPoint ? .real(token) : .integer(token), j)
    }

    static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }

    static func isAlphanumeric(_ c: UInt8) -> Bool {
        isDigit(c) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
    }

    static func hexValue(_ c: UInt8) -> UInt32? {
        switch c {
        case 0x30...0x39: return UInt32(c - 0x30)
        case 0x41...0x46: return UInt32(c - 0x41 + 10)
        case 0x61...0x66: return UInt32(c - 0x61 + 10)
        default: return nil
        }
    }
}
