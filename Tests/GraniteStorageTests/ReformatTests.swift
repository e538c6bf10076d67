import GraniteTestSupport
import XCTest

@testable import GraniteStorage

/// `StorageEngine.reformat(pageSize:)`: a database that holds nothing is written again with another page size
/// (what `PRAGMA page_size` needs, since Granite writes a new database when it opens it). The new size must hold
/// across reopening, the connection must keep working, and a power cut anywhere must leave an empty database or
/// the new one, never an unreadable file nor a lost acknowledged commit.
final class ReformatTests: XCTestCase {
    private static let path = "/data/reformat.granite"

    /// Creates a table `items` holding one row, committed.
    private func addItem(_ engine: StorageEngine) throws {
        try engine.beginWrite()
        let items = try engine.createTable(named: "items")
        try items.insert(rowid: 1, payload: [UInt8](repeating: 7, count: 3000))
        try engine.commit()
    }

    private func pageSizeAfterReopening(_ disk: SimulatedFileSystem) throws -> (pageSize: Int, items: Bool) {
        let engine = try StorageEngine(path: Self.path, fileSystem: disk)
        defer { try? engine.close() }
        try engine.beginRead()
        defer { try? engine.endRead() }
        return (engine.pager.pageSize, try engine.treeInfo(named: "items") != nil)
    }

    func testANewDatabaseTakesTheNewPageSize() throws {
        let disk = SimulatedFileSystem()
        let engine = try StorageEngine(path: Self.path, fileSystem: disk)
        XCTAssertEqual(engine.pager.pageSize, 4096)
        try engine.reformat(pageSize: 8192)
        XCTAssertEqual(engine.pager.pageSize, 8192)
        try addItem(engine)
        try closeChecked(engine, "after reformat")
        let reopened = try pageSizeAfterReopening(disk)
        XCTAssertEqual(reopened.pageSize, 8192)
        XCTAssertTrue(reopened.items)
    }

    /// A database checkpointed into its file (closed and opened again) has a header page on disk: the file is
    /// emptied, or its header, of the old size, would make recovery ignore the new log.
    func testACheckpointedEmptyDatabaseIsWrittenAgain() throws {
        let disk = SimulatedFileSystem()
        try StorageEngine(path: Self.path, fileSystem: disk).close()
        XCTAssertGreaterThan(disk.files[Self.path]?.count ?? 0, 0, "the close checkpoints the header page")
        let engine = try StorageEngine(path: Self.path, fileSystem: disk)
        try engine.reformat(pageSize: 1024)
        try addItem(engine)
        let crashed = disk.crash(.posix, .dropUnsynced)
        try closeChecked(engine, "after reformat")
        XCTAssertEqual(try pageSizeAfterReopening(disk).pageSize, 1024)
        // The commit was acknowledged at FULL: a power cut right after it keeps it, at the new size.
        let afterCut = try pageSizeAfterReopening(crashed)
        XCTAssertEqual(afterCut.pageSize, 1024)
        XCTAssertTrue(afterCut.items, "the acknowledged commit was lost")
    }

    func testAnInMemoryDatabaseCanBeReformatted() throws {
        let engine = try StorageEngine.inMemory()
        try engine.reformat(pageSize: 512)
        try addItem(engine)
        try engine.beginRead()
        XCTAssertNotNil(try engine.table(named: "items").get(rowid: 1))
        try engine.endRead()
        XCTAssertEqual(engine.pager.pageSize, 512)
        try closeChecked(engine, "in memory")
    }

    func testTheInterruptFlagSurvivesReformatting() throws {
        let engine = try StorageEngine.inMemory()
        let flag = engine.interruption
        try engine.reformat(pageSize: 2048)
        XCTAssertTrue(engine.interruption === flag, "an interrupt from another thread must still reach the cursors")
        try engine.close()
    }

    func testReformatIsRefusedWhenItCannotBeDoneSafely() throws {
        let engine = try StorageEngine.inMemory()
        try engine.beginRead()
        XCTAssertThrowsError(try engine.reformat(pageSize: 8192)) { error in
            guard case StorageError.invalidArgument = error else { return XCTFail("\(error)") }
        }
        try engine.endRead()
        let other = try StorageEngine(sharing: engine)
        XCTAssertThrowsError(try engine.reformat(pageSize: 8192)) { error in
            guard case StorageError.busy = error else { return XCTFail("\(error)") }
        }
        try other.close()
        XCTAssertThrowsError(try engine.reformat(pageSize: 1000)) { error in
            guard case StorageError.invalidArgument = error else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(engine.pager.pageSize, 4096)
        try engine.reformat(pageSize: 8192)
        XCTAssertEqual(engine.pager.pageSize, 8192)
        try engine.close()
    }

    /// A power cut after every changing call of: create, close (the header page reaches the file), reopen,
    /// reformat, commit a table. Every crash state opens; before the commit is acknowledged it is an empty
    /// database (of either size) or the new one; after, the table is there, at the new size.
    func testEveryPowerCutLeavesAnEmptyDatabaseOrTheNewOne() throws {
        var rng = SplitMix64(seed: testSeed())
        var point = 0
        var states = 0
        while true {
            let disk = SimulatedFileSystem()
            disk.cutPower(afterOperations: point)
            var acknowledged = false
            do {
                try StorageEngine(path: Self.path, fileSystem: disk).close()
                let engine = try StorageEngine(path: Self.path, fileSystem: disk)
                try engine.reformat(pageSize: 8192)
                try addItem(engine)
                acknowledged = true
                try engine.close()
            } catch {
                XCTAssertTrue(disk.isPowerCut, "cut after call \(point): \(error)")
            }
            if !disk.isPowerCut { break }
            for (label, crashed) in PowerLossWorkload.crashStates(of: disk, randomStates: 4, &rng) {
                let context = "cut after call \(point), \(label)"
                XCTAssertNoThrow(
                    try {
                        let engine = try StorageEngine(path: Self.path, fileSystem: crashed)
                        try engine.beginRead()
                        let trees = try engine.trees()
                        let pageSize = engine.pager.pageSize
                        try engine.endRead()
                        if acknowledged || !trees.isEmpty {
                            XCTAssertEqual(trees.map(\.name), ["items"], context)
                            XCTAssertEqual(pageSize, 8192, context)
                        }
                        try closeChecked(engine, context)
                    }(), context)
                states += 1
            }
            point += 1
        }
        XCTAssertGreaterThan(point, 10, "the workload makes few calls")
        print("reformat power cuts: \(point) crash points, \(states) states")
    }
}
