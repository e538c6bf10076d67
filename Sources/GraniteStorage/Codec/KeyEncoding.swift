// Implements FORMAT.md § "Key encoding": order-preserving byte strings for index keys.
//
// Each value is a tag byte and a body; a key is the concatenation of its values. Comparing two keys
// with memcmp (shorter first on a common prefix) gives the SQL order of the value tuples:
//
//   tag        value                                   body
//   0x10       NULL, and a NaN REAL                    none
//   0x17       REAL below -2^63 (-inf included)        8 bytes: ~bitPattern, big-endian
//   0x18…0x1F  number whose integer part n is < 0      k = 0x20 - tag bytes: ~|n| big-endian, low k bytes
//   0x20       number whose integer part is 0          none
//   0x21…0x28  number whose integer part n is > 0      k = tag - 0x20 bytes: n big-endian, minimal
//   0x29       REAL at or above 2^63 (+inf included)   8 bytes: bitPattern, big-endian
//   0x30       TEXT                                    UTF-8, each 0x00 written 0x00 0xFF, then 0x00 0x01
//   0x40       BLOB                                    the bytes, escaped and terminated as TEXT
//
// The integer part of a REAL x in [-2^63, 2^63) is floor(x). A non-integral x continues after its integer
// part with 0xFF and 8 bytes: g = |x - trunc(x)| (exact), as g.bitPattern big-endian when x > 0, as
// ~g.bitPattern when x < 0 (then floor(x) = trunc(x) - 1, and a larger g is a smaller x).
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
/// the lexicographic ``Value/compare(_:_:)`` of the tuples. INTEGER and REAL encode by numeric value, so
/// `3` and `3.0` encode identically; an integer takes its tag and only as many bytes as its magnitude needs
/// (a rowid below 65,536 takes 3 bytes).
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
    /// The tag of a REAL below -2^63 (negative infinity included); an 8-byte body follows.
    public static let hugeNegativeTag: UInt8 = 0x17
    /// The tag of a number whose integer part is zero; tags below it (down to `0x18`) are negative integer
    /// parts of `0x20 - tag` bytes, tags above it (up to `0x28`) positive ones of `tag - 0x20` bytes.
    public static let zeroTag: UInt8 = 0x20
    /// The tag of a REAL at or above 2^63 (positive infinity included); an 8-byte body follows.
    public static let hugePositiveTag: UInt8 = 0x29
    /// The tag of TEXT.
    public static let textTag: UInt8 = 0x30
    /// The tag of BLOB.
    public static let blobTag: UInt8 = 0x40
    /// The byte that introduces the fractional part of a non-integral REAL, after its integer part.
    public static let fractionMarker: UInt8 = 0xFF

    /// Whether `key` starts with the complete values encoded in `prefix`: it starts with those bytes, and the
    /// prefix's last number does not continue with a fraction (which would make it another value).
    @inlinable
    public static func startsWithValues(_ key: [UInt8], _ prefix: [UInt8]) -> Bool {
        let n = prefix.count
        guard key.count >= n else { return false }
        // Compared as raw bytes: the generic `starts(with:)` walks both arrays through their iterators.
        let same = key.withUnsafeBytes { k in
            prefix.withUnsafeBytes { p in n == 0 || memcmp(k.baseAddress!, p.baseAddress!, n) == 0 }
        }
        return same && (key.count == n || key[n] != fractionMarker)
    }

    /// Whether `tag` starts a number (INTEGER or REAL).
    @inlinable
    public static func isNumberTag(_ tag: UInt8) -> Bool {
        tag >= hugeNegativeTag && tag <= hugePositiveTag
    }

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
        case .invalidUTF8Text(let b):
            append(invalidUTF8Text: b, to: &key)
        case .blob(let b):
            b.withUnsafeBytes { appendEscaped(tag: blobTag, $0, to: &key) }
        }
    }

    /// Appends the encoding of the INTEGER `value` to `key`: its tag, then its magnitude's significant bytes.
    @inlinable
    public static func append(integer value: Int64, to key: inout [UInt8]) {
        if value == 0 {
            key.append(zeroTag)
            return
        }
        // Negative: the ones' complement of the magnitude, so that a larger magnitude gives smaller bytes.
        let magnitude = value.magnitude
        let count = (71 - magnitude.leadingZeroBitCount) >> 3
        let body = value > 0 ? magnitude : ~magnitude
        key.append(value > 0 ? zeroTag + UInt8(count) : zeroTag - UInt8(count))
        var shift = (count - 1) << 3
        while shift >= 0 {
            key.append(UInt8(truncatingIfNeeded: body >> UInt64(shift)))
            shift -= 8
        }
    }

    /// Appends the encoding of the REAL `value` to `key` (a NaN encodes as NULL, an integral value in the
    /// `Int64` range as that INTEGER).
    @inlinable
    public static func append(real value: Double, to key: inout [UInt8]) {
        if value.isNaN {
            key.append(nullTag)
        } else if value >= 9_223_372_036_854_775_808.0 {
            key.append(hugePositiveTag)
            appendBigEndian(value.bitPattern, to: &key)
        } else if value < -9_223_372_036_854_775_808.0 {
            key.append(hugeNegativeTag)
            appendBigEndian(~value.bitPattern, to: &key)
        } else {
            let truncated = value.rounded(.towardZero)
            // Exact: truncated holds the leading bits of value, so the difference is value's trailing bits.
            let fraction = (value - truncated).magnitude
            if fraction == 0 {
                append(integer: Int64(truncated), to: &key)
            } else if value > 0 {
                append(integer: Int64(truncated), to: &key)
                key.append(fractionMarker)
                appendBigEndian(fraction.bitPattern, to: &key)
            } else {
                append(integer: Int64(truncated) - 1, to: &key)
                key.append(fractionMarker)
                appendBigEndian(~fraction.bitPattern, to: &key)
            }
        }
    }

    /// Appends `bits` as 8 bytes, most significant first.
    @inlinable
    static func appendBigEndian(_ bits: UInt64, to key: inout [UInt8]) {
        withUnsafeBytes(of: bits.bigEndian) { key.append(contentsOf: $0) }
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

    /// Appends a TEXT of bytes that are not valid UTF-8: encoded as any TEXT, so ordered by its bytes. Kept out
    /// of line so that ``append(_:to:)`` stays as small as it is without such text.
    @usableFromInline
    @inline(never)
    static func append(invalidUTF8Text bytes: [UInt8], to key: inout [UInt8]) {
        bytes.withUnsafeBytes { appendEscaped(tag: textTag, $0, to: &key) }
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
    /// - Throws: ``StorageError/malformed(_:)`` on an unknown tag, a truncated body, a number that is not in
    ///   its canonical form, a bad escape, a missing terminator, or invalid UTF-8.
    public static func decode(_ key: UnsafeRawBufferPointer) throws -> [Value] {
        var values: [Value] = []
        try decode(key, into: &values)
        return values
    }

    /// Decodes a key into `values`, replacing what they held: a reader of many keys keeps one array's storage.
    ///
    /// - Throws: as ``decode(_:)-(UnsafeRawBufferPointer)``.
    public static func decode(_ key: UnsafeRawBufferPointer, into values: inout [Value]) throws {
        values.removeAll(keepingCapacity: true)
        var i = 0
        while i < key.count {
            let (value, end) = try self.value(key, at: i)
            values.append(value)
            i = end
        }
    }

    /// Decodes the value whose tag is at `start` (within `key`), and returns it with the offset just after it:
    /// a reader that wants only some of a key's values steps through it without collecting them.
    ///
    /// - Throws: as ``decode(_:)-(UnsafeRawBufferPointer)``.
    public static func value(_ key: UnsafeRawBufferPointer, at start: Int) throws -> (Value, Int) {
        var i = start
        let n = key.count
        let tag = key[i]
        if isNumberTag(tag) { return try number(key, at: i) }
        i += 1
        switch tag {
        case nullTag:
            return (.null, i)
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
            return (tag == blobTag ? .blob(bytes) : .text(utf8: bytes), i)
        default:
            throw StorageError.malformed("unknown tag 0x\(String(tag, radix: 16)) in key")
        }
    }

    /// The offset just after the number whose tag is at `start`, without checking its body; nil when `key`
    /// ends inside it. (A key cut short, such as an interior page's separator, may end inside a number.)
    public static func numberEnd(_ key: UnsafeRawBufferPointer, at start: Int) -> Int? {
        let tag = key[start]
        let bodyLength: Int
        switch tag {
        case hugeNegativeTag, hugePositiveTag: bodyLength = 8
        case zeroTag...hugePositiveTag: bodyLength = Int(tag - zeroTag)
        default: bodyLength = Int(zeroTag - tag)
        }
        var end = start + 1 + bodyLength
        guard end <= key.count else { return nil }
        if tag != hugeNegativeTag && tag != hugePositiveTag && end < key.count && key[end] == fractionMarker {
            end += 9
            guard end <= key.count else { return nil }
        }
        return end
    }

    /// Decodes the number whose tag is at `start`; returns it and the offset after it.
    ///
    /// Accepts only the canonical form (the bytes that encoding the decoded value produces): minimal integer
    /// bodies, fractions strictly between 0 and 1 on integer parts small enough to have one, huge REALs that
    /// are out of the `Int64` range.
    static func number(_ key: UnsafeRawBufferPointer, at start: Int) throws -> (Value, Int) {
        guard let end = numberEnd(key, at: start) else { throw StorageError.malformed("number in key is truncated") }
        let tag = key[start]
        func bigEndian(_ from: Int, _ count: Int) -> UInt64 {
            var bits: UInt64 = 0
            for k in 0..<count { bits = bits << 8 | UInt64(key[from + k]) }
            return bits
        }
        let value: Value
        if tag == hugeNegativeTag || tag == hugePositiveTag {
            let bits = bigEndian(start + 1, 8)
            value = .real(Double(bitPattern: tag == hugePositiveTag ? bits : ~bits))
        } else {
            let count = tag >= zeroTag ? Int(tag - zeroTag) : Int(zeroTag - tag)
            let body = bigEndian(start + 1, count)
            let integer: Int64
            if tag >= zeroTag {
                guard body <= UInt64(Int64.max) else { throw StorageError.malformed("integer in key is too large") }
                integer = Int64(body)
            } else {
                let magnitude = ~body & (count == 8 ? ~0 : (1 << UInt64(count * 8)) - 1)
                guard magnitude <= 1 << 63 else { throw StorageError.malformed("integer in key is too small") }
                integer = Int64(truncatingIfNeeded: 0 &- magnitude)
            }
            let fractionStart = start + 1 + count
            if fractionStart < end {
                let bits = bigEndian(fractionStart + 1, 8)
                let fraction = Double(bitPattern: integer < 0 ? ~bits : bits)
                guard fraction > 0, fraction < 1, integer > -(1 << 53), integer < 1 << 53 else {
                    throw StorageError.malformed("invalid fraction in key")
                }
                // The integer part of a negative value is floor(x) = trunc(x) - 1.
                value = .real(integer < 0 ? Double(integer + 1) - fraction : Double(integer) + fraction)
            } else {
                // Minimal body: no leading byte that carries no magnitude (0x00, or 0xFF when negative).
                guard count == 0 || key[start + 1] != (tag > zeroTag ? 0x00 : 0xFF) else {
                    throw StorageError.malformed("integer in key is not in canonical form")
                }
                return (.integer(integer), end)
            }
        }
        // Canonical form only: the value must encode back to exactly these bytes.
        var again: [UInt8] = []
        append(value, to: &again)
        guard again.elementsEqual(UnsafeRawBufferPointer(rebasing: key[start..<end])) else {
            throw StorageError.malformed("number in key is not in canonical form")
        }
        return (value, end)
    }

    /// The last value of a key, when it is an INTEGER (an index entry's rowid), skipping the values before it
    /// without decoding them. Throws ``StorageError/malformed(_:)`` on a malformed key.
    public static func trailingInteger(_ key: UnsafeRawBufferPointer) throws -> Int64? {
        if let rowid = lastOfIntegers(key) { return rowid }
        var i = 0
        var last = 0
        let n = key.count
        while i < n {
            last = i
            let tag = key[i]
            if isNumberTag(tag) {
                guard let end = numberEnd(key, at: i) else {
                    throw StorageError.malformed("number in key is truncated")
                }
                i = end
                continue
            }
            i += 1
            switch tag {
            case nullTag:
                continue
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
        guard isNumberTag(key[last]) else {
            // The last value is NULL, TEXT or BLOB: check it as decoding does, but it is no integer.
            _ = try decode(UnsafeRawBufferPointer(rebasing: key[last...]))
            return nil
        }
        let (value, end) = try number(key, at: last)
        guard end == n else { throw StorageError.malformed("trailing bytes after the last value of a key") }
        guard case .integer(let rowid) = value else { return nil }
        return rowid
    }

    /// The last value of `key` when every value of the key is an integer in canonical form (an index entry over
    /// INTEGER columns, with its rowid), else nil: ``trailingInteger(_:)`` then decodes (and checks) the key the
    /// general way. Reads each value once, without building values.
    @inline(__always)
    static func lastOfIntegers(_ key: UnsafeRawBufferPointer) -> Int64? {
        var i = 0
        while case let (value, end)? = integer(key, at: i) {
            if end == key.count { return value }
            i = end
        }
        return nil
    }

    /// The INTEGER whose tag is at `start` (when `start` is within `key`) and the offset just after it, when it is
    /// one in canonical form (the bytes encoding it produces: a minimal body, no fraction after it); else nil, and
    /// the value is left to ``value(_:at:)``, which decodes every other value and reports a malformed one.
    /// Inlined into the index readers, which mostly step through entries of integers.
    @inlinable @inline(__always)
    public static func integer(_ key: UnsafeRawBufferPointer, at start: Int) -> (value: Int64, end: Int)? {
        let n = key.count
        guard start >= 0, start < n else { return nil }
        let tag = key[start]
        // Integer tags only (the huge tags carry reals).
        guard tag > hugeNegativeTag && tag < hugePositiveTag else { return nil }
        let count = tag >= zeroTag ? Int(tag &- zeroTag) : Int(zeroTag &- tag)
        let end = start + 1 + count
        guard end <= n else { return nil }
        // A fraction makes the value a real.
        if end < n && key[end] == fractionMarker { return nil }
        var body: UInt64 = 0
        if count > 0 {
            // Canonical form: no leading byte that carries no magnitude.
            guard key[start + 1] != (tag > zeroTag ? 0x00 : 0xFF) else { return nil }
            for k in (start + 1)..<end { body = body << 8 | UInt64(key[k]) }
        }
        if tag >= zeroTag {
            guard body <= UInt64(Int64.max) else { return nil }
            return (Int64(body), end)
        }
        let magnitude = ~body & (count == 8 ? ~0 : (1 << UInt64(count * 8)) - 1)
        guard magnitude <= 1 << 63 else { return nil }
        return (Int64(truncatingIfNeeded: 0 &- magnitude), end)
    }

    /// Decodes the key in `bytes`; see ``decode(_:)-(UnsafeRawBufferPointer)``.
    public static func decode(_ key: [UInt8]) throws -> [Value] {
        try key.withUnsafeBytes { try decode($0) }
    }
}
