// Implements FORMAT.md § "Compressed text": zlib streams (RFC 1950) holding UTF-8 text.
import CZlib
import Synchronization

/// zlib compression of text bodies, as stored in compressed-text row columns.
///
/// A stream is in the zlib format of RFC 1950 (two-byte header, deflate data, Adler-32 of the
/// uncompressed bytes). The deflate data is written by ``DeflateEncoder``; zlib computes the Adler-32 and
/// inflates streams back.
///
/// ```swift
/// let utf8 = Array(String(repeating: "{\"a\":1}", count: 50).utf8)
/// let stream = utf8.withUnsafeBytes { TextCompression.compress($0) }!
/// let back = try stream.withUnsafeBytes { try TextCompression.decompress($0, expectedLength: utf8.count) }
/// ```
package enum TextCompression {
    /// The largest uncompressed length (1 GiB) a decoder accepts; larger claims are malformed.
    package static let maxUncompressedLength = 1 << 30

    /// The deflate format's maximum expansion: one byte of stream never inflates to more than this.
    ///
    /// (A deflate match of 258 bytes takes at least two bits: one for the length code, one for the
    /// distance code.) A claimed length above `stream.count * maxExpansion` is rejected before any
    /// allocation, so a tiny hostile stream cannot make the decoder allocate a large buffer.
    package static let maxExpansion = 1032

    /// The compression level hint (RFC 1950 FLEVEL) of the streams ``compress(_:)`` writes: 1, "fast".
    static let levelHint: UInt16 = 1

    /// Compresses `utf8` into a zlib stream, or returns `nil` if the input exceeds
    /// ``maxUncompressedLength``.
    package static func compress(_ utf8: UnsafeRawBufferPointer) -> [UInt8]? {
        compress(utf8, prefix: 0, maxLength: nil)
    }

    /// Compresses `utf8` after `prefix` leading bytes (left zero) in the result.
    ///
    /// Returns `nil` when the input exceeds ``maxUncompressedLength`` or the result would exceed `maxLength`
    /// bytes (prefix included); the encoder then stops as soon as its output is full, so incompressible input
    /// costs little. With `givingUpEarly`, a short input may also be given up half-way (see
    /// ``DeflateEncoder/encode(_:into:givingUpEarly:)``).
    @usableFromInline
    static func compress(
        _ utf8: UnsafeRawBufferPointer, prefix: Int, maxLength: Int?, givingUpEarly: Bool = false
    ) -> [UInt8]? {
        guard utf8.count <= maxUncompressedLength else { return nil }
        // The longest stream: 9 bits per literal (fixed codes), at most 4 bytes of block header and end per block
        // (a block gets dynamic codes only when they are shorter), the zlib header and trailer.
        let bound = utf8.count + utf8.count / 8 + 4 * (utf8.count / DeflateEncoder.blockSymbols + 1) + 16
        let capacity = min(maxLength ?? Int.max, prefix + bound)
        // Room for the two header bytes, the four trailer bytes and at least one byte of deflate data.
        guard capacity > prefix + 6 else { return nil }
        var failed = false
        let result = [UInt8](unsafeUninitializedCapacity: capacity) { out, initialized in
            initialized = 0
            guard let outBase = out.baseAddress else {
                failed = true
                return
            }
            // adler32 does not read the source when its length is zero, but it gets a valid address anyway.
            var dummy: UInt8 = 0
            let written = withUnsafeMutablePointer(to: &dummy) { dummyPointer -> Int? in
                let source = utf8.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafePointer(dummyPointer)
                let deflateArea = UnsafeMutableRawBufferPointer(
                    start: outBase + prefix + 2, count: capacity - prefix - 6)
                guard let deflated = DeflateEncoder.encode(utf8, into: deflateArea, givingUpEarly: givingUpEarly)
                else { return nil }
                let end = prefix + 2 + deflated
                let checksum = UInt32(truncatingIfNeeded: adler32(1, source, uInt(utf8.count)))
                for k in 0..<4 { outBase[end + k] = UInt8(truncatingIfNeeded: checksum >> (24 - 8 * UInt32(k))) }
                return end + 4
            }
            guard let written else {
                failed = true
                return
            }
            outBase.initialize(repeating: 0, count: prefix)
            outBase[prefix] = zlibHeader.cmf
            outBase[prefix + 1] = zlibHeader.flg
            initialized = written
        }
        return failed ? nil : result
    }

    /// The two-byte zlib header (RFC 1950) written before the deflate data: method 8 (deflate), a 32 KiB
    /// window, and ``levelHint``, with the check bits that make it a multiple of 31.
    static let zlibHeader: (cmf: UInt8, flg: UInt8) = {
        let cmf: UInt16 = 0x78
        var header = cmf << 8 | levelHint << 6
        header += 31 - header % 31
        return (UInt8(header >> 8), UInt8(header & 0xFF))
    }()

    /// The output space beyond the claimed length given to inflate: the 258 bytes of deflate's longest match,
    /// which zlib's fast decoding loop requires.
    static let inflateSlack = 258

    /// Inflates the zlib `stream`, which must hold exactly one complete stream that inflates to exactly
    /// `expectedLength` bytes.
    ///
    /// - Throws: ``StorageError/malformed(_:)`` when `expectedLength` is negative, above
    ///   ``maxUncompressedLength`` or impossible for the stream's size, when the stream is damaged (bad
    ///   header, bad deflate data, Adler-32 mismatch, truncated), inflates to a different length, or is
    ///   followed by trailing bytes.
    package static func decompress(_ stream: UnsafeRawBufferPointer, expectedLength: Int) throws -> [UInt8] {
        try checkClaim(stream, expectedLength: expectedLength)
        return try [UInt8](unsafeUninitializedCapacity: expectedLength + inflateSlack) { out, initialized in
            initialized = 0
            try inflate(stream, expectedLength: expectedLength, into: UnsafeMutableRawBufferPointer(out))
            initialized = expectedLength
        }
    }

    /// The TEXT value the zlib `stream` inflates to: ``Value/text(_:)`` when its bytes are valid UTF-8, else
    /// ``Value/invalidUTF8Text(_:)``; checked and failing as ``decompress(_:expectedLength:)``.
    ///
    /// The stream is inflated straight into the string's storage, so a valid text is neither copied nor held
    /// in an intermediate array; only a text that is not ASCII is checked for UTF-8 validity before the string
    /// checks it again, and only an invalid one is copied (into the array of its bytes).
    package static func decompressedText(_ stream: UnsafeRawBufferPointer, expectedLength: Int) throws -> Value {
        try checkClaim(stream, expectedLength: expectedLength)
        var invalidBytes: [UInt8]?
        let text = try String(unsafeUninitializedCapacity: expectedLength + inflateSlack) { out in
            let area = UnsafeMutableRawBufferPointer(out)
            try inflate(stream, expectedLength: expectedLength, into: area)
            let inflated = UnsafeRawBufferPointer(rebasing: area[0..<expectedLength])
            if !CodecBytes.isASCII(inflated) && !CodecBytes.isValidUTF8(inflated) {
                invalidBytes = [UInt8](inflated)
            }
            return expectedLength
        }
        if let invalidBytes { return .invalidUTF8Text(invalidBytes) }
        return .text(text)
    }

    /// Rejects a claimed length that is negative, above ``maxUncompressedLength`` or impossible for a stream
    /// of `stream.count` bytes, and a stream too short to be one.
    static func checkClaim(_ stream: UnsafeRawBufferPointer, expectedLength: Int) throws {
        guard expectedLength >= 0, expectedLength <= maxUncompressedLength else {
            throw StorageError.malformed(
                "compressed text claims \(expectedLength) bytes (limit \(maxUncompressedLength))")
        }
        guard stream.count >= 6, stream.baseAddress != nil else {
            throw StorageError.malformed("compressed text stream of \(stream.count) bytes is too short")
        }
        guard expectedLength <= stream.count * maxExpansion else {
            throw StorageError.malformed(
                "compressed text claims \(expectedLength) bytes from a \(stream.count)-byte stream")
        }
    }

    /// Inflates `stream` (already accepted by ``checkClaim(_:expectedLength:)``) into `out`, which holds
    /// `expectedLength + inflateSlack` bytes; the first `expectedLength` are the text when this returns.
    static func inflate(
        _ stream: UnsafeRawBufferPointer, expectedLength: Int, into out: UnsafeMutableRawBufferPointer
    ) throws {
        // One inflate call with Z_FINISH into a buffer that holds the whole output: zlib then never allocates its
        // 32 KiB sliding window (uncompress2 would, on every call), only its decoder state, which
        // ``TextInflater`` keeps from one text to the next. The buffer has
        // `inflateSlack` bytes beyond the claimed length because zlib's fast decoding loop only runs while that
        // much output space remains; without them a short value is decoded entirely by the slow loop.
        guard let source = stream.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw StorageError.malformed("compressed text stream of \(stream.count) bytes is too short")
        }
        guard let z = TextInflater.take() else {
            throw StorageError.malformed("out of memory inflating compressed text")
        }
        defer { TextInflater.give(z) }
        var dummy: UInt8 = 0
        z.pointee.next_in = UnsafeMutablePointer(mutating: source)
        z.pointee.avail_in = uInt(stream.count)
        z.pointee.avail_out = uInt(min(out.count, expectedLength + inflateSlack))
        var status = withUnsafeMutablePointer(to: &dummy) { dummyPointer -> Int32 in
            // zlib needs an output address even when nothing may be written.
            z.pointee.next_out = out.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? dummyPointer
            return CZlib.inflate(z, Z_FINISH)
        }
        let produced = Int(z.pointee.total_out)
        let unconsumed = Int(z.pointee.avail_in)
        if status == Z_BUF_ERROR { status = z.pointee.avail_out == 0 && unconsumed > 0 ? Z_BUF_ERROR : Z_DATA_ERROR }
        if status == Z_STREAM_END && produced > expectedLength { status = Z_BUF_ERROR }
        switch status {
        case Z_STREAM_END:
            break
        case Z_BUF_ERROR:
            throw StorageError.malformed("compressed text inflates to more than the claimed \(expectedLength) bytes")
        case Z_MEM_ERROR:
            throw StorageError.malformed("out of memory inflating compressed text")
        default:
            throw StorageError.malformed("compressed text stream is damaged or truncated (zlib status \(status))")
        }
        guard produced == expectedLength else {
            throw StorageError.malformed("compressed text inflates to \(produced) bytes, expected \(expectedLength)")
        }
        guard unconsumed == 0 else {
            throw StorageError.malformed("\(unconsumed) trailing bytes after compressed text stream")
        }
    }
}

