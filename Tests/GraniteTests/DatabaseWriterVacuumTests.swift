// `DatabaseWriter.vacuum()` and `vacuum(into:)` on a queue and on a pool: the file shrinks after deletes and keeps
// its rows, the copy is a sound database, and the refusals and failures are GRDB's errors.

import Foundation
import Granite
import GraniteStorage
import GraniteTestSupport
import XCTest

final class DatabaseWriterVacuumTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory(prefix: "granite-writer-vacuum")
    }

    /// A queue and a pool on files of their own.
    private func writers() throws -> [(name: String, writer: any DatabaseWriter)] {
        [
            ("queue", try DatabaseQueue(path: directory.path("queue.granite"))),
            ("pool", try DatabasePool(path: directory.path("pool.granite"))),
        ]
    }

    /// Fills `item` with 3,000 rows and an index, then deletes four rows in five, leaving free pages.
    private func fillAndDelete(_ writer: some DatabaseWriter) throws {
        try writer.write { db in
            try db.execute(sql: "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL, weight REAL)")
            try db.execute(sql: "CREATE INDEX item_name ON item(name)")
            for id in 1...3_000 {
                try db.execute(
                    sql: "INSERT INTO item VALUES (?, ?, ?)",
                    arguments: [id, "item \(id) " + String(repeating: "x", count: id % 40), Double(id) / 8])
            }
        }
        try writer.write { db in try db.execute(sql: "DELETE FROM item WHERE id % 5 != 0") }
        // The file holds every page, so that its size shows what the vacuum gives back.
        try writer.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
    }

    private func rows(_ reader: some DatabaseReader) throws -> [Row] {
        try reader.read { db in try Row.fetchAll(db, sql: "SELECT * FROM item ORDER BY id") }
    }

    private func integer(_ reader: some DatabaseReader, _ sql: String) throws -> Int? {
        try reader.read { db in try Int.fetchOne(db, sql: sql) }
    }

    private func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? -1
    }

    func testVacuumShrinksTheFileAndKeepsTheRows() throws {
        for (name, writer) in try writers() {
            try fillAndDelete(writer)
            let before = try rows(writer)
            XCTAssertEqual(before.count, 600, name)
            XCTAssertGreaterThan(try integer(writer, "PRAGMA freelist_count") ?? 0, 20, name)
            let sizeBefore = fileSize(writer.path)

            try writer.vacuum()
            XCTAssertLessThan(fileSize(writer.path), sizeBefore / 2, name)
            XCTAssertEqual(try integer(writer, "PRAGMA freelist_count"), 0, name)
            XCTAssertEqual(try rows(writer), before, name)
            XCTAssertEqual(try writer.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }, ["ok"])
            // The index survived the rebuild and answers queries.
            XCTAssertEqual(try integer(writer, "SELECT id FROM item WHERE name = 'item 15 ' || 'xxxxxxxxxxxxxxx'"), 15)
            try writer.close()
        }
    }

    func testAsyncVacuumShrinksTheFile() async throws {
        for (name, writer) in try writers() {
            try fillAndDelete(writer)
            let sizeBefore = fileSize(writer.path)
            try await writer.vacuum()
            XCTAssertLessThan(fileSize(writer.path), sizeBefore / 2, name)
            XCTAssertEqual(try integer(writer, "SELECT count(*) FROM item"), 600, name)
            let copy = directory.path("async-\(name)-copy.granite")
            try await writer.vacuum(into: copy)
            let copied = try DatabaseQueue(path: copy)
            let sum = "SELECT sum(id) FROM item"
            XCTAssertEqual(try integer(copied, sum), try integer(writer, sum), name)
            try copied.close()
            try writer.close()
        }
    }

    func testVacuumIntoWritesASoundCompactCopy() throws {
        for (name, writer) in try writers() {
            try fillAndDelete(writer)
            let before = try rows(writer)
            let pages = try integer(writer, "PRAGMA page_count") ?? 0
            let copyPath = directory.path("\(name)-copy.granite")

            try writer.vacuum(into: copyPath)
            XCTAssertEqual(try integer(writer, "PRAGMA page_count"), pages, "\(name): the source is left as it was")
            XCTAssertFalse(FileManager.default.fileExists(atPath: copyPath + "-wal"), "\(name): the copy is closed")
            let copy = try DatabaseQueue(path: copyPath)
            XCTAssertEqual(try rows(copy), before, name)
            XCTAssertEqual(try copy.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }, ["ok"])
            XCTAssertEqual(try integer(copy, "PRAGMA freelist_count"), 0, name)
            XCTAssertLessThan(try integer(copy, "PRAGMA page_count") ?? .max, pages / 2, name)
            try copy.close()

            XCTAssertThrowsError(try writer.vacuum(into: copyPath), name) { error in
                XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_ERROR)
                XCTAssertEqual((error as? DatabaseError)?.message, "output file already exists")
            }
            try writer.close()
        }
    }

    func testVacuumIsRefusedInsideATransaction() throws {
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let dbQueue = try DatabaseQueue(path: directory.path("open.granite"), configuration: configuration)
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1)")
            for sql in ["VACUUM", "VACUUM INTO 'never.granite'"] {
                XCTAssertThrowsError(try db.execute(sql: sql)) { error in
                    XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_ERROR, sql)
                    XCTAssertEqual((error as? DatabaseError)?.message, "cannot VACUUM from within a transaction")
                }
            }
        }
        // A transaction left open between two accesses refuses the writer's vacuum too.
        try dbQueue.writeWithoutTransaction { db in try db.beginTransaction() }
        let copyPath = directory.path("never.granite")
        XCTAssertThrowsError(try dbQueue.vacuum()) { error in
            XCTAssertEqual((error as? DatabaseError)?.message, "cannot VACUUM from within a transaction")
        }
        XCTAssertThrowsError(try dbQueue.vacuum(into: copyPath)) { error in
            XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_ERROR)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: copyPath))
        try dbQueue.writeWithoutTransaction { db in try db.rollback() }
        try dbQueue.vacuum()
        XCTAssertEqual(try integer(dbQueue, "SELECT x FROM t"), 1)
    }

    /// `vacuum(into:)` from a file with a damaged page fails with `SQLITE_CORRUPT` naming the page and leaves
    /// nothing at the destination, so that a later try is not refused for a file it left there.
    func testVacuumIntoFromADamagedFileLeavesNoFile() throws {
        let path = directory.path("damaged.granite")
        var dbQueue: DatabaseQueue? = try DatabaseQueue(path: path)
        try fillAndDelete(dbQueue!)
        let root = try XCTUnwrap(try integer(dbQueue!, "SELECT rootpage FROM sqlite_schema WHERE name = 'item'"))
        try dbQueue?.close()
        dbQueue = nil
        let (pageSize, leaves) = try tableLeafPages(ofFile: path, root: PageNumber(root))
        let damaged = try XCTUnwrap(leaves.last)
        try damagePage(damaged, ofFile: path, pageSize: pageSize)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))

        let source = try DatabaseQueue(path: path)
        let copyPath = directory.path("copy.granite")
        for _ in 0..<2 {
            XCTAssertThrowsError(try source.vacuum(into: copyPath)) { error in
                XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_CORRUPT, "\(error)")
                XCTAssertTrue("\(error)".contains("page \(damaged)"), "\(error)")
            }
            for leftover in [copyPath, copyPath + "-wal", copyPath + "-shm"] {
                XCTAssertFalse(FileManager.default.fileExists(atPath: leftover), leftover)
            }
        }
        try source.close()
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), bytes, "the source is untouched")
    }
}
