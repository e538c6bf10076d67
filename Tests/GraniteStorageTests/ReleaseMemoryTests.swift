import XCTest

@testable import GraniteStorage

final class ReleaseMemoryTests: XCTestCase {
    private func makeEngine(rows: Int) throws -> StorageEngine {
        let engine = try StorageEngine.inMemory()
        try engine.beginWrite()
        let table = try engine.createTable(named: "items")
        for rowid in 1...rows {
            try table.insert(rowid: Int64(rowid), payload: payloadBytes(300, seed: UInt64(rowid)))
        }
        try engine.commit()
        return engine
    }

    func testReleaseMemoryEmptiesTheCacheAndFreesItsBuffers() throws {
        let engine = try makeEngine(rows: 400)
        XCTAssertGreaterThan(engine.cachedPageCount, 10)
        XCTAssertTrue(engine.releaseMemory())
        XCTAssertEqual(engine.cachedPageCount, 0)
        XCTAssertEqual(engine.pager.cache.count, 0)
        try engine.beginRead()
        let table = try engine.table(named: "items")
        for rowid in [1, 200, 400] {
            XCTAssertEqual(try table.get(rowid: Int64(rowid)), payloadBytes(300, seed: UInt64(rowid)))
        }
        XCTAssertGreaterThan(engine.cachedPageCount, 0)
        try engine.commit()
    }

    func testReleaseMemoryDoesNothingDuringATransaction() throws {
        let engine = try makeEngine(rows: 50)
        try engine.beginWrite()
        let table = try engine.table(named: "items")
        try table.insert(rowid: 51, payload: payloadBytes(300, seed: 51))
        let cached = engine.cachedPageCount
        XCTAssertFalse(engine.releaseMemory())
        XCTAssertEqual(engine.cachedPageCount, cached)
        try engine.commit()
        XCTAssertTrue(engine.releaseMemory())
        try engine.beginRead()
        XCTAssertEqual(try engine.table(named: "items").get(rowid: 51), payloadBytes(300, seed: 51))
        try engine.commit()
    }

    func testWritesAfterReleaseAreDurable() throws {
        let engine = try makeEngine(rows: 100)
        engine.releaseMemory()
        try engine.beginWrite()
        try engine.table(named: "items").insert(rowid: 101, payload: payloadBytes(300, seed: 101))
        try engine.commit()
        engine.releaseMemory()
        try engine.beginRead()
        let table = try engine.table(named: "items")
        XCTAssertEqual(try table.get(rowid: 101), payloadBytes(300, seed: 101))
        XCTAssertEqual(try table.get(rowid: 100), payloadBytes(300, seed: 100))
        try engine.commit()
    }
}
