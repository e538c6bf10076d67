// Implements FORMAT.md § "Key encoding": order-preserving byte strings for index keys.
//
// Each value is a tag byte and a body; a key is the concatenation of its values. Comparing two keys
// with memcmp (shorter first on a common prefix) gives the SQL order of the value tuples:
//
//   tag   value                       body
//   0x10  NULL, and a NaN REAL         none
//   0x20  INTEGER and REAL             8 bytes big-endian: the order-preserving transform of D, the
//                                      largest Double <= the value; then, for an INTEGER above D only,
//                                      0xFF and the remainder (value - D, 1...2047) as 2 bytes big-endian
//   0x30  TEXT                         UTF-8, each 0x00 written 0x00 0xFF, terminated by 0x00 0x01
//   0x40  BLOB                         the bytes, escaped and terminated as TEXT
//
// Transform: bits = D.bitPattern (-0.0 taken as +0.0); negative (sign bit set): ~bits, else
// bits | 0x8000_0000_0000_0000.
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#elseif canImport(WASILibc)
    import WASILibc
#endif

/// Order-preserving encoding of value tuples, for index-tree keys.
///
/// `memcmp` of two encodings (the shorter one first when one is a prefix of the other) has the sign of
/// the lexicographic ``Value/compare(_:_:)`` of the tuples. INTEGER and REAL share one tag and encode
/// by numeric value, so `3` and `3.0` encode identically.
///
/// ```swift
/// var key: [UInt8] = []
/// KeyEncoding.append(.text("Ada"), to: &key)
/// KeyEncoding.append(.integer(42), to: &key)   // e.g. index key = column values + rowid
/// ```
///
/// Decoding exists for inspection tools. It cannot tell an integral REAL from an INTEGER: a number that
/// is integral and within the `Int64` range decodes as `.integer`, any other number as `.real`.
public enum KeyEncoding {
    /// The tag of NULL (and of a NaN REAL).
    public static let nullTag: UInt8 = 0x10
    /// The tag of numbers (INTEGER and REAL).
    public static let numberTag: UInt8 = 0x20
    /// The tag of TEXT.
    public static let textTag: UInt8 = 0x30
    /// The tag of BLOB.
    public static let blobTag: UInt8 = 0x40
    /// The byte that introduces an integer's remainder after its 8-byte number body.
    public static let remainderMarker: UInt8 = 0xFF

    /// Appends the encoding of `value` to `key`.
    @inlinable
    public static func append(_ value: Value, to key: inout [UInt8]) {
        switch value {
        case .null:
            key.append(nullTag)
        case .integer(let i):
            append(integer: i, to: &key)
        case .real(let d):
            append(real: d, to: &key)
        case .text(let s):
            var s = s
            s.withUTF8 { appendEscaped(tag: textTag, UnsafeRawBufferPointer($0), to: &key) }
        case .blob(let b):
            b.withUnsafeBytes { appendEscaped(tag: blobTag, $0, to: &key) }
        }
    }

    /// Appends the encoding of the INTEGER `value` to `key`.
    @inlinable
    public static func append(integer value: Int64, to key: inout [UInt8]) {
        let (d, remainder) = split(value)
        appendNumber(d, to: &key)
        if remainder != 0 {
            key.append(remainderMarker)
            key.append(UInt8(truncatingIfNeeded: remainder >> 8))
            key.append(UInt8(truncatingIfNeeded: remainder))
        }
    }

    /// Appends the encoding of the REAL `value` to `key` (a NaN encodes as NULL).
    @inlinable
    public static func append(real value: Double, to key: inout [UInt8]) {
        if value.isNaN {
            key.append(nullTag)
        } else {
            appendNumber(value, to: &key)
        }
    }

    /// Appends the encoding of the TEXT `value` to `key`.
    public static func append(text value: String, to key: inout [UInt8]) {
        append(.text(value), to: &key)
    }

    /// Appends the encoding of a BLOB holding `bytes` to `key`.
    public static func append(blob bytes: UnsafeRawBufferPointer, to key: inout [UInt8]) {
        appendEscaped(tag: blobTag, bytes, to: &key)
    }

    /// The encoding of the tuple `values`.
    public static func encode(_ values: [Value]) -> [UInt8] {
        var key: [UInt8] = []
        for value in values {
            append(value, to: &key)
        }
        return key
    }

    /// Splits `i` into D, the largest `Double` not above it, and the remainder `i - D` (0...2047; nonzero
    /// only when |i| > 2^53).
    @inlinable
    static func split(_ i: Int64) -> (d: Double, remainder: Int64) {
        var d = Double(i)  // nearest; may be above i
        if d >= 9_223_372_036_854_775_808.0 || Int64(d) > i {
            d = d.nextDown  // rounding to nearest is off by less than one spacing
        }
        return (d, i - Int64(d))
    }

    /// Appends the tag and the 8-byte transformed body of the non-NaN `d`.
    @inlinable
    static func appendNumber(_ d: Double, to key: inout [UInt8]) {
        let bits = (d == 0 ? 0.0 : d).bitPattern
        let ordered = bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
        key.append(numberTag)
        // The body big-endian, appended in one piece.
        withUnsafeBytes(of: ordered.bigEndian) { key.append(contentsOf: $0) }
    }

