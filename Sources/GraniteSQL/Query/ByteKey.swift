/// Bytes used as a dictionary or set key (encoded group keys, `DISTINCT` rows), hashed as one block rather than
/// byte by byte as `[UInt8]`'s own `Hashable` conformance does.
struct ByteKey: Hashable {
    var bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    static func == (a: ByteKey, b: ByteKey) -> Bool { a.bytes == b.bytes }

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
