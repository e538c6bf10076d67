import GraniteTestSupport
import XCTest

@testable import GraniteStorage

/// What each `PRAGMA synchronous` level keeps through a power cut, set per connection after opening (as the
/// pragma does). A cut is modelled by the fault-injecting files: only what was synced survives
/// (`dropUnsynced`), or unsynced writes land in any order and may tear (`random`).
final class SynchronousLevelTests: XCTestCase {
    private struct Disk {
        let db = FaultInjectingFile(path: "db")
        let wal = FaultInjectingFile(path: "db-wal")

        /// The database a power cut leaves, reopened.
        func afterPowerCut(_ mode: FaultInjectingFile.CrashMode) throws -> StorageEngine {
            try StorageEngine(
                file: MemoryFile(bytes: db.crashImage(mode)), walFile: MemoryFile(bytes: wal.crashImage(mode)),
                options: Self.options(.full))
        }

        static func options(_ durability: Durability) -> StorageOptions {
            var options = StorageOptions()
            options.pageSize = 512
            options.durability = durability
            options.autoCheckpointFrames = 100_000  // checkpoints only when a test asks
            return options
        }
    }

    /// Opens the bank at FULL (so that its creation is durable), then switches the connection to `durability`.
    private func openBank(on disk: Disk, switchingTo durability: Durability) throws -> StorageEngine {
        let engine = try StorageEngine(file: disk.db, walFile: disk.wal, options: Disk.options(.full))
        try Bank.create(engine)
        engine.durability = durability
        XCTAssertEqual(engine.durability, durability)
        return engine
    }

    func testFullKeepsEveryAcknowledgedCommit() throws {
        for seed in 0..<20 as Range<UInt64> {
            let disk = Disk()
            // Opened at NORMAL, then raised to FULL: the level in force is the connection's, not the opening one.
            let engine = try StorageEngine(file: disk.db, walFile: disk.wal, options: Disk.options(.full))
            try Bank.create(engine)
            engine.durability = .normal
            var rng = SplitMix64(seed: seed)
            _ = try Bank.transfer(engine, &rng)
            engine.durability = .full
            var acknowledged: Int64 = 0
            var states: [Int64: [Int64]] = [:]
            for step in 0..<Int(1 + rng.next(below: 12)) {
                acknowledged = try Bank.transfer(engine, &rng)
                states[acknowledged] = try Bank.state(engine).balances
                try engine.endRead()
                if step % 5 == 4 { try engine.checkpoint(.passive) }
            }
            let mode: FaultInjectingFile.CrashMode =
                seed % 2 == 0 ? .dropUnsynced : .random(seed: seed, sectorSize: 512)
            let recovered = try disk.afterPowerCut(mode)
            let (count, balances) = try Bank.state(recovered)
            XCTAssertEqual(count, acknowledged, "seed \(seed): FULL lost an acknowledged commit")
            XCTAssertEqual(balances, states[count], "seed \(seed)")
            XCTAssertTrue(recovered.checkIntegrity().isOK, "seed \(seed)")
        }
    }

    func testNormalStaysConsistentAndMayLoseTheLatestCommits() throws {
        var lostCommits = false
        for seed in 0..<20 as Range<UInt64> {
            let disk = Disk()
            let engine = try openBank(on: disk, switchingTo: .normal)
            var rng = SplitMix64(seed: seed)
            var states: [Int64: [Int64]] = [0: try Bank.state(engine).balances]
            try engine.endRead()
            var checkpointed: Int64 = 0
            var acknowledged: Int64 = 0
            for step in 0..<Int(2 + rng.next(below: 12)) {
                acknowledged = try Bank.transfer(engine, &rng)
                states[acknowledged] = try Bank.state(engine).balances
                try engine.endRead()
                if step % 4 == 3 {
                    // A checkpoint syncs the log first and the database file after the copy.
                    try engine.checkpoint(.passive)
                    checkpointed = acknowledged
                }
            }
            let mode: FaultInjectingFile.CrashMode =
                seed % 2 == 0 ? .dropUnsynced : .random(seed: seed, sectorSize: 512)
            let recovered = try disk.afterPowerCut(mode)
            let (count, balances) = try Bank.state(recovered)
            XCTAssertGreaterThanOrEqual(count, checkpointed, "seed \(seed): a checkpointed commit was lost")
            XCTAssertLessThanOrEqual(count, acknowledged, "seed \(seed)")
            XCTAssertEqual(balances, states[count], "seed \(seed): not a committed state")
            XCTAssertEqual(balances.reduce(0, +), Int64(Bank.accounts) * Bank.initial, "seed \(seed)")
            XCTAssertTrue(recovered.checkIntegrity().isOK, "seed \(seed)")
            if mode == .dropUnsynced {
                // Nothing syncs a commit at NORMAL: only what the last checkpoint synced survives.
                XCTAssertEqual(count, checkpointed, "seed \(seed)")
                if count < acknowledged { lostCommits = true }
            }
        }
        XCTAssertTrue(lostCommits, "NORMAL never skipped a sync")
    }

    func testOffNeverSyncs() throws {
        let disk = Disk()
        let engine = try openBank(on: disk, switchingTo: .off)
        let syncsBefore = disk.db.syncCount + disk.wal.syncCount
        var rng = SplitMix64(seed: 7)
        var acknowledged: Int64 = 0
        for _ in 0..<6 { acknowledged = try Bank.transfer(engine, &rng) }
        try engine.checkpoint(.passive)
        for _ in 0..<3 { acknowledged = try Bank.transfer(engine, &rng) }
        XCTAssertEqual(acknowledged, 9)
        XCTAssertEqual(disk.db.syncCount + disk.wal.syncCount, syncsBefore, "OFF synced a file")

        // Every commit made at OFF is gone when unsynced writes are dropped: only the bank's creation remains.
        let recovered = try disk.afterPowerCut(.dropUnsynced)
        XCTAssertEqual(try Bank.state(recovered).count, 0)

        // A crash of the process alone (the written bytes reach the disk) keeps them all.
        let crashed = try disk.afterPowerCut(.keepUnsynced)
        XCTAssertEqual(try Bank.state(crashed).count, acknowledged)
    }

    func testExtraSyncsLikeFull() throws {
        let disk = Disk()
        let engine = try openBank(on: disk, switchingTo: .extra)
        var rng = SplitMix64(seed: 3)
        let walSyncs = disk.wal.syncCount
        for _ in 0..<4 { _ = try Bank.transfer(engine, &rng) }
        XCTAssertEqual(disk.wal.syncCount - walSyncs, 4, "one log sync per commit")
        XCTAssertEqual(try Bank.state(disk.afterPowerCut(.dropUnsynced)).count, 4)
    }

    func testEachConnectionHasItsOwnLevel() throws {
        let disk = Disk()
        let first = try StorageEngine(file: disk.db, walFile: disk.wal, options: Disk.options(.full))
        try Bank.create(first)
        let second = try StorageEngine(sharing: first, options: Disk.options(.off))
        XCTAssertEqual(first.durability, .full)
        XCTAssertEqual(second.durability, .off)
        var rng = SplitMix64(seed: 11)
        let syncs = disk.wal.syncCount
        _ = try Bank.transfer(second, &rng)
        XCTAssertEqual(disk.wal.syncCount, syncs, "the OFF connection synced")
        _ = try Bank.transfer(first, &rng)
        XCTAssertEqual(disk.wal.syncCount, syncs + 1, "the FULL connection did not sync its commit")
        XCTAssertEqual(try Bank.state(disk.afterPowerCut(.dropUnsynced)).count, 2)
    }
}
