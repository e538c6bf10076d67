// Implements FORMAT.md § "Values and the row format": the five value types and their SQL ordering.
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#elseif canImport(WASILibc)
    import WASILibc
#endif

/// The storage class of a ``Value``.
///
/// The raw values are stable and may be stored or printed by tools.
public enum ValueType: UInt8, Sendable, Hashable, CustomStringConvertible {
    /// SQL NULL.
    case null = 0
    /// A signed 64-bit integer.
    case integer = 1
    /// An IEEE-754 binary64 floating-point number.
    case real = 2
    /// A text string: UTF-8 bytes, which SQL operations on byte strings may leave invalid.
    case text = 3
    /// An uninterpreted byte string.
    case blob = 4

    /// The SQL name of the type: `NULL`, `INTEGER`, `REAL`, `TEXT` or `BLOB`.
    public var description: String {
        switch self {
        case .null: return "NULL"
        case .integer: return "INTEGER"
        case .real: return "REAL"
        case .text: return "TEXT"
        case .blob: return "BLOB"
        }
    }
}

/// One SQL value as the storage layer stores it.
///
/// ```swift
/// let row: [Value] = [.integer(42), .text("Ada"), .null, .real(2.5), .blob([0x00, 0xFF])]
/// Value.compare(.integer(3), .real(3.0))  // 0
/// ```
///
/// Equality (`==`) and hashing are *structural*: `.integer(3) != .real(3.0)`, text is equal when its
/// UTF-8 bytes are equal (no Unicode normalisation, unlike `String.==`), reals are equal when `==` holds
/// or both are NaN (so `==` is reflexive), and `-0.0 == 0.0`. SQL ordering, where `3 == 3.0`, is
/// ``compare(_:_:)``.
///
/// TEXT has two representations. Nearly every text is valid UTF-8 and is a ``text(_:)`` `String`. SQL may
/// also make a TEXT of bytes that are not valid UTF-8 (`CAST(x'e5' AS TEXT)`, a `substr` that cuts a
/// sequence); SQLite keeps such bytes exactly, so Granite keeps them too, as ``invalidUTF8Text(_:)``. The
/// two never overlap: ``text(utf8:)`` picks the case, and an `invalidUTF8Text` never holds valid UTF-8, so
/// structural equality between the cases is always false while ``compare(_:_:)`` orders both by their bytes.
public enum Value: Sendable, Hashable, CustomStringConvertible {
    /// SQL NULL.
    case null
    /// A signed 64-bit integer.
    case integer(Int64)
    /// A binary64 floating-point number. A NaN behaves as NULL in ``compare(_:_:)`` and in key encoding.
    case real(Double)
    /// A string, stored as UTF-8.
    case text(String)
    /// A TEXT whose bytes are not valid UTF-8 (never valid: make text from bytes with ``text(utf8:)``).
    /// Its storage class is TEXT; it is stored on disk as any text is, and compares by its bytes.
    case invalidUTF8Text([UInt8])
    /// A byte string.
    case blob([UInt8])

    /// The storage class of the value.
    @inlinable
    public var type: ValueType {
        switch self {
        case .null: return .null
        case .integer: return .integer
        case .real: return .real
        case .text, .invalidUTF8Text: return .text
        case .blob: return .blob
        }
    }

    /// TEXT holding `utf8`: ``text(_:)`` when the bytes are valid UTF-8, else ``invalidUTF8Text(_:)``.
    public static func text(utf8: [UInt8]) -> Value {
        if let s = utf8.withUnsafeBytes({ CodecBytes.validatedString($0) }) { return .text(s) }
        return .invalidUTF8Text(utf8)
    }

    /// ``text(utf8:)`` of bytes in a buffer: a valid text is read into its `String` without an intermediate
    /// array.
    public static func text(utf8: UnsafeRawBufferPointer) -> Value {
        if let s = CodecBytes.validatedString(utf8) { return .text(s) }
        return .invalidUTF8Text(Array(utf8))
    }

