import Foundation

/// Thrown inside the fast JSON decoder when it abandons: the value is then decoded again by Foundation.
struct JSONFastBail: Error {}

/// The shared state of one fast decode: the text, its tokens, the options, and whether the decode abandoned.
///
/// Every read either returns exactly what Foundation's `JSONDecoder` returns for the same value, or throws
/// ``JSONFastBail`` after setting ``bailed`` (so that even a bail caught by the decoded type's own code sends the
/// whole value to Foundation).
final class JSONFastState {
    /// The text.
    let base: UnsafePointer<UInt8>
    /// The tokens of the text, the sentinel `null` last.
    let tokens: [JSONTape.Token]
    /// The strategies.
    let options: JSONFastOptions
    /// Whether a read abandoned.
    private(set) var bailed = false
    /// Whether the text is still readable (false once the decode returned, should a decoder have escaped).
    var isReadable = true

    /// The state of a decode of `tape`, whose text is at `base`.
    init(base: UnsafePointer<UInt8>, tape: JSONTape, options: JSONFastOptions) {
        self.base = base
        tokens = tape.tokens
        self.options = options
    }

    /// The index of the sentinel `null` token.
    var nullIndex: Int { tokens.count - 1 }

    /// Records that the decode abandons, and returns the error to throw.
    func bail() -> JSONFastBail {
        bailed = true
        return JSONFastBail()
    }

    /// Records that the decode abandons, without throwing (for reads that cannot throw).
    func abandon() {
        bailed = true
    }

    /// The token at `index`, or a bail once the text is no longer readable.
    @inline(__always)
    func token(_ index: Int) throws -> JSONTape.Token {
        guard isReadable else { throw bail() }
        return tokens[index]
    }

    /// The string of the string token at `index`.
    func string(at index: Int) throws -> String {
        let token = try token(index)
        guard token.kind == .string else { throw bail() }
        return decodeString(token)
    }

    /// The content of a string token, escapes decoded (the parser has checked them and the UTF-8).
    func decodeString(_ token: JSONTape.Token) -> String {
        let start = base + Int(token.start)
        let count = Int(token.end - token.start)
        if token.flags & JSONTape.stringEscaped == 0 {
            return String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
        }
        return String(unsafeUninitializedCapacity: count) { output in
            var read = 0
            var written = 0
            while read < count {
                let byte = start[read]
                guard byte == UInt8(ascii: "\\") else {
                    output[written] = byte
                    written += 1
                    read += 1
                    continue
                }
                let escape = start[read + 1]
                read += 2
                let simple: UInt8
                switch escape {
                case UInt8(ascii: "b"): simple = 0x08
                case UInt8(ascii: "f"): simple = 0x0C
                case UInt8(ascii: "n"): simple = 0x0A
                case UInt8(ascii: "r"): simple = 0x0D
                case UInt8(ascii: "t"): simple = 0x09
                case UInt8(ascii: "u"):
                    var scalar = UInt32(hexUnit(start + read))
                    read += 4
                    if scalar >= 0xD800, scalar <= 0xDBFF {
                        let low = UInt32(hexUnit(start + read + 2))
                        read += 6
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    for unit in UTF8.encode(Unicode.Scalar(scalar)!)! {
                        output[written] = unit
                        written += 1
                    }
                    continue
                default: simple = escape
                }
                output[written] = simple
                written += 1
            }
            return written
        }
    }

    /// The value of the four hexadecimal digits at `digits`.
    private func hexUnit(_ digits: UnsafePointer<UInt8>) -> UInt16 {
        var value: UInt16 = 0
        for offset in 0..<4 {
            let byte = digits[offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            default: digit = byte - UInt8(ascii: "A") + 10
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    /// The boolean of the token at `index`.
    func bool(at index: Int) throws -> Bool {
        let token = try token(index)
        guard token.kind == .bool else { throw bail() }
        return token.isTrue
    }

    /// The integer of the token at `index`.
    func integer<T: FixedWidthInteger>(at index: Int, as type: T.Type = T.self) throws -> T {
        let token = try token(index)
        guard token.kind == .number, let value = JSONNumberParsing.integer(base, token, as: T.self) else {
            throw bail()
        }
        return value
    }

    /// The double of the token at `index`.
    func double(at index: Int) throws -> Double {
        let token = try token(index)
        guard token.kind == .number, let value = JSONNumberParsing.double(base, token) else { throw bail() }
        return value
    }

    /// The float of the token at `index`.
    func float(at index: Int) throws -> Float {
        let token = try token(index)
        guard token.kind == .number, let value = JSONNumberParsing.float(base, token) else { throw bail() }
        return value
    }

    /// Whether the token at `index` is `null`.
    func isNull(at index: Int) throws -> Bool {
        try token(index).kind == .null
    }

    /// Checks that the members of the object at `index` can be looked up by bytes as Foundation looks them up
    /// by `String`: ASCII keys without escapes (so byte equality is `String` equality), no duplicates (Foundation
    /// keeps the first).
    func checkKeys(ofObject index: Int) throws {
        let object = try token(index)
        let count = Int(object.count)
        if count <= 1 {
            if count == 1, tokens[index + 1].flags != 0 { throw bail() }
            return
        }
        if count > 32 {
            var seen = Set<String>(minimumCapacity: count)
            var key = index + 1
            for _ in 0..<count {
                let token = tokens[key]
                guard token.flags == 0, seen.insert(decodeString(token)).inserted else { throw bail() }
                key = Int(tokens[key + 1].next)
            }
            return
        }
        var key = index + 1
        for member in 0..<count {
            let token = tokens[key]
            guard token.flags == 0 else { throw bail() }
            let length = Int(token.end - token.start)
            var other = index + 1
            for _ in 0..<member {
                let previous = tokens[other]
                if Int(previous.end - previous.start) == length,
                    memcmp(base + Int(previous.start), base + Int(token.start), length) == 0
                {
                    throw bail()
                }
                other = Int(tokens[other + 1].next)
            }
            key = Int(tokens[key + 1].next)
        }
    }

    /// Decodes a `T` from the value at `index`, as Foundation's `JSONDecoder` does: `Date`, `Data` and `URL`
    /// by the strategies, `Decimal` abandoned (to Foundation), other types through their `init(from:)`.
    func unwrap<T: Decodable>(_ type: T.Type, at index: Int, path: JSONCodingPathNode?) throws -> T {
        if T.self == Date.self {
            switch options.dates {
            case .deferred: break
            case .secondsSince1970: return Date(timeIntervalSince1970: try double(at: index)) as! T
            case .millisecondsSince1970: return Date(timeIntervalSince1970: try double(at: index) / 1000) as! T
            }
        } else if T.self == Data.self {
            if case .base64 = options.data {
                guard let data = Data(base64Encoded: try string(at: index)) else { throw bail() }
                return data as! T
            }
        } else if T.self == URL.self {
            guard let url = URL(string: try string(at: index)) else { throw bail() }
            return url as! T
        } else if T.self == Decimal.self {
            throw bail()
        }
        return try T(from: JSONFastDecoder(state: self, index: index, path: path))
    }
}
