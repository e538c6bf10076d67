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

extension StorageEngine {
    /// Tests: makes sure a read (or write) transaction is in progress, beginning a read when none is.
    func ensureRead() throws {
        if !isInTransaction { try beginRead() }
    }

    /// Tests: makes sure a write transaction is in progress, ending a read transaction first.
    func ensureWrite() throws {
        if isInTransaction && !isWriting { try commit() }
        if !isInTransaction { try beginWrite() }
    }

    /// Tests: commits the transaction in progress and begins a write transaction for the changes that follow.
    func commitAndWrite() throws {
        try commit()
        try beginWrite()
    }
}

extension StorageEngine {
    /// Tests: commits the transaction in progress and begins a read transaction for the reads that follow.
    func commitAndRead() throws {
        try commit()
        try beginRead()
    }
}