/// The zlib decoder state reused from one inflated text to the next: `inflateInit` allocates about 7 KiB and
/// `inflateEnd` frees them, together costing more than inflating a 150-byte text, while `inflateReset` only
/// clears a few fields.
///
/// One stream is kept, in an atomic slot: a caller takes it (or makes a new one when another thread holds it)
/// and gives it back reset; a second stream given back while the slot is full is freed.
enum TextInflater {
    /// The kept stream's address, 0 when none (an address rather than a pointer, which is not `Sendable`).
    private static let slot = Atomic<UInt>(0)

    /// A ready stream, or nil when zlib cannot allocate one.
    static func take() -> UnsafeMutablePointer<z_stream>? {
        if let z = UnsafeMutablePointer<z_stream>(bitPattern: slot.exchange(0, ordering: .acquiring)) { return z }
        // zlib's state points back at the stream, so the stream lives at a fixed heap address.
        let z = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        z.initialize(to: z_stream())
        guard inflateInit_(z, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            z.deinitialize(count: 1)
            z.deallocate()
            return nil
        }
        return z
    }

    /// Returns a stream from ``take()``, whatever state its last use left it in.
    static func give(_ z: UnsafeMutablePointer<z_stream>) {
        guard inflateReset(z) == Z_OK,
            slot.compareExchange(expected: 0, desired: UInt(bitPattern: z), ordering: .releasing).exchanged
        else {
            inflateEnd(z)
            z.deinitialize(count: 1)
            z.deallocate()
            return
        }
    }
}
