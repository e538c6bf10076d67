// SplitMix64: a tiny, fast, deterministic pseudo-random generator for tests and fault injection.

/// The SplitMix64 pseudo-random generator (Steele, Lea and Flood), deterministic for a given seed.
///
/// Not cryptographic. Used by ``FaultInjectingFile`` to pick power-loss outcomes and by tests
/// that need a reproducible random sequence on every platform.
///
/// ```swift
/// var rng = SplitMix64(seed: 42)
/// let roll = Int.random(in: 1...6, using: &rng)
/// ```
package struct SplitMix64: RandomNumberGenerator, Sendable {
    /// The internal state; advances by a fixed odd constant on every call to ``next()``.
    package private(set) var state: UInt64

    /// Creates a generator whose sequence is fully determined by `seed`.
    package init(seed: UInt64) {
        state = seed
    }

    /// Returns the next 64 pseudo-random bits.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z &>> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z &>> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z &>> 31)
    }

    /// Returns a value in `0..<bound` (0 when `bound` is 0), computed the same way on every
    /// platform and Swift version, unlike the standard library's `random(in:using:)`.
    package mutating func next(below bound: UInt64) -> UInt64 {
        guard bound > 0 else { return 0 }
        return next().multipliedFullWidth(by: bound).high
    }
}
