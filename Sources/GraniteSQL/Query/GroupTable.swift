/// Numbers distinct byte strings (encoded `GROUP BY` keys) in the order they are first seen.
///
/// An open-addressing hash table over the keys it stores: a lookup hashes the key's bytes eight at a time and
/// compares bytes only when the stored hash matches, and a hit allocates nothing (unlike a `Dictionary` keyed by
/// an array, which needs the key as an array and hashes it with SipHash).
struct GroupTable {
    /// The keys, by group number.
    private(set) var keys: [[UInt8]] = []
    private var hashes: [UInt64] = []
    /// Group number + 1 per slot, 0 for an empty slot; the count is a power of two.
    private var slots: [Int32] = Array(repeating: 0, count: 16)

    /// The number of groups.
    var count: Int { keys.count }

    /// The group number of `key`, and whether the key was new (it is then added with the next number).
    mutating func group(of key: [UInt8]) -> (group: Int, inserted: Bool) {
        let hash = key.withUnsafeBytes { Self.hash($0) }
        let mask = slots.count - 1
        var i = Int(truncatingIfNeeded: hash) & mask
        while true {
            let entry = Int(slots[i])
            if entry == 0 { break }
            let g = entry - 1
            if hashes[g] == hash && keys[g] == key { return (g, false) }
            i = (i + 1) & mask
        }
        let g = keys.count
        keys.append(key)
        hashes.append(hash)
        slots[i] = Int32(truncatingIfNeeded: g + 1)
        if keys.count * 2 > slots.count { grow() }
        return (g, true)
    }

    private mutating func grow() {
        var bigger = [Int32](repeating: 0, count: slots.count * 2)
        let mask = bigger.count - 1
        for g in hashes.indices {
            var i = Int(truncatingIfNeeded: hashes[g]) & mask
            while bigger[i] != 0 { i = (i + 1) & mask }
            bigger[i] = Int32(truncatingIfNeeded: g + 1)
        }
        slots = bigger
    }

    /// A 64-bit hash of `bytes` (multiply–xorshift over 8-byte words).
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
        var h = UInt64(truncatingIfNeeded: bytes.count) &* multiplier
        guard let base = bytes.baseAddress else { return h }
        var offset = 0
        let n = bytes.count
        while n - offset >= 8 {
            let word = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            h = (h ^ word) &* multiplier
            h ^= h >> 29
            offset += 8
        }
        if offset < n {
            var word: UInt64 = 0
            var shift: UInt64 = 0
            while offset < n {
                word |= UInt64(base.load(fromByteOffset: offset, as: UInt8.self)) << shift
                shift += 8
                offset += 1
            }
            h = (h ^ word) &* multiplier
            h ^= h >> 29
        }
        h = h &* multiplier
        return h ^ (h >> 32)
    }
}
