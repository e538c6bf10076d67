import GraniteStorage

/// The collating sequences: the built-in ones and those the application registered.
///
/// A plain value without reference counting (comparisons and key building copy it on hot paths): an
/// application's collation is held unretained, its connection's registry keeping it alive for as long as the
/// connection (see ``SQLFunctionRegistry``).
package enum SQLCollation: @unchecked Sendable, Hashable {
    /// `memcmp` of the UTF-8 bytes.
    case binary
    /// Like BINARY but ASCII upper-case letters fold to lower case.
    case nocase
    /// Like BINARY but trailing spaces are ignored.
    case rtrim
    /// A collation the application registered on the connection.
    case custom(Unmanaged<SQLCustomCollation>)

    /// The collation named `name` (case-insensitive): a built-in one, else one registered on the connection
    /// compiling the current statement (``SQLFunctionRegistry/current``), else `nil`.
    package init?(name: String) {
        switch name.lowercased() {
        case "binary": self = .binary
        case "nocase": self = .nocase
        case "rtrim": self = .rtrim
        default:
            guard let custom = SQLFunctionRegistry.current?.collation(named: name) else { return nil }
            self = .custom(Unmanaged.passUnretained(custom))
        }
    }

    /// Whether this is BINARY (a tag test, for the per-row key paths).
    var isBinary: Bool {
        @inline(__always) get {
            if case .binary = self { return true }
            return false
        }
    }

    /// Whether `name` names a built-in collation (whose order the byte-ordered index keys can keep).
    package static func isBuiltIn(_ name: String) -> Bool {
        switch name.lowercased() {
        case "binary", "nocase", "rtrim": return true
        default: return false
        }
    }

    /// Compares two texts, returning −1, 0 or 1.
    package func compare(_ a: String, _ b: String) -> Int {
        var a = a
        var b = b
        return a.withUTF8 { pa in b.withUTF8 { pb in compareBytes(pa, pb) } }
    }

    /// Compares two texts given as UTF-8 bytes (valid or not), returning −1, 0 or 1.
    package func compare(utf8 a: [UInt8], _ b: [UInt8]) -> Int {
        a.withUnsafeBufferPointer { pa in b.withUnsafeBufferPointer { pb in compareBytes(pa, pb) } }
    }

    func compareBytes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        let n = Swift.min(a.count, b.count)
        switch self {
        case .binary:
            for i in 0..<n where a[i] != b[i] { return a[i] < b[i] ? -1 : 1 }
        case .rtrim:
            // Binary order of the texts without their trailing spaces, the key form RTRIM indexes store:
            // 'a ' sorts before 'a' || char(9), as 'a' does.
            let x = UnsafeBufferPointer(rebasing: a[..<SQLCollation.lengthWithoutTrailingSpaces(a)])
            let y = UnsafeBufferPointer(rebasing: b[..<SQLCollation.lengthWithoutTrailingSpaces(b)])
            return SQLCollation.binary.compareBytes(x, y)
        case .custom(let collation):
            return collation.takeUnretainedValue().compare(
                String(decoding: a, as: UTF8.self), String(decoding: b, as: UTF8.self))
        case .nocase:
            // SQLite's NOCASE compares as C's strnicmp does: it stops at the first NUL byte of the left text,
            // where the texts compare equal if the right one has a NUL there too and it is smaller otherwise;
            // equal prefixes then order by length. 'a' || char(0) || 'x' and 'A' || char(0) || 'y' are equal.
            for i in 0..<n {
                let x = SQLCollation.fold(a[i])
                let y = SQLCollation.fold(b[i])
                if x != y { return x < y ? -1 : 1 }
                if x == 0 { break }
            }
        }
        return a.count < b.count ? -1 : (a.count == b.count ? 0 : 1)
    }

    @inline(__always)
    static func fold(_ c: UInt8) -> UInt8 { (c >= 0x41 && c <= 0x5a) ? c + 32 : c }

    /// NOCASE's key form of a text's bytes: ASCII letters folded to lower case up to the first NUL byte, and every
    /// byte after that NUL replaced by NUL (the length kept), since NOCASE compares nothing past it but the
    /// length (see ``compareBytes(_:_:)``): the binary order of key forms is then NOCASE's order.
    static func nocaseKeyBytes<Bytes: Collection<UInt8>>(_ text: Bytes) -> [UInt8] {
        var key = [UInt8]()
        key.reserveCapacity(text.count)
        var pastNul = false
        for byte in text {
            key.append(pastNul ? 0 : fold(byte))
            if byte == 0 { pastNul = true }
        }
        return key
    }

    /// How many bytes of `text` come before its trailing spaces.
    static func lengthWithoutTrailingSpaces(_ text: UnsafeBufferPointer<UInt8>) -> Int {
        var length = text.count
        while length > 0 && text[length - 1] == 0x20 { length -= 1 }
        return length
    }

    /// `value` in the form the collation compares, for use in keys (index entries, group and `DISTINCT` keys):
    /// NOCASE text ASCII-lowercased, RTRIM text without trailing spaces, text under a custom collation replaced
    /// by the representative of its class of equal texts; anything else unchanged. Two texts are equal under the
    /// collation exactly when their key forms are equal.
    func keyForm(_ value: Value) -> Value {
        guard case .text(let s) = value else {
            if case .invalidUTF8Text(let bytes) = value { return keyForm(invalidUTF8: bytes) }
            return value
        }
        switch self {
        case .binary:
            return value
        case .nocase:
            return .text(String(decoding: SQLCollation.nocaseKeyBytes(s.utf8), as: UTF8.self))
        case .rtrim:
            var bytes = Array(s.utf8)
            while bytes.last == 0x20 { bytes.removeLast() }
            return .text(String(decoding: bytes, as: UTF8.self))
        case .custom(let collation):
            return .text(collation.takeUnretainedValue().representative(of: s))
        }
    }

    /// ``keyForm(_:)`` of a TEXT whose bytes are not valid UTF-8: the same folding, on the bytes.
    private func keyForm(invalidUTF8 bytes: [UInt8]) -> Value {
        switch self {
        case .binary:
            return .invalidUTF8Text(bytes)
        case .nocase:
            return .text(utf8: SQLCollation.nocaseKeyBytes(bytes))
        case .rtrim:
            var trimmed = bytes
            while trimmed.last == 0x20 { trimmed.removeLast() }
            return .text(utf8: trimmed)
        case .custom(let collation):
            return .text(collation.takeUnretainedValue().representative(of: String(decoding: bytes, as: UTF8.self)))
        }
    }

    package static func == (lhs: SQLCollation, rhs: SQLCollation) -> Bool {
        switch (lhs, rhs) {
        case (.binary, .binary), (.nocase, .nocase), (.rtrim, .rtrim): return true
        case (.custom(let x), .custom(let y)): return x.toOpaque() == y.toOpaque()
        default: return false
        }
    }

    package func hash(into hasher: inout Hasher) {
        switch self {
        case .binary: hasher.combine(0)
        case .nocase: hasher.combine(1)
        case .rtrim: hasher.combine(2)
        case .custom(let collation): hasher.combine(collation.toOpaque())
        }
    }
}