    /// Appends `tag`, then `bytes` with every 0x00 as 0x00 0xFF, then 0x00 0x01.
    @usableFromInline
    static func appendEscaped(tag: UInt8, _ bytes: UnsafeRawBufferPointer, to key: inout [UInt8]) {
        key.append(tag)
        if let base = bytes.baseAddress, bytes.count > 0 {
            var start = 0
            while start < bytes.count {
                let rest = bytes.count - start
                guard let zero = memchr(base + start, 0, rest) else {
                    key.append(contentsOf: UnsafeRawBufferPointer(start: base + start, count: rest))
                    break
                }
                let run = UnsafeRawPointer(zero) - (base + start)
                key.append(contentsOf: UnsafeRawBufferPointer(start: base + start, count: run))
                key.append(0x00)
                key.append(0xFF)
                start += run + 1
            }
        }
        key.append(0x00)
        key.append(0x01)
    }

    /// Decodes a key back into values (for inspection tools; see the type's note on integral REALs).
    ///
    /// - Throws: ``StorageError/malformed(_:)`` on an unknown tag, a truncated body, a bad escape, a missing
    ///   terminator, invalid UTF-8, a NaN, or a remainder that is out of range or not canonical.
    public static func decode(_ key: UnsafeRawBufferPointer) throws -> [Value] {
        var values: [Value] = []
        var i = 0
        let n = key.count
        while i < n {
            let tag = key[i]
            i += 1
            switch tag {
            case nullTag:
                values.append(.null)
            case numberTag:
                let (value, end) = try number(key, at: i)
                values.append(value)
                i = end
            case textTag, blobTag:
                var bytes: [UInt8] = []
                var terminated = false
                while i < n {
                    let byte = key[i]
                    i += 1
                    if byte != 0 {
                        bytes.append(byte)
                        continue
                    }
                    guard i < n else { break }
                    let next = key[i]
                    i += 1
                    if next == 0xFF {
                        bytes.append(0)
                    } else if next == 0x01 {
                        terminated = true
                        break
                    } else {
                        throw StorageError.malformed("invalid escape 0x00 0x\(String(next, radix: 16)) in key")
                    }
                }
                guard terminated else { throw StorageError.malformed("unterminated text or blob in key") }
                if tag == blobTag {
                    values.append(.blob(bytes))
                } else {
                    guard let s = bytes.withUnsafeBytes({ CodecBytes.validatedString($0) }) else {
                        throw StorageError.malformed("text in key is not valid UTF-8")
                    }
                    values.append(.text(s))
                }
            default:
                throw StorageError.malformed("unknown tag 0x\(String(tag, radix: 16)) in key")
            }
        }
        return values
    }

    /// Decodes the number whose body starts at `start` (just after its tag); returns it and the offset after it.
    static func number(_ key: UnsafeRawBufferPointer, at start: Int) throws -> (Value, Int) {
        let n = key.count
        var i = start
        guard n - i >= 8 else { throw StorageError.malformed("number in key is truncated") }
        var ordered: UInt64 = 0
        for k in 0..<8 {
            ordered = ordered << 8 | UInt64(key[i + k])
        }
        i += 8
        let bits = ordered & (1 << 63) != 0 ? ordered & ~(1 << 63) : ~ordered
        let d = Double(bitPattern: bits)
        guard !d.isNaN else { throw StorageError.malformed("NaN in key") }
        let integral =
            d == d.rounded(.towardZero) && d >= -9_223_372_036_854_775_808.0
            && d < 9_223_372_036_854_775_808.0
        if i < n && key[i] == remainderMarker {
            guard n - i >= 3 else { throw StorageError.malformed("integer remainder in key is truncated") }
            let remainder = Int64(key[i + 1]) << 8 | Int64(key[i + 2])
            i += 3
            guard integral, remainder >= 1, remainder < 2048 else {
                throw StorageError.malformed("invalid integer remainder \(remainder) in key")
            }
            let (value, overflow) = Int64(d).addingReportingOverflow(remainder)
            guard !overflow, split(value) == (d, remainder) else {
                throw StorageError.malformed("non-canonical integer remainder \(remainder) in key")
            }
            return (.integer(value), i)
        }
        return (integral ? .integer(Int64(d)) : .real(d), i)
    }

    /// The last value of a key, when it is an INTEGER (an index entry's rowid), skipping the values before it
    /// without decoding them. Throws ``StorageError/malformed(_:)`` on a malformed key.
    public static func trailingInteger(_ key: UnsafeRawBufferPointer) throws -> Int64? {
        var i = 0
        var last = 0
        let n = key.count
        while i < n {
            last = i
            let tag = key[i]
            i += 1
            switch tag {
            case nullTag:
                continue
            case numberTag:
                i += 8
                if i < n && key[i] == remainderMarker { i += 3 }
            case textTag, blobTag:
                var terminated = false
                while i < n {
                    let byte = key[i]
                    i += 1
                    if byte == 0 {
                        guard i < n else { break }
                        let next = key[i]
                        i += 1
                        if next == 0x01 {
                            terminated = true
                            break
                        }
                    }
                }
                guard terminated else { throw StorageError.malformed("unterminated text or blob in key") }
            default:
                throw StorageError.malformed("unknown tag 0x\(String(tag, radix: 16)) in key")
            }
        }
        guard i == n, n > 0 else { throw StorageError.malformed("truncated key") }
        guard key[last] == numberTag else {
            // The last value is NULL, TEXT or BLOB: check it as decoding does, but it is no integer.
            _ = try decode(UnsafeRawBufferPointer(rebasing: key[last...]))
            return nil
        }
        let (value, end) = try number(key, at: last + 1)
        guard end == n else { throw StorageError.malformed("trailing bytes after the last value of a key") }
        guard case .integer(let rowid) = value else { return nil }
        return rowid
    }

    /// Decodes the key in `bytes`; see ``decode(_:)-(UnsafeRawBufferPointer)``.
    public static func decode(_ key: [UInt8]) throws -> [Value] {
        try key.withUnsafeBytes { try decode($0) }
    }
}