    /// The UTF-8 bytes of a TEXT (either representation); `nil` for the other storage classes.
    @inlinable
    public var textUTF8: [UInt8]? {
        switch self {
        case .text(let s): return Array(s.utf8)
        case .invalidUTF8Text(let b): return b
        default: return nil
        }
    }

    /// A SQL-literal-like rendering: `NULL`, `42`, `2.5`, `'it''s'`, `x'00ff'`, `CAST(x'e5' AS TEXT)`.
    public var description: String {
        switch self {
        case .null:
            return "NULL"
        case .integer(let i):
            return String(i)
        case .real(let d):
            return d.description
        case .text(let s):
            var out = "'"
            for ch in s.unicodeScalars {
                if ch == "'" { out.unicodeScalars.append("'") }
                out.unicodeScalars.append(ch)
            }
            out.unicodeScalars.append("'")
            return out
        case .invalidUTF8Text(let b):
            // Not writable as a literal: the cast of its bytes reads back the same TEXT.
            return "CAST(\(Value.blob(b).description) AS TEXT)"
        case .blob(let b):
            let digits: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "a", "b", "c", "d", "e", "f"]
            var out = "x'"
            out.reserveCapacity(b.count * 2 + 3)
            for byte in b {
                out.append(digits[Int(byte >> 4)])
                out.append(digits[Int(byte & 0x0F)])
            }
            out.append("'")
            return out
        }
    }

    /// Structural equality; see the type's documentation.
    public static func == (lhs: Value, rhs: Value) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null):
            return true
        case (.integer(let a), .integer(let b)):
            return a == b
        case (.real(let a), .real(let b)):
            return a == b || (a.isNaN && b.isNaN)
        case (.text(let a), .text(let b)):
            return CodecBytes.compareUTF8(a, b) == 0
        case (.invalidUTF8Text(let a), .invalidUTF8Text(let b)):
            return a == b
        case (.blob(let a), .blob(let b)):
            return a == b
        default:
            return false
        }
    }

    /// Hashes the value consistently with ``==(_:_:)``.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(type.rawValue)
        switch self {
        case .null:
            break
        case .integer(let i):
            hasher.combine(i)
        case .real(let d):
            if d.isNaN {
                hasher.combine(Double.nan.bitPattern)
            } else {
                hasher.combine(d == 0 ? 0 : d.bitPattern)
            }
        case .text(let s):
            var s = s
            s.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
            hasher.combine(s.utf8.count)
        case .invalidUTF8Text(let b):
            b.withUnsafeBytes { hasher.combine(bytes: $0) }
            hasher.combine(b.count)
        case .blob(let b):
            hasher.combine(b.count)
            b.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    /// Compares two values in SQL order and returns −1, 0 or 1.
    ///
    /// NULL (and a NaN REAL) < numbers < TEXT < BLOB. INTEGER and REAL compare by exact numeric value
    /// (`3 == 3.0`, `Int64.max < 9223372036854775808.0`); TEXT compares by its UTF-8 bytes; BLOB by
    /// `memcmp` of the common prefix, then by length.
    public static func compare(_ a: Value, _ b: Value) -> Int {
        let ra = a.rank
        let rb = b.rank
        if ra != rb { return ra < rb ? -1 : 1 }
        if ra == 0 { return 0 }  // NULL and NaN
        switch (a, b) {
        case (.integer(let x), .integer(let y)):
            return x < y ? -1 : (x == y ? 0 : 1)
        case (.real(let x), .real(let y)):
            return x < y ? -1 : (x == y ? 0 : 1)
        case (.integer(let x), .real(let y)):
            return compareIntegerToDouble(x, y)
        case (.real(let x), .integer(let y)):
            return -compareIntegerToDouble(y, x)
        case (.text(let x), .text(let y)):
            return CodecBytes.compareUTF8(x, y)
        case (.text, .invalidUTF8Text), (.invalidUTF8Text, .text), (.invalidUTF8Text, .invalidUTF8Text):
            return CodecBytes.compareText(a, b)
        case (.blob(let x), .blob(let y)):
            return x.withUnsafeBytes { px in y.withUnsafeBytes { py in CodecBytes.compare(px, py) } }
        default:
            return 0  // both NULL-like
        }
    }

    /// The ordering class: 0 NULL (and NaN), 1 number, 2 TEXT, 3 BLOB.
    @usableFromInline
    var rank: Int {
        switch self {
        case .null: return 0
        case .integer: return 1
        case .real(let d): return d.isNaN ? 0 : 1
        case .text, .invalidUTF8Text: return 2
        case .blob: return 3
        }
    }

    /// Compares an integer to a non-NaN double exactly, returning −1, 0 or 1.
    @usableFromInline
    static func compareIntegerToDouble(_ i: Int64, _ d: Double) -> Int {
        // 2^63 is the first double above every Int64; −2^63 is Int64.min and exact.
        if d >= 9_223_372_036_854_775_808.0 { return -1 }
        if d < -9_223_372_036_854_775_808.0 { return 1 }
        let whole = d.rounded(.towardZero)  // in [−2^63, 2^63): converts exactly
        let w = Int64(whole)
        if i != w { return i < w ? -1 : 1 }
        let fraction = d - whole  // exact
        if fraction > 0 { return -1 }
        if fraction < 0 { return 1 }
        return 0
    }
}

