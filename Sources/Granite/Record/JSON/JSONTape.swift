// The parsed structure of a JSON text, for the fast JSON decoder: one token per value, in document order.

/// The values of a strict JSON text (RFC 8259, as Foundation's `JSONDecoder` accepts it without JSON5), as a flat
/// array of tokens in document order: a container is followed by its elements (an object by alternating key and
/// value tokens), and a sentinel `null` token ends the array (the value of a missing key's super decoder).
///
/// ```swift
/// let tape = bytes.withUnsafeBufferPointer { JSONTape.parse(UnsafeRawBufferPointer($0)) }
/// ```
///
/// Parsing refuses (returns nil) whatever it is not sure Foundation accepts identically: a byte order mark,
/// invalid UTF-8, control characters in strings, lone surrogate escapes, nesting deeper than 256, a text longer
/// than `Int32.max` bytes. The caller then hands the text to Foundation.
struct JSONTape {
    /// The kind of a token.
    enum Kind: UInt8 {
        /// `null`.
        case null
        /// `true` or `false` (see ``JSONTape/Token/isTrue``).
        case bool
        /// A number; `start..<end` is its text.
        case number
        /// A string; `start..<end` is its content between the quotes, escapes included.
        case string
        /// An array of `count` elements.
        case array
        /// An object of `count` members: key and value tokens alternate.
        case object
    }

    /// One value of the text.
    struct Token {
        /// The kind of value.
        var kind: Kind
        /// Kind-specific flags: ``stringEscaped``, ``stringNonASCII``, ``numberFraction``, ``numberExponent``,
        /// ``numberNegative``, ``boolTrue``.
        var flags: UInt8
        /// The first byte of the value's text (strings: after the opening quote).
        var start: Int32
        /// The end of the value's text (strings: the closing quote).
        var end: Int32
        /// The index of the token after this value and all its elements.
        var next: Int32
        /// The number of elements (arrays) or members (objects).
        var count: Int32

        /// Whether a `bool` token is `true`.
        var isTrue: Bool { flags & JSONTape.boolTrue != 0 }
    }

    /// A string with at least one escape sequence.
    static let stringEscaped: UInt8 = 1
    /// A string with at least one non-ASCII byte.
    static let stringNonASCII: UInt8 = 2
    /// A number with a fraction part.
    static let numberFraction: UInt8 = 1
    /// A number with an exponent part.
    static let numberExponent: UInt8 = 2
    /// A number with a minus sign.
    static let numberNegative: UInt8 = 4
    /// A `true` token.
    static let boolTrue: UInt8 = 1

    /// The deepest nesting parsed (Foundation's own limit is higher).
    static let maximumDepth = 256

    /// The tokens, the sentinel `null` token last.
    var tokens: [Token]

    /// The index of the sentinel `null` token.
    var nullIndex: Int { tokens.count - 1 }

    /// Parses `bytes`, or returns nil when the text is not certainly valid JSON for Foundation.
    static func parse(_ bytes: UnsafeRawBufferPointer) -> JSONTape? {
        guard let base = bytes.baseAddress, bytes.count < Int(Int32.max) else { return nil }
        var parser = JSONTapeParser(bytes: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        return parser.parse().map { JSONTape(tokens: $0) }
    }
}

/// The recursive-descent parser that builds a ``JSONTape``.
private struct JSONTapeParser {
    /// The text.
    let bytes: UnsafePointer<UInt8>
    /// The length of the text.
    let count: Int
    /// The next byte to read.
    var position = 0
    /// The tokens so far.
    var tokens: [JSONTape.Token] = []
    /// The current nesting depth.
    var depth = 0

    /// A parser of `count` bytes at `bytes`.
    init(bytes: UnsafePointer<UInt8>, count: Int) {
        self.bytes = bytes
        self.count = count
    }

    /// The tokens of the whole text, or nil.
    mutating func parse() -> [JSONTape.Token]? {
        tokens.reserveCapacity(count / 6 + 2)
        skipWhitespace()
        guard parseValue() else { return nil }
        skipWhitespace()
        guard position == count else { return nil }
        tokens.append(
            JSONTape.Token(kind: .null, flags: 0, start: 0, end: 0, next: Int32(tokens.count + 1), count: 0))
        return tokens
    }

