// Implements FORMAT.md § "Compressed text": zlib streams (RFC 1950) holding UTF-8 text.
import CZlib

/// zlib compression of text bodies, as stored in compressed-text row columns.
///
/// A stream is in the zlib format of RFC 1950 (two-byte header, deflate data, Adler-32 of the
/// uncompressed bytes), produced by zlib's deflate at level 2 (with fixed Huffman codes for inputs under 256 bytes).
///
/// ```swift
/// let utf8 = Array(String(repeating: "{\"a\":1}", count: 50).utf8)
/// let stream = utf8.withUnsafeBytes { TextCompression.compress($0) }!
/// let back = try stream.withUnsafeBytes { try TextCompression.decompress($0, expectedLength: utf8.count) }
/// ```
public enum TextCompression {
    /// The largest uncompressed length (1 GiB) a decoder accepts; larger claims are malformed.
    public static let maxUncompressedLength = 1 << 30

    /// The deflate format's maximum expansion: one byte of stream never inflates to more than this.
    ///
    /// (A deflate match of 258 bytes takes at least two bits: one for the length code, one for the
    /// distance code.) A claimed length above `stream.count * maxExpansion` is rejected before any
    /// allocation, so a tiny hostile stream cannot make the decoder allocate a large buffer.
    public static let maxExpansion = 1032

    /// The zlib compression level used by ``compress(_:)``.
    ///
    /// Level 2 is zlib's fast (greedy) matcher with a slightly longer search than level 1: on repetitive JSON
    /// it costs about 30% fewer instructions than level 6 for streams about 6% larger.
    public static let level: Int32 = 2

    /// Compresses `utf8` into a zlib stream, or returns `nil` if zlib fails (out of memory) or the
    /// input exceeds 4 GiB.
    public static func compress(_ utf8: UnsafeRawBufferPointer) -> [UInt8]? {
        compress(utf8, prefix: 0, maxLength: nil)
    }

    /// Compresses `utf8` after `prefix` leading bytes (left zero) in the result.
    ///
    /// Returns `nil` when zlib fails or when the result would exceed `maxLength` bytes (prefix
    /// included); zlib then stops as soon as its output is full, so incompressible input costs little.
    ///
    /// The deflate data is produced with a window and hash table sized to the input (see
    /// ``deflateParameters(forLength:)``), then wrapped in the zlib header of a 32 KiB window and the
    /// Adler-32 trailer: for short text this avoids allocating and clearing zlib's default 256 KiB of
    /// state per value, while the stream stays a standard one (it never refers further back than 32 KiB).
    @usableFromInline
    static func compress(_ utf8: UnsafeRawBufferPointer, prefix: Int, maxLength: Int?) -> [UInt8]? {
        guard utf8.count <= Int(UInt32.max) else { return nil }
        let bound = Int(compressBound(uLong(utf8.count)))
        let capacity = min(maxLength ?? Int.max, prefix + bound)
        // Room for the two header bytes, the four trailer bytes and at least one byte of deflate data.
        guard capacity > prefix + 6 else { return nil }
        let (windowBits, memoryLevel) = deflateParameters(forLength: utf8.count)
        var failed = false
        let result = [UInt8](unsafeUninitializedCapacity: capacity) { out, initialized in
            initialized = 0
            guard let outBase = out.baseAddress else {
                failed = true
                return
            }
            // zlib does not read the source when its length is zero, but it gets a valid address anyway.
            var dummy: UInt8 = 0
            let written = withUnsafeMutablePointer(to: &dummy) { dummyPointer -> Int? in
                let source = utf8.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafePointer(dummyPointer)
                var stream = z_stream()
                guard
                    deflateInit2_(
                        &stream, level, Z_DEFLATED, -windowBits, memoryLevel, strategy(forLength: utf8.count),
                        zlibVersion(),
                        Int32(MemoryLayout<z_stream>.size)) == Z_OK
                else { return nil }
                defer { deflateEnd(&stream) }
                stream.next_in = UnsafeMutablePointer(mutating: source)
                stream.avail_in = uInt(utf8.count)
                stream.next_out = outBase + prefix + 2
                stream.avail_out = uInt(capacity - prefix - 6)
                guard deflate(&stream, Z_FINISH) == Z_STREAM_END else { return nil }
                let end = prefix + 2 + Int(stream.total_out)
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

    /// The inputs shorter than this many bytes are deflated with zlib's fixed Huffman codes (`Z_FIXED`).
    ///
    /// For a short value, the dynamic code tables cost more CPU than they save bytes: building them dominates
    /// deflate's work, and decoding them dominates inflate's (fixed codes need no table building on either
    /// side). On short JSON arrays the fixed-code stream is 1–9% larger, and inflate takes about 60% fewer
    /// instructions.
    static let fixedCodesBelow = 256

    /// The deflate strategy for `count` bytes of input: fixed Huffman codes below ``fixedCodesBelow``, zlib's
    /// default (its choice of dynamic or fixed codes per block) from there on.
    static func strategy(forLength count: Int) -> Int32 {
        count < fixedCodesBelow ? Z_FIXED : Z_DEFAULT_STRATEGY
    }

    /// The deflate window (log2 of its size, 9–15) and memory level (1–8) used for `count` bytes of input:
    /// the smallest window that holds the whole input with zlib's 262-byte lookahead margin, so that matches
    /// reach as far back as with a 32 KiB window, and a literal buffer large enough for one block.
    static func deflateParameters(forLength count: Int) -> (windowBits: Int32, memoryLevel: Int32) {
        var windowBits: Int32 = 9
        while windowBits < 15 && (1 << windowBits) < count + 262 { windowBits += 1 }
        return (windowBits, min(8, max(1, windowBits - 6)))
    }

    /// The two-byte zlib header (RFC 1950) written before the deflate data: method 8 (deflate), a 32 KiB
    /// window, and the compression-level hint of ``level``, with the check bits that make it a multiple of 31.
    static let zlibHeader: (cmf: UInt8, flg: UInt8) = {
        let cmf: UInt16 = 0x78
        let levelHint: UInt16 = level < 2 ? 0 : level < 6 ? 1 : level == 6 ? 2 : 3
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
    public static func decompress(_ stream: UnsafeRawBufferPointer, expectedLength: Int) throws -> [UInt8] {
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
