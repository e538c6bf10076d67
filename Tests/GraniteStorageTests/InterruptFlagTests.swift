import XCTest

@testable import GraniteStorage

final class InterruptFlagTests: XCTestCase {
    private func makeEngine(rows: Int) throws -> StorageEngine {
        let engine = try StorageEngine.inMemory()
        try engine.beginWrite()
        let table = try engine.createTable(named: "items")
        for rowid in 1...rows { try table.insert(rowid: Int64(rowid), payload: payloadBytes(200, seed: UInt64(rowid))) }
        try engine.commit()
        return engine
    }

    func testScanStopsAtTheNextLeafOnceInterrupted() throws {
        let engine = try makeEngine(rows: 2000)
        try engine.beginRead()
        defer { try? engine.commit() }
        let cursor = try engine.table(named: "items").makeCursor()
        XCTAssertTrue(try cursor.first())
        engine.interruption.set()
        var visited = 1
        XCTAssertThrowsError(
            try {
                while try cursor.next() { visited += 1 }
            }()
        ) { XCTAssertEqual($0 as? StorageError, .interrupted) }
        // The rows left in the current leaf are still read: the check costs nothing within a leaf.
        XCTAssertLessThan(visited, 100)
        XCTAssertThrowsError(try cursor.seek(rowid: 1500)) { XCTAssertEqual($0 as? StorageError, .interrupted) }
        engine.interruption.clear()
        XCTAssertTrue(try cursor.seek(rowid: 1500))
        XCTAssertEqual(cursor.rowid, 1500)
    }

    func testFlagIsSharedByTheHandles() throws {
        let engine = try makeEngine(rows: 1)
        XCTAssertFalse(engine.interruption.isSet)
        engine.interruption.set()
        XCTAssertTrue(engine.pager.interruption.isSet)
        engine.interruption.clear()
        XCTAssertFalse(engine.interruption.isSet)
        XCTAssertEqual(StorageError.interrupted.description, "interrupted")
    }
}