    /// Skips JSON whitespace (space, tab, line feed, carriage return).
    mutating func skipWhitespace() {
        while position < count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    /// Appends a scalar token ending at the current position.
    mutating func appendScalar(_ kind: JSONTape.Kind, flags: UInt8, start: Int, end: Int) {
        tokens.append(
            JSONTape.Token(
                kind: kind, flags: flags, start: Int32(start), end: Int32(end), next: Int32(tokens.count + 1),
                count: 0))
    }

    /// Parses one value at the current position.
    mutating func parseValue() -> Bool {
        guard position < count else { return false }
        switch bytes[position] {
        case UInt8(ascii: "{"): return parseContainer(object: true)
        case UInt8(ascii: "["): return parseContainer(object: false)
        case UInt8(ascii: "\""): return parseString()
        case UInt8(ascii: "t"): return parseLiteral("true", kind: .bool, flags: JSONTape.boolTrue)
        case UInt8(ascii: "f"): return parseLiteral("false", kind: .bool, flags: 0)
        case UInt8(ascii: "n"): return parseLiteral("null", kind: .null, flags: 0)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return parseNumber()
        default: return false
        }
    }

    /// Parses the literal `word`.
    mutating func parseLiteral(_ word: StaticString, kind: JSONTape.Kind, flags: UInt8) -> Bool {
        let length = word.utf8CodeUnitCount
        guard count - position >= length else { return false }
        let text = word.utf8Start
        for offset in 0..<length where bytes[position + offset] != text[offset] { return false }
        appendScalar(kind, flags: flags, start: position, end: position + length)
        position += length
        return true
    }

    /// Parses an array or an object.
    mutating func parseContainer(object: Bool) -> Bool {
        depth += 1
        guard depth <= JSONTape.maximumDepth else { return false }
        let index = tokens.count
        tokens.append(
            JSONTape.Token(
                kind: object ? .object : .array, flags: 0, start: Int32(position), end: 0, next: 0, count: 0))
        position += 1
        let close = object ? UInt8(ascii: "}") : UInt8(ascii: "]")
        var elements: Int32 = 0
        skipWhitespace()
        if position < count, bytes[position] == close {
            position += 1
        } else {
            while true {
                if object {
                    guard position < count, bytes[position] == UInt8(ascii: "\""), parseString() else { return false }
                    skipWhitespace()
                    guard position < count, bytes[position] == UInt8(ascii: ":") else { return false }
                    position += 1
                    skipWhitespace()
                }
                guard parseValue() else { return false }
                elements += 1
                skipWhitespace()
                guard position < count else { return false }
                let byte = bytes[position]
                position += 1
                if byte == close { break }
                guard byte == UInt8(ascii: ",") else { return false }
                skipWhitespace()
            }
        }
        tokens[index].end = Int32(position)
        tokens[index].next = Int32(tokens.count)
        tokens[index].count = elements
        depth -= 1
        return true
    }

    /// Whether `byte` is an ASCII hexadecimal digit.
    func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
            UInt8(ascii: "A")...UInt8(ascii: "F"):
            return true
        default:
            return false
        }
    }

    /// The code unit of the `\uXXXX` escape at `at` (the backslash), or nil.
    func unicodeEscape(at offset: Int) -> UInt16? {
        let at = offset
        guard count - at >= 6, bytes[at] == UInt8(ascii: "\\"), bytes[at + 1] == UInt8(ascii: "u") else {
            return nil
        }
        var value: UInt16 = 0
        for offset in 2..<6 {
            let byte = bytes[at + offset]
            guard isHexDigit(byte) else { return nil }
            value = value << 4 | UInt16(JSONTapeParser.hexValue(byte))
        }
        return value
    }

