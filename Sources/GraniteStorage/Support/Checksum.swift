// Implements FORMAT.md § "Checksums": XXH64 (the published xxHash 64-bit
// algorithm), of which page trailers and the header keep the low 32 bits.

/// The checksum used by page trailers and the file header.
@usableFromInline package enum Checksum {
    @usableFromInline static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
    @usableFromInline static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    @usableFromInline static let prime3: UInt64 = 0x1656_67B1_9E37_79F9
    @usableFromInline static let prime4: UInt64 = 0x85EB_CA77_C2B2_AE63
    @usableFromInline static let prime5: UInt64 = 0x27D4_EB2F_1656_67C5

    @inlinable @inline(__always)
    static func rotl(_ x: UInt64, _ r: UInt64) -> UInt64 { (x << r) | (x >> (64 - r)) }

    @inlinable @inline(__always)
    static func round(_ acc: UInt64, _ input: UInt64) -> UInt64 {
        rotl(acc &+ input &* prime2, 31) &* prime1
    }

    @inlinable @inline(__always)
    static func merge(_ acc: UInt64, _ value: UInt64) -> UInt64 {
        (acc ^ round(0, value)) &* prime1 &+ prime4
    }

    /// XXH64 of `count` bytes at `pointer` with `seed`.
    @inlinable
    package static func xxh64(_ pointer: UnsafeRawPointer, count: Int, seed: UInt64 = 0) -> UInt64 {
        var p = 0
        var h: UInt64
        if count >= 32 {
            var v1 = seed &+ prime1 &+ prime2
            var v2 = seed &+ prime2
            var v3 = seed
            var v4 = seed &- prime1
            let limit = count - 32
            while p <= limit {
                v1 = round(v1, UInt64(littleEndian: pointer.loadUnaligned(fromByteOffset: p, as: UInt64.self)))
                v2 = round(v2, UInt64(littleEndian: pointer.loadUnaligned(fromByteOffset: p + 8, as: UInt64.self)))
                v3 = round(v3, UInt64(littleEndian: pointer.loadUnaligned(fromByteOffset: p + 16, as: UInt64.self)))
                v4 = round(v4, UInt64(littleEndian: pointer.loadUnaligned(fromByteOffset: p + 24, as: UInt64.self)))
                p += 32
            }
            h = rotl(v1, 1) &+ rotl(v2, 7) &+ rotl(v3, 12) &+ rotl(v4, 18)
            h = merge(h, v1)
            h = merge(h, v2)
            h = merge(h, v3)
            h = merge(h, v4)
        } else {
            h = seed &+ prime5
        }
        h = h &+ UInt64(count)
        while p + 8 <= count {
            let k = round(0, UInt64(littleEndian: pointer.loadUnaligned(fromByteOffset: p, as: UInt64.self)))
            h = rotl(h ^ k, 27) &* prime1 &+ prime4
            p += 8
        }
        if p + 4 <= count {
            let k = UInt64(UInt32(littleEndian: pointer.loadUnaligned(fromByteOffset: p, as: UInt32.self)))
            h = rotl(h ^ (k &* prime1), 23) &* prime2 &+ prime3
            p += 4
        }
        while p < count {
            let k = UInt64(pointer.load(fromByteOffset: p, as: UInt8.self))
            h = rotl(h ^ (k &* prime5), 11) &* prime1
            p += 1
        }
        h ^= h >> 33
        h = h &* prime2
        h ^= h >> 29
        h = h &* prime3
        h ^= h >> 32
        return h
    }

    /// The 32-bit checksum stored on disk: the low 32 bits of XXH64.
    @inlinable
    package static func checksum32(_ pointer: UnsafeRawPointer, count: Int, seed: UInt64 = 0) -> UInt32 {
        UInt32(truncatingIfNeeded: xxh64(pointer, count: count, seed: seed))
    }

    /// XXH64 of a byte array.
    package static func xxh64(_ bytes: [UInt8], seed: UInt64 = 0) -> UInt64 {
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else {
                var empty: UInt8 = 0
                return withUnsafeBytes(of: &empty) { xxh64($0.baseAddress!, count: 0, seed: seed) }
            }
            return xxh64(base, count: buffer.count, seed: seed)
        }
    }
}
