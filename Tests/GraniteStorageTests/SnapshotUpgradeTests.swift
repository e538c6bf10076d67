// ReadTransaction.upgradeToWriteOnSnapshot(), the storage side of SQLite's deferred transaction: a read becomes
// a write only on the latest commit, in this process or another.

import GraniteTestSupport
import XCTest

@testable import GraniteStorage

final class SnapshotUpgradeTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var path: String { directory.path("upgrade.granite") }

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory(prefix: "granite-upgrade")
    }

    /// An engine as process `name` would open it, waiting for no other process.
    private func open(_ name: String) throws -> StorageEngine {
        var options = StorageOptions()
        options.simulatedProcess = name
        options.crossProcessBusyTimeout = 0
        options.busyTimeout = 0.05
        return try StorageEngine(path: path, options: options)
    }

    private func transfers(_ engine: StorageEngine) throws -> Int64 {
        try Bank.balance(try engine.table(named: "meta"), 1)
    }

    func testUpgradeOnTheLatestCommitHoldsTheWriterLock() throws {
        let a = try open("A")
        try Bank.create(a)
        let b = try open("B")
        var rng = SplitMix64(seed: 11)
        let read = try b.beginRead()
        XCTAssertEqual(try transfers(b), 0)
        _ = try read.upgradeToWriteOnSnapshot()
        XCTAssertTrue(b.isWriting)
        XCTAssertFalse(read.isActive, "the read handle ends with the upgrade")
        XCTAssertThrowsError(try a.beginWrite()) { error in
            guard case .busy? = error as? StorageError else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(try Bank.transfer(b, &rng), 1)
        try a.beginRead()
        XCTAssertEqual(try transfers(a), 1)
        try a.commit()
        for engine in [b, a] { try engine.close() }
    }

    func testUpgradeAfterAnotherProcessCommittedFailsAndKeepsTheSnapshot() throws {
        let a = try open("A")
        try Bank.create(a)
        let b = try open("B")
        var rng = SplitMix64(seed: 12)
        let read = try b.beginRead()
        XCTAssertEqual(try transfers(b), 0)
        XCTAssertEqual(try Bank.transfer(a, &rng), 1)
        XCTAssertThrowsError(try read.upgradeToWriteOnSnapshot()) { error in
            guard case .busySnapshot? = error as? StorageError else { return XCTFail("\(error)") }
        }
        XCTAssertTrue(read.isActive)
        XCTAssertFalse(b.isWriting)
        XCTAssertEqual(try transfers(b), 0, "the snapshot did not move")
        // The failed upgrade let go of the writer lock.
        XCTAssertEqual(try Bank.transfer(a, &rng), 2)
        try read.commit()
        XCTAssertEqual(try Bank.transfer(b, &rng), 3)
        for engine in [b, a] { try engine.close() }
    }

    func testUpgradeAfterAnotherConnectionOfThisProcessCommittedFails() throws {
        let a = try StorageEngine(path: path)
        try Bank.create(a)
        let b = try StorageEngine(sharing: a)
        var rng = SplitMix64(seed: 13)
        let read = try b.beginRead()
        _ = try Bank.transfer(a, &rng)
        XCTAssertThrowsError(try read.upgradeToWriteOnSnapshot()) { error in
            guard case .busySnapshot? = error as? StorageError else { return XCTFail("\(error)") }
        }
        try read.commit()
        try b.close()
        try a.close()
    }

    func testUpgradeOverAnEmptyLogIsNotMistakenForAnotherCommit() throws {
        let a = try open("A")
        try Bank.create(a)
        let truncated = try a.checkpoint(.truncate)
        XCTAssertTrue(truncated.truncated)
        for name in ["A", "B"] {
            let engine = name == "A" ? a : try open(name)
            let read = try engine.beginRead()
            XCTAssertEqual(try XCTUnwrap(engine.source.snapshot).limit, 0)
            _ = try read.upgradeToWriteOnSnapshot()
            XCTAssertTrue(engine.isWriting, name)
            try engine.commit()
            _ = try engine.checkpoint(.truncate)
            if name == "B" { try engine.close() }
        }
        try a.close()
    }
}
