import Foundation

/// The entry of the fast JSON decoder: decodes a JSON column's bytes exactly as a `JSONDecoder` would, faster
/// when the decoder's configuration allows it (see ``JSONFastOptions``), and through the `JSONDecoder` itself
/// otherwise or whenever the fast decoder abandons.
///
/// ```swift
/// let events = try text.withUTF8 {
///     try JSONFastDecoding.decode([Event].self, from: UnsafeRawBufferPointer($0), with: decoder)
/// }
/// ```
///
/// The fast decoder parses the text once into a ``JSONTape`` and decodes from its tokens and the bytes. It
/// abandons (``JSONFastBail``) on anything it cannot guarantee to decode as Foundation does: any error (type
/// mismatch, missing key, `null`, invalid or unusual text), numbers it would not convert identically, `Decimal`,
/// duplicate or non-ASCII or escaped keys in an object read by key. The whole value is then decoded again by the
/// `JSONDecoder`, so every error is Foundation's own, and a success is the value Foundation gives.
enum JSONFastDecoding {
    /// The value decoded by the fast decoder, or nil when it must be decoded by Foundation.
    static func fastDecode<T: Decodable>(
        _ type: T.Type, from bytes: UnsafeRawBufferPointer, with decoder: JSONDecoder
    ) -> T? {
        guard let options = JSONFastOptions(decoder), let tape = JSONTape.parse(bytes),
            let base = bytes.baseAddress
        else { return nil }
        let state = JSONFastState(base: base.assumingMemoryBound(to: UInt8.self), tape: tape, options: options)
        defer { state.isReadable = false }
        guard let value = try? state.unwrap(T.self, at: 0, path: nil), !state.bailed else { return nil }
        return value
    }

    /// The value decoded from `bytes` by the fast decoder or, failing that, by `decoder`.
    static func decode<T: Decodable>(
        _ type: T.Type, from bytes: UnsafeRawBufferPointer, with decoder: JSONDecoder
    ) throws -> T {
        if let value = fastDecode(T.self, from: bytes, with: decoder) { return value }
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return try decoder.decode(T.self, from: Data()) }
        let data = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count, deallocator: .none)
        return try decoder.decode(T.self, from: data)
    }
}
