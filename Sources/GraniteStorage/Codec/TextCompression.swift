// Implements FORMAT.md § "Compressed text": zlib streams (RFC 1950) holding UTF-8 text.
import CZlib

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
    /// costs little.
    @usableFromInline
    static func compress(_ utf8: UnsafeRawBufferPointer, prefix: Int, maxLength: Int?) -> [UInt8]? {
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
                guard let deflated = DeflateEncoder.encode(utf8, into: deflateArea) else { return nil }
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
        guard expectedLength >= 0, expectedLength <= maxUncompressedLength else {
            throw StorageError.malformed(
                "compressed text claims \(expectedLength) bytes (limit \(maxUncompressedLength))")
        }
        guard stream.count >= 6, let source = stream.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw StorageError.malformed("compressed text stream of \(stream.count) bytes is too short")
        }
        guard expectedLength <= stream.count * maxExpansion else {
            throw StorageError.malformed(
                "compressed text claims \(expectedLength) bytes from a \(stream.count)-byte stream")
        }
        // One inflate call with Z_FINISH into a buffer that holds the whole output: zlib then never allocates its
        // 32 KiB sliding window (uncompress2 would, on every call), only its decoder state. The buffer has
        // `inflateSlack` bytes beyond the claimed length because zlib's fast decoding loop only runs while that
        // much output space remains; without them a short value is decoded entirely by the slow loop.
        var status: Int32 = Z_OK
        var produced = 0
        var unconsumed = 0
        let result = [UInt8](unsafeUninitializedCapacity: expectedLength + inflateSlack) { out, initialized in
            initialized = 0
            var dummy: UInt8 = 0
            status = withUnsafeMutablePointer(to: &dummy) { dummyPointer -> Int32 in
                var z = z_stream()
                let initStatus = inflateInit_(&z, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
                guard initStatus == Z_OK else { return initStatus }
                defer { inflateEnd(&z) }
                z.next_in = UnsafeMutablePointer(mutating: source)
                z.avail_in = uInt(stream.count)
                // zlib needs an output address even when nothing may be written.
                z.next_out = out.baseAddress ?? dummyPointer
                z.avail_out = uInt(expectedLength + inflateSlack)
                let inflated = inflate(&z, Z_FINISH)
                produced = Int(z.total_out)
                unconsumed = Int(z.avail_in)
                if inflated == Z_BUF_ERROR && z.avail_out == 0 && z.avail_in > 0 { return Z_BUF_ERROR }
                return inflated == Z_BUF_ERROR ? Z_DATA_ERROR : inflated
            }
            // Only report what zlib wrote; on error nothing is used.
            initialized = status == Z_STREAM_END ? min(produced, expectedLength) : 0
        }
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
        return result
    }
}
