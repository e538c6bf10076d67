import XCTest

@testable import GraniteStorage

final class PageCopyTests: XCTestCase {
    private struct Stop: Error {}

    private func makeEngine(rows: Int, seed: UInt64, pageSize: Int = 4096) throws -> StorageEngine {
        var options = StorageOptions()
        options.pageSize = pageSize
        let engine = try StorageEngine.inMemory(options: options)
        try engine.beginWrite()
        let table = try engine.createTable(named: "items")
        for rowid in 1...rows {
            try table.insert(rowid: Int64(rowid), payload: payloadBytes(500, seed: seed &+ UInt64(rowid)))
        }
        try engine.commit()
        return engine
    }

    private func rows(_ engine: StorageEngine) throws -> [[UInt8]?] {
        try engine.beginRead()
        defer { try? engine.commit() }
        let table = try engine.table(named: "items")
        var result: [[UInt8]?] = []
        for rowid in 1...300 { result.append(try table.get(rowid: Int64(rowid))) }
        return result
    }

    func testCopyReplacesTheDestination() throws {
        let source = try makeEngine(rows: 300, seed: 1)
        let destination = try makeEngine(rows: 20, seed: 99)
        try source.beginRead()
        var steps: [(Int, Int)] = []
        try destination.copyPages(from: source, pagesPerStep: 10) { steps.append(($0, $1)) }
        let total = Int(source.pager.header.pageCount)
        try source.commit()
        XCTAssertEqual(steps.map(\.1), Array(repeating: total, count: steps.count))
        XCTAssertEqual(steps.map(\.0), Array(stride(from: total - 10, to: 0, by: -10)))
        XCTAssertEqual(try rows(destination), try rows(source))
        try destination.beginRead()
        XCTAssertEqual(destination.pager.header.pageCount, UInt32(total))
        try destination.commit()
    }

    func testAbortedCopyLeavesTheDestinationUnchanged() throws {
        let source = try makeEngine(rows: 300, seed: 1)
        let destination = try makeEngine(rows: 20, seed: 99)
        let before = try rows(destination)
        try source.beginRead()
        XCTAssertThrowsError(try destination.copyPages(from: source, pagesPerStep: 5) { _, _ in throw Stop() }) {
            XCTAssertTrue($0 is Stop)
        }
        try source.commit()
        XCTAssertEqual(try rows(destination), before)
    }

    func testPageSizesMustMatch() throws {
        let source = try makeEngine(rows: 5, seed: 1, pageSize: 8192)
        let destination = try makeEngine(rows: 5, seed: 2)
        try source.beginRead()
        XCTAssertThrowsError(try destination.copyPages(from: source, pagesPerStep: 0) { _, _ in }) { error in
            guard case StorageError.invalidArgument = error else { return XCTFail("\(error)") }
        }
        try source.commit()
    }
}
