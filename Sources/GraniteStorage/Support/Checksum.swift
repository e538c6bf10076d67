// Implements FORMAT.md § "Checksums": CRC-32 (the zlib / IEEE 802.3 polynomial).
import CZlib

/// CRC-32 checksums as computed by zlib's `crc32`.
public enum Checksum {
    /// Continues the CRC-32 `crc` over `count` bytes at `pointer`.
    @inlinable
    public static func crc32(_ crc: UInt32, _ pointer: UnsafeRawPointer, count: Int) -> UInt32 {
        var c = UInt(crc)
        var p = pointer.assumingMemoryBound(to: UInt8.self)
        var remaining = count
        // zlib takes a 32-bit length; feed large inputs in pieces.
        while remaining > 0 {
            let n = min(remaining, 1 << 30)
            c = CZlib.crc32(c, p, UInt32(n))
            p += n
            remaining -= n
        }
        return UInt32(truncatingIfNeeded: c)
    }

    /// The CRC-32 of `bytes`, continuing from `crc` (0 to start).
    @inlinable
    public static func crc32(_ bytes: [UInt8], continuing crc: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return crc }
            return crc32(crc, base, count: buffer.count)
        }
    }
}
