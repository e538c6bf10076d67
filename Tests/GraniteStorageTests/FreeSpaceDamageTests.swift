import XCTest

@testable import GraniteStorage

/// A tree page whose header overstates its free space (valid checksum): an insert must not trust the claim and
/// write a cell below the page's cell pointers, or before the page buffer itself.
final class FreeSpaceDamageTests: XCTestCase {
    /// Large enough pages for a local cell (up to `maxLocal`, 991 bytes) to reach before the page buffer when written
    /// below a nearly full page's content.
    static let pageSize = 4096

    /// A table whose only page (its root leaf) is nearly full, with its fragmented-byte count raised to the largest
    /// value the page header check accepts; returns the file image and the leaf.
    static func makeOverstatedLeaf() throws -> (bytes: [UInt8], leaf: PageNumber) {
        var options = StorageOptions()
        options.pageSize = pageSize
        let file = MemoryFile()
        let engine = try StorageEngine(file: file, options: options)
        try engine.beginWrite()
        let table = try engine.createTable(named: "full")
        for i in 1...38 { try table.insert(rowid: Int64(i), payload: payloadBytes(100, seed: UInt64(i))) }
        try engine.commitAndRead()
        let leaf = try XCTUnwrap(try engine.treeInfo(named: "full")).root
        try engine.close()
        var bytes = file.bytes
        bytes.withUnsafeMutableBytes { buffer in
            let base = buffer.baseAddress! + Int(leaf - 1) * pageSize
            let page = try! TreePage(
                number: leaf, base: base, geometry: TreeGeometry(pageSize: pageSize), kind: .table)
            precondition(page.isLeaf && page.freeBytes < 200, "the sample leaf must be nearly full")
            base.setU16(6, page.geometry.usableEnd - page.contentStart)
            PageLayout.seal(base, number: leaf, pageSize: pageSize)
        }
        return (bytes, leaf)
    }

    func testInsertIntoALeafThatOverstatesItsFreeSpace() throws {
        let (bytes, leaf) = try Self.makeOverstatedLeaf()
        let engine = try StorageEngine(file: MemoryFile(bytes: bytes))
        try engine.beginWrite()
        let table = try engine.table(named: "full")
        // The cell (all local) fits the claimed free space, not the real one: written where the claim puts it, it
        // would start some 700 bytes before the page buffer.
        XCTAssertThrowsError(try table.insert(rowid: 100, payload: payloadBytes(900, seed: 9))) { error in
            guard case StorageError.corrupt(let page, _) = error else { return XCTFail("got \(error)") }
            XCTAssertEqual(page, leaf, "\(error)")
        }
    }
}

/// A leaf that claims to be full while holding no cell (content start at the end of its header): an insert must
/// report the page, not trap splitting nothing.
final class EmptyFullLeafTests: XCTestCase {
    func testInsertIntoAnEmptyLeafThatClaimsToBeFull() throws {
        var options = StorageOptions()
        options.pageSize = 512
        let file = MemoryFile()
        let engine = try StorageEngine(file: file, options: options)
        try engine.beginWrite()
        _ = try engine.createTable(named: "empty")
        try engine.commitAndRead()
        let leaf = try XCTUnwrap(try engine.treeInfo(named: "empty")).root
        try engine.close()
        var bytes = file.bytes
        bytes.withUnsafeMutableBytes { buffer in
            let base = buffer.baseAddress! + Int(leaf - 1) * 512
            base.setU16(4, TreeGeometry.headerSize)
            PageLayout.seal(base, number: leaf, pageSize: 512)
        }
        let reopened = try StorageEngine(file: MemoryFile(bytes: bytes))
        try reopened.beginWrite()
        let table = try reopened.table(named: "empty")
        for rowid: Int64 in [1, 5] {
            // The root's contents move to a new child before it splits, so the error names that child (the
            // transaction is rolled back).
            XCTAssertThrowsError(try table.insert(rowid: rowid, payload: [1, 2, 3])) { error in
                guard case StorageError.corrupt(_, let message) = error else { return XCTFail("got \(error)") }
                XCTAssertEqual(message, "cells cannot be split between two pages")
            }
            if reopened.isInTransaction { try reopened.rollback() }
            try reopened.beginWrite()
        }
    }
}