/// Byte-string helpers shared by the value, row and key codecs (and by scans that test stored bytes).
package enum CodecBytes {
    /// Whether every byte of `bytes` is below 0x80 (tested eight bytes at a time).
    @inline(__always)
    package static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let n = bytes.count
        var high: UInt64 = 0
        var i = 0
        while n - i >= 8 {
            high |= base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            i += 8
        }
        while i < n {
            high |= UInt64(base.load(fromByteOffset: i, as: UInt8.self))
            i += 1
        }
        return high & 0x8080_8080_8080_8080 == 0
    }

    /// `memcmp` of the common prefix, then the shorter buffer first; returns −1, 0 or 1.
    @inlinable
    package static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let n = min(a.count, b.count)
        if n > 0, let pa = a.baseAddress, let pb = b.baseAddress {
            let c = memcmp(pa, pb, n)
            if c != 0 { return c < 0 ? -1 : 1 }
        }
        return a.count < b.count ? -1 : (a.count == b.count ? 0 : 1)
    }

    /// Whether `a` and `b` hold the same bytes (`memcmp`, rather than a byte-by-byte generic loop).
    @inlinable
    package static func equalBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        a.count == b.count && compare(a, b) == 0
    }

    /// Compares two strings by their UTF-8 bytes, returning −1, 0 or 1.
    @usableFromInline
    static func compareUTF8(_ a: String, _ b: String) -> Int {
        var a = a
        var b = b
        return a.withUTF8 { pa in
            b.withUTF8 { pb in compare(UnsafeRawBufferPointer(pa), UnsafeRawBufferPointer(pb)) }
        }
    }

    /// Compares two TEXT values (either representation) by their bytes, returning −1, 0 or 1.
    @usableFromInline
    static func compareText(_ a: Value, _ b: Value) -> Int {
        let x = a.textUTF8 ?? []
        let y = b.textUTF8 ?? []
        return x.withUnsafeBytes { px in y.withUnsafeBytes { py in compare(px, py) } }
    }

    /// A `String` holding `utf8`, or `nil` if `utf8` is not valid UTF-8.
    ///
    /// `String(validating:as:)` goes through unspecialised generic code (metadata lookups on every call);
    /// decoding with repair and checking that nothing was repaired takes the standard library's fast path.
    @usableFromInline
    static func validatedString(_ utf8: UnsafeRawBufferPointer) -> String? {
        var s = String(decoding: utf8.assumingMemoryBound(to: UInt8.self), as: UTF8.self)
        // ASCII is valid UTF-8: nothing can have been repaired.
        if isASCII(utf8) { return s }
        // Repair only ever replaces bytes with U+FFFD, so equal bytes mean the input was valid.
        let same = s.withUTF8 { compare(UnsafeRawBufferPointer($0), utf8) == 0 }
        return same ? s : nil
    }
}
