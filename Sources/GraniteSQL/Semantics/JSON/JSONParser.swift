// A JSON parser with SQLite 3.40's acceptance rules (RFC 8259 plus its quirks) that never traps.

import GraniteStorage

/// Parses JSON text into a ``JSONNode`` as SQLite 3.40's `jsonParse` does.
///
/// Rules mirrored from SQLite: whitespace is space, tab, LF and CR only; the text ends at its first NUL byte;
/// strings reject raw control characters and unknown escapes (`\u` needs four hex digits); numbers reject
/// leading zeros, a bare `-`, `1.` and `.5`; `null`, `true` and `false` must not run into a letter or digit;
/// containers nest at most 2000 deep. Any violation is ``JSONError/malformed``.
struct JSONParser {
    /// SQLite's `JSON_MAX_DEPTH`.
    static let maximumDepth = 2000

    /// The text. A NUL reads as its end: no token can hold one, so the text ends where SQLite's C string does.
    let bytes: UnsafeBufferPointer<UInt8>

    /// A parser over `bytes`, which must outlive it.
    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Calls `body` with the text of `value` (its text form, as `sqlite3_value_text`), without copying a TEXT
    /// value's bytes; nil for NULL.
    static func withText<R>(
        _ value: Value, _ body: (UnsafeBufferPointer<UInt8>) throws(JSONError) -> R
    ) throws(JSONError) -> R? {
        let result: Result<R, JSONError>
        switch value {
        case .null: return nil
        case .text(var text):
            result = text.withUTF8 { buffer in Result { () throws(JSONError) -> R in try body(buffer) } }
        case .blob(let bytes), .invalidUTF8Text(let bytes):
            result = bytes.withUnsafeBufferPointer { buffer in Result { () throws(JSONError) -> R in try body(buffer) } }
        case .integer, .real:
            let bytes = value.sqlTextBytes ?? []
            result = bytes.withUnsafeBufferPointer { buffer in Result { () throws(JSONError) -> R in try body(buffer) } }
        }
        return try result.get()
    }

