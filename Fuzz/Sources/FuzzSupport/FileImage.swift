// Makes a mutated file image pass the checksum checks, so that the fuzzer's mutations reach the decoders behind
// them instead of all stopping at "checksum mismatch".
import GraniteStorage

public enum FileImage {
    /// Rewrites the header checksum and every whole page's trailer of `image` to match their contents. The page
    /// size is the header's when it is a valid one; otherwise the image is left alone (the open then fails on the
    /// header, which is itself worth exercising).
    public static func reseal(_ image: inout [UInt8]) {
        guard image.count >= FileHeader.size else { return }
        image.withUnsafeMutableBytes { buffer in
            let base = buffer.baseAddress!
            let pageSize = Int(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: 12, as: UInt32.self)))
            guard PageLayout.isValidPageSize(pageSize) else { return }
            resealHeader(base)
            for start in stride(from: 0, to: buffer.count - pageSize + 1, by: pageSize) {
                PageLayout.seal(base + start, number: PageNumber(start / pageSize + 1), pageSize: pageSize)
            }
        }
    }

    /// Rewrites the 64-byte header with its checksum. `FileHeader.write` computes the checksum; it also restores
    /// the magic bytes and zeroes the reserved bytes 48..<60, which the reader ignores.
    static func resealHeader(_ base: UnsafeMutableRawPointer) {
        func u32(_ offset: Int) -> UInt32 {
            UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
        }
        var header = FileHeader(pageSize: Int(u32(12)))
        header.formatVersion = u32(8)
        header.pageCount = u32(16)
        header.freelistHead = u32(20)
        header.freelistCount = u32(24)
        header.catalogRoot = u32(28)
        header.changeCounter = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: 32, as: UInt64.self))
        header.userVersion = u32(40)
        header.schemaCookie = u32(44)
        header.write(to: base)
    }
}