    /// The value of the hexadecimal digit `byte`.
    static func hexValue(_ byte: UInt8) -> UInt8 {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        default: return byte - UInt8(ascii: "A") + 10
        }
    }

    /// The length of the well-formed UTF-8 sequence at `at` (whose first byte is not ASCII), or nil.
    func utf8SequenceLength(at offset: Int) -> Int? {
        let at = offset
        let lead = bytes[at]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            high = 0x9F
        case 0xF0:
            length = 4
            low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            high = 0x8F
        default: return nil
        }
        guard count - at >= length else { return nil }
        let second = bytes[at + 1]
        guard second >= low, second <= high else { return nil }
        for offset in 2..<length where bytes[at + offset] & 0xC0 != 0x80 { return nil }
        return length
    }

    /// The bytes among the eight at `pointer` that end a run of plain string bytes (a quote, a backslash, a
    /// control character below 0x20, a non-ASCII byte), as the high bit of each such byte; zero when there is none.
    /// Bits may also be set above the first such byte (borrows), never below it: the lowest set bit is exact.
    @inline(__always)
    static func specialBytes(_ pointer: UnsafeRawPointer) -> UInt64 {
        let word = UInt64(littleEndian: pointer.loadUnaligned(as: UInt64.self))
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* 0x22)
        let backslashes = word ^ (ones &* 0x5C)
        // A byte of `x` is zero when `(x - 1) & ~x` has its high bit set; an ASCII byte is below 0x20 when
        // `(x - 0x20) & ~x` has its high bit set; non-ASCII bytes have their own high bit set.
        let zeroQuote = (quotes &- ones) & ~quotes
        let zeroBackslash = (backslashes &- ones) & ~backslashes
        let control = (word &- ones &* 0x20) & ~word
        return (zeroQuote | zeroBackslash | control | word) & highs
    }

    /// Parses a string at the current position (its opening quote).
    mutating func parseString() -> Bool {
        let start = position + 1
        var index = start
        var flags: UInt8 = 0
        while index < count {
            // Eight bytes at a time while they are plain, then straight to the first special one.
            if count - index >= 8 {
                let mask = JSONTapeParser.specialBytes(UnsafeRawPointer(bytes + index))
                if mask == 0 {
                    index += 8
                    continue
                }
                index += mask.trailingZeroBitCount >> 3
            }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                appendScalar(.string, flags: flags, start: start, end: index)
                position = index + 1
                return true
            } else if byte == UInt8(ascii: "\\") {
                flags |= JSONTape.stringEscaped
                guard index + 1 < count else { return false }
                switch bytes[index + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    index += 2
                case UInt8(ascii: "u"):
                    guard let unit = unicodeEscape(at: index) else { return false }
                    if unit >= 0xD800, unit <= 0xDBFF {
                        guard let low = unicodeEscape(at: index + 6), low >= 0xDC00, low <= 0xDFFF else {
                            return false
                        }
                        index += 12
                    } else if unit >= 0xDC00, unit <= 0xDFFF {
                        return false
                    } else {
                        index += 6
                    }
                default:
                    return false
                }
            } else if byte < 0x20 {
                return false
            } else if byte < 0x80 {
                index += 1
            } else {
                guard let length = utf8SequenceLength(at: index) else { return false }
                flags |= JSONTape.stringNonASCII
                index += length
            }
        }
        return false
    }

    /// Whether `byte` is an ASCII digit.
    func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    /// Parses a number at the current position: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    mutating func parseNumber() -> Bool {
        let start = position
        var index = position
        var flags: UInt8 = 0
        if bytes[index] == UInt8(ascii: "-") {
            flags |= JSONTape.numberNegative
            index += 1
        }
        guard index < count, isDigit(bytes[index]) else { return false }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < count, isDigit(bytes[index]) { return false }
        } else {
            while index < count, isDigit(bytes[index]) { index += 1 }
        }
        if index < count, bytes[index] == UInt8(ascii: ".") {
            flags |= JSONTape.numberFraction
            index += 1
            guard index < count, isDigit(bytes[index]) else { return false }
            while index < count, isDigit(bytes[index]) { index += 1 }
        }
        if index < count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            flags |= JSONTape.numberExponent
            index += 1
            if index < count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < count, isDigit(bytes[index]) else { return false }
            while index < count, isDigit(bytes[index]) { index += 1 }
        }
        appendScalar(.number, flags: flags, start: start, end: index)
        position = index
        return true
    }
}
