@testable import GraniteStorage

/// Deterministic bytes for a payload of `count` bytes derived from `seed`.
func payloadBytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var rng = SplitMix64(seed: seed)
    var bytes = [UInt8](repeating: 0, count: count)
    var i = 0
    while i < count {
        let word = rng.next()
        for shift in stride(from: 0, to: 64, by: 8) where i < count {
            bytes[i] = UInt8(truncatingIfNeeded: word >> UInt64(shift))
            i += 1
        }
    }
    return bytes
}