    /// Parses a whole document (surrounding whitespace allowed).
    static func parse(_ text: [UInt8]) throws(JSONError) -> JSONNode {
        let result = text.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONError) -> JSONNode in try parse(buffer) }
        }
        return try result.get()
    }

    /// Parses a whole document (surrounding whitespace allowed).
    ///
    /// Containers are parsed with an explicit stack rather than by recursion, so that the depth limit, not the
    /// thread's stack, bounds how deep a document can be.
    static func parse(_ text: UnsafeBufferPointer<UInt8>) throws(JSONError) -> JSONNode {
        let parser = JSONParser(text)
        var open: [OpenContainer] = []
        var i = parser.skipSpace(0)
        while true {
            // Phase 1: a value at `i`, or the opening of a non-empty container (then its first value next).
            var value: JSONNode
            let c = parser.byte(i)
            if c == UInt8(ascii: "[") || c == UInt8(ascii: "{") {
                guard open.count < maximumDepth else { throw .malformed }
                let first = parser.skipSpace(i + 1)
                if c == UInt8(ascii: "[") {
                    guard parser.byte(first) != UInt8(ascii: "]") else {
                        value = .array([], appended: 0)
                        i = first + 1
                        try parser.closeFinished(&open, value: &value, at: &i)
                        if open.isEmpty { return try parser.finish(value, at: i) }
                        continue
                    }
                    open.append(.array([]))
                    i = first
                } else {
                    guard parser.byte(first) != UInt8(ascii: "}") else {
                        value = .object([])
                        i = first + 1
                        try parser.closeFinished(&open, value: &value, at: &i)
                        if open.isEmpty { return try parser.finish(value, at: i) }
                        continue
                    }
                    let (key, next) = try parser.label(at: first)
                    open.append(.object([], label: key))
                    i = next
                }
                continue
            }
            guard case .value(let scalar, let end) = parser.scalar(at: i) else { throw .malformed }
            value = scalar
            i = end
            // Phase 2: add the value to the innermost open container, closing those that end here.
            try parser.closeFinished(&open, value: &value, at: &i)
            if open.isEmpty { return try parser.finish(value, at: i) }
        }
    }

    /// A container being parsed: its items so far, and for an object the label of the value being parsed.
    private enum OpenContainer {
        case array([JSONNode])
        case object([JSONMember], label: [UInt8])
    }

    /// Adds `value` (ending at `i`) to the innermost open container; while the container then ends, closes it
    /// and adds it to the next one out. Stops after a `,` (with `i` at the next value, past its label in an
    /// object), or when no container is open (`value` is then the whole document).
    private func closeFinished(_ open: inout [OpenContainer], value: inout JSONNode, at i: inout Int) throws(JSONError)
    {
        while var container = open.popLast() {
            switch container {
            case .array(var elements):
                container = .array([])  // leaves `elements` the only reference, so the append does not copy
                elements.append(value)
                container = .array(elements)
            case .object(var members, let label):
                container = .array([])
                members.append(JSONMember(key: JSONKey(bytes: label, isPlain: false), value: value))
                container = .object(members, label: [])
            }
            i = skipSpace(i)
            switch (byte(i), container) {
            case (UInt8(ascii: ","), .array):
                open.append(container)
                i = skipSpace(i + 1)
                return
            case (UInt8(ascii: ","), .object(let members, _)):
                let (key, next) = try label(at: skipSpace(i + 1))
                open.append(.object(members, label: key))
                i = next
                return
            case (UInt8(ascii: "]"), .array(let elements)):
                value = .array(elements, appended: 0)
                i += 1
            case (UInt8(ascii: "}"), .object(let members, _)):
                value = .object(members)
                i += 1
            default:
                throw .malformed
            }
        }
    }

    /// An object member's label at `i` and the offset of its value (past the `:` and any whitespace).
    private func label(at i: Int) throws(JSONError) -> (label: [UInt8], next: Int) {
        let (range, next) = try labelRange(at: i)
        return (Array(UnsafeBufferPointer(rebasing: bytes[range])), next)
    }

    /// The bytes between the quotes of an object member's label at `i`, and the offset of its value.
    @inline(__always)
    func labelRange(at i: Int) throws(JSONError) -> (label: Range<Int>, next: Int) {
        guard byte(i) == UInt8(ascii: "\""), let (end, _) = stringEnd(at: i) else { throw .malformed }
        let colon = skipSpace(end)
        guard byte(colon) == UInt8(ascii: ":") else { throw .malformed }
        return ((i + 1)..<(end - 1), skipSpace(colon + 1))
    }

    /// The document `value` ending at `i`: only whitespace may follow.
    private func finish(_ value: JSONNode, at i: Int) throws(JSONError) -> JSONNode {
        guard byte(skipSpace(i)) == 0 else { throw .malformed }
        return value
    }

    /// What one call of ``scalar(at:)`` found.
    enum Step {
        /// A value, and the offset just past it.
        case value(JSONNode, Int)
        /// Not a scalar: end of text or bad syntax.
        case failure
    }

    func byte(_ i: Int) -> UInt8 { i < bytes.count ? bytes[i] : 0 }

    func skipSpace(_ start: Int) -> Int {
        var i = start
        while true {
            let c = byte(i)
            guard c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D else { return i }
            i += 1
        }
    }

    /// A string, literal or number at `i`.
    func scalar(at i: Int) -> Step {
        switch byte(i) {
        case UInt8(ascii: "\""):
            guard let (end, escaped) = stringEnd(at: i) else { return .failure }
            let raw = Array(UnsafeBufferPointer(rebasing: bytes[(i + 1)..<(end - 1)]))
            return .value(.string(raw, escaped: escaped), end)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            guard let (end, isReal) = numberEnd(at: i) else { return .failure }
            let token = Array(UnsafeBufferPointer(rebasing: bytes[i..<end]))
            return .value(isReal ? .real(token) : .integer(token), end)
        default:
            guard let end = scalarEnd(at: i) else { return .failure }
            switch byte(i) {
            case UInt8(ascii: "n"): return .value(.null, end)
            case UInt8(ascii: "t"): return .value(.true, end)
            default: return .value(.false, end)
            }
        }
    }

    /// The offset just past the string, literal or number at `i`, checked as ``scalar(at:)`` checks it but
    /// without making a node; nil when there is none.
    @inline(__always)
    func scalarEnd(at i: Int) -> Int? {
        switch byte(i) {
        case UInt8(ascii: "\""): return stringEnd(at: i)?.end
        case UInt8(ascii: "n"): return literalEnd("null", at: i)
        case UInt8(ascii: "t"): return literalEnd("true", at: i)
        case UInt8(ascii: "f"): return literalEnd("false", at: i)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return numberEnd(at: i)?.end
        default: return nil
        }
    }

    /// The offset past the closing quote of the string at `start` and whether it has escapes; nil when it is
    /// malformed.
    ///
    /// Inlined for the common case, a short plain string (most labels and many values) whose closing quote is the
    /// first special byte of the eight after its opening one; the rest is left to ``stringEnd(from:)``.
    @inline(__always)
    private func stringEnd(at start: Int) -> (end: Int, escaped: Bool)? {
        let j = start + 1
        if j + 8 <= bytes.count, let base = UnsafeRawPointer(bytes.baseAddress) {
            let special = Self.specialStringBytes(
                UInt64(littleEndian: base.loadUnaligned(fromByteOffset: j, as: UInt64.self)))
            guard special != 0 else { return stringEnd(from: j + 8) }
            let k = j + special.trailingZeroBitCount >> 3
            if base.load(fromByteOffset: k, as: UInt8.self) == UInt8(ascii: "\"") { return (k + 1, false) }
            return stringEnd(from: k)
        }
        return stringEnd(from: j)
    }

    /// ``stringEnd(at:)`` from `j`, a byte of the string's body before which all are plain.
    private func stringEnd(from j: Int) -> (end: Int, escaped: Bool)? {
        var escaped = false
        var j = j
        let count = bytes.count
        while true {
            // Most bytes are plain: skip their run eight at a time, then byte by byte near the end of the text.
            if let base = UnsafeRawPointer(bytes.baseAddress) {
                while j + 8 <= count {
                    let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: j, as: UInt64.self))
                    let special = Self.specialStringBytes(word)
                    if special != 0 {
                        j += special.trailingZeroBitCount >> 3
                        // The lowest flagged byte is a true one: most often the closing quote.
                        if base.load(fromByteOffset: j, as: UInt8.self) == UInt8(ascii: "\"") {
                            return (j + 1, escaped)
                        }
                        break
                    }
                    j += 8
                }
            }
            while j < count {
                let c = bytes[j]
                guard c >= 0x20 && c != UInt8(ascii: "\"") && c != UInt8(ascii: "\\") else { break }
                j += 1
            }
            var c = byte(j)
            if c < 0x20 { return nil }  // control characters, and the end of the text
            if c == UInt8(ascii: "\\") {
                j += 1
                c = byte(j)
                switch c {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    escaped = true
                case UInt8(ascii: "u") where (1...4).allSatisfy({ Self.hexValue(byte(j + $0)) != nil }):
                    escaped = true
                default: return nil
                }
            } else if c == UInt8(ascii: "\"") {
                return (j + 1, escaped)
            }
            j += 1
        }
    }

    /// The high bit of each byte of `word` (little-endian) that ends a string's plain run (a control character,
    /// `"` or `\`), possibly with false ones, but only above the lowest true one: each test borrows only upward
    /// from a byte it flags, so the lowest flagged byte is always the first one that ends the run.
    private static func specialStringBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        let control = (word &- ones &* 0x20) & ~word & highBits
        let quote = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
        let backslash = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
        return control | ((quote &- ones) & ~quote & highBits) | ((backslash &- ones) & ~backslash & highBits)
    }

    private func literalEnd(_ word: StaticString, at start: Int) -> Int? {
        let count = word.utf8CodeUnitCount
        let matches = word.withUTF8Buffer { w in (0..<count).allSatisfy { byte(start + $0) == w[$0] } }
        guard matches, !Self.isAlphanumeric(byte(start + count)) else { return nil }
        return start + count
    }

    /// The end of the number at `start` and whether it is a real, checked as SQLite checks it: an optional
    /// `-`, digits without a leading zero, at most one `.` (not right after the sign), at most one exponent
    /// (after a digit, with at least one digit), and a digit last.
    private func numberEnd(at start: Int) -> (end: Int, isReal: Bool)? {
        let first = byte(start)
        let digitsStart = first == UInt8(ascii: "-") ? start + 1 : start
        if byte(digitsStart) == UInt8(ascii: "0"), Self.isDigit(byte(digitsStart + 1)) { return nil }
        var seenPoint = false
        var seenExponent = false
        var j = start + 1
        scan: while true {
            let c = byte(j)
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): break
            case UInt8(ascii: "."):
                if byte(j - 1) == UInt8(ascii: "-") || seenPoint { return nil }
                seenPoint = true
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                if byte(j - 1) < UInt8(ascii: "0") || seenExponent { return nil }
                seenPoint = true
                seenExponent = true
                var next = byte(j + 1)
                if next == UInt8(ascii: "+") || next == UInt8(ascii: "-") {
                    j += 1
                    next = byte(j + 1)
                }
                if !Self.isDigit(next) { return nil }
            default: break scan
            }
            j += 1
        }
        if byte(j - 1) < UInt8(ascii: "0") { return nil }
        return (j, seenPoint)
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
