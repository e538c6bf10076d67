import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// `VACUUM` and `VACUUM INTO` through SQL: the database shrinks after deletes and keeps every row, index, view
/// and trigger; texts are compressed under the current threshold; SQLite's refusals and messages.
final class VacuumStatementTests: XCTestCase {
    /// A database with a table, its indexes (one automatic), a view and a trigger, most of whose rows are then
    /// deleted.
    private func makeShrinkable(_ db: SQLConnection, seed: UInt64) throws {
        var rng = SplitMix64(state: seed)
        try db.execute(
            """
            CREATE TABLE doc(id INTEGER PRIMARY KEY, code TEXT UNIQUE, body TEXT, n REAL);
            CREATE INDEX doc_n ON doc(n);
            CREATE TABLE log(entry TEXT);
            CREATE VIEW big AS SELECT id, code FROM doc WHERE n > 0.5;
            CREATE TRIGGER doc_log AFTER DELETE ON doc WHEN old.id % 100 = 0 BEGIN
                INSERT INTO log VALUES ('deleted ' || old.code);
            END;
            BEGIN;
            """)
        for id in 1...1_500 {
            let words = (0..<(5 + rng.below(60))).map { _ in
                ["alpha", "beta", "gamma", "delta"][rng.below(4)]
            }
            try db.execute(
                "INSERT INTO doc VALUES (?, ?, ?, ?)",
                arguments: [
                    .integer(Int64(id)), .text("code-\(id)"), .text(words.joined(separator: " ")),
                    .real(Double(rng.below(1000)) / 1000),
                ])
        }
        try db.execute("COMMIT; DELETE FROM doc WHERE id % 4 != 0")
    }

    private func snapshot(_ db: SQLConnection) throws -> [[[Value]]] {
        try [
            "SELECT * FROM doc ORDER BY id", "SELECT code FROM doc ORDER BY code", "SELECT id FROM doc ORDER BY n, id",
            "SELECT * FROM big ORDER BY id", "SELECT * FROM log ORDER BY entry",
            "SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name",
        ].map { try db.query($0).rows }
    }

    private func pragma(_ db: SQLConnection, _ name: String) throws -> Int64 {
        guard case .integer(let value)? = try db.query("PRAGMA \(name)").rows.first?.first else {
            XCTFail("PRAGMA \(name) gave no integer")
            return -1
        }
        return value
    }

    private func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? -1
    }

    func testVacuumShrinksTheFileAndKeepsEverything() throws {
        let path = try makeTemporaryDatabasePath()
        let db = try SQLConnection(engine: StorageEngine(path: path))
        try makeShrinkable(db, seed: testSeed())
        try db.engine.checkpoint(.truncate)
        let before = try snapshot(db)
        let pagesBefore = try pragma(db, "page_count")
        XCTAssertGreaterThan(try pragma(db, "freelist_count"), 10)
        let bytesBefore = fileSize(path)
        XCTAssertEqual(bytesBefore, Int(pagesBefore) * 4096)
        let cookie = try pragma(db, "schema_version")

        try db.execute("VACUUM")
        XCTAssertEqual(try snapshot(db), before)
        XCTAssertEqual(try pragma(db, "freelist_count"), 0)
        let pagesAfter = try pragma(db, "page_count")
        XCTAssertLessThan(pagesAfter, pagesBefore * 2 / 3)
        XCTAssertEqual(fileSize(path), Int(pagesAfter) * 4096, "the checkpoint cut the file")
        XCTAssertGreaterThan(try pragma(db, "schema_version"), cookie)
        XCTAssertEqual(try db.query("PRAGMA integrity_check").rows, [[.text("ok")]])
        // The trigger still fires, the automatic index still refuses duplicates.
        try db.execute("DELETE FROM doc WHERE id = 1200")
        XCTAssertEqual(try db.query("SELECT count(*) FROM log WHERE entry = 'deleted code-1200'").rows, [[.integer(1)]])
        XCTAssertThrowsError(try db.execute("INSERT INTO doc(code) VALUES ('code-4')"))
        try db.engine.close()

        let reopened = try SQLConnection(engine: StorageEngine(path: path))
        XCTAssertEqual(try pragma(reopened, "page_count"), pagesAfter)
        XCTAssertEqual(try reopened.query("PRAGMA integrity_check").rows, [[.text("ok")]])
        try reopened.engine.close()
    }

    func testAnotherConnectionSeesTheVacuumedDatabase() throws {
        let path = try makeTemporaryDatabasePath()
        let db = try SQLConnection(engine: StorageEngine(path: path))
        try makeShrinkable(db, seed: testSeed())
        let other = try SQLConnection(engine: StorageEngine(path: path))
        let before = try snapshot(other)
        try db.execute("VACUUM")
        XCTAssertEqual(try snapshot(other), before)
        try other.execute("INSERT INTO doc(code, body) VALUES ('new', 'text')")
        XCTAssertEqual(try db.query("SELECT body FROM doc WHERE code = 'new'").rows, [[.text("text")]])
        XCTAssertEqual(try other.query("PRAGMA integrity_check").rows, [[.text("ok")]])
        try other.engine.close()
        try db.engine.close()
    }

    func testVacuumCompressesUnderTheCurrentThreshold() throws {
        let db = try SQLConnection(engine: StorageEngine.inMemory())
        db.textCompressionThreshold = nil
        let text = String(repeating: "granite keeps rows ", count: 30)
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, doc TEXT)")
        for id in 1...50 {
            try db.execute("INSERT INTO t VALUES (?, ?)", arguments: [.integer(Int64(id)), .text(text)])
        }
        let plainPages = try pragma(db, "page_count")
        db.textCompressionThreshold = 128
        try db.execute("VACUUM")
        XCTAssertLessThan(try pragma(db, "page_count"), plainPages / 2, "the texts were compressed")
        XCTAssertEqual(
            try db.query("SELECT count(*) FROM t WHERE doc = ?", arguments: [.text(text)]).rows, [[.integer(50)]])
        // And back: a disabled threshold stores them plain again.
        db.textCompressionThreshold = nil
        try db.execute("VACUUM")
        XCTAssertEqual(try pragma(db, "page_count"), plainPages)
        XCTAssertEqual(
            try db.query("SELECT count(*) FROM t WHERE doc = ?", arguments: [.text(text)]).rows, [[.integer(50)]])
    }

    func testVacuumIntoWritesACompactCopy() throws {
        let directory = try makeTemporaryDirectory()
        let db = try SQLConnection(engine: StorageEngine(path: directory.path("source.granite")))
        try makeShrinkable(db, seed: testSeed())
        let before = try snapshot(db)
        let pages = try pragma(db, "page_count")
        let copyPath = directory.path("copy.granite")
        try db.execute("VACUUM INTO ?", arguments: [.text(copyPath)])
        XCTAssertFalse(FileManager.default.fileExists(atPath: copyPath + "-wal"), "the copy was closed")
        XCTAssertEqual(try pragma(db, "page_count"), pages, "the source is left as it was")
        let copy = try SQLConnection(engine: StorageEngine(path: copyPath))
        XCTAssertEqual(try snapshot(copy), before)
        XCTAssertEqual(try pragma(copy, "freelist_count"), 0)
        XCTAssertLessThan(try pragma(copy, "page_count"), pages)
        XCTAssertEqual(try copy.query("PRAGMA integrity_check").rows, [[.text("ok")]])
        try copy.engine.close()

        // An existing file with content is refused; an empty one is written.
        XCTAssertThrowsError(try db.execute("VACUUM main INTO ?", arguments: [.text(copyPath)])) {
            XCTAssertEqual(($0 as? SQLExecutionError)?.message, "output file already exists")
        }
        let emptyPath = directory.path("empty.granite")
        XCTAssertTrue(FileManager.default.createFile(atPath: emptyPath, contents: Data()))
        try db.execute("VACUUM INTO '\(emptyPath)'")
        XCTAssertGreaterThan(fileSize(emptyPath), 0)
        XCTAssertThrowsError(try db.execute("VACUUM INTO 42")) {
            XCTAssertEqual(($0 as? SQLExecutionError)?.message, "non-text filename")
        }
        try db.engine.close()
    }

    /// A `VACUUM INTO` that fails (a damaged page of the source, a progress handler that stops it) removes the
    /// file it created and its side files, and empties again an empty file that was there, so that the same
    /// statement can be run again; the source is left as it was.
    func testAFailedVacuumIntoLeavesNoFileBehind() throws {
        struct Stop: Error {}
        let directory = try makeTemporaryDirectory()
        let sourcePath = directory.path("source.granite")
        var db = try SQLConnection(engine: StorageEngine(path: sourcePath))
        try makeShrinkable(db, seed: testSeed())
        let copyPath = directory.path("copy.granite")
        let sideFiles = [copyPath, copyPath + "-wal", copyPath + "-shm"]

        XCTAssertThrowsError(try db.vacuum(into: copyPath) { _ in throw Stop() }) { XCTAssertTrue($0 is Stop) }
        for path in sideFiles { XCTAssertFalse(FileManager.default.fileExists(atPath: path), path) }
        let emptyPath = directory.path("empty.granite")
        XCTAssertTrue(FileManager.default.createFile(atPath: emptyPath, contents: Data()))
        XCTAssertThrowsError(try db.vacuum(into: emptyPath) { _ in throw Stop() })
        XCTAssertEqual(fileSize(emptyPath), 0, "the empty file the copy found is kept, empty")
        XCTAssertFalse(FileManager.default.fileExists(atPath: emptyPath + "-wal"))
        try db.execute("VACUUM INTO ?", arguments: [.text(emptyPath)])
        XCTAssertGreaterThan(fileSize(emptyPath), 0, "a second try succeeds")

        let root = try db.query("SELECT rootpage FROM sqlite_schema WHERE name = 'doc'").rows
        guard case .integer(let rootPage)? = root.first?.first, let docRoot = PageNumber(exactly: rootPage) else {
            return XCTFail("no root page for doc: \(root)")
        }
        try db.engine.close()
        let (pageSize, leaves) = try tableLeafPages(ofFile: sourcePath, root: docRoot)
        let damaged = try XCTUnwrap(leaves.dropFirst(leaves.count / 2).first)
        try damagePage(damaged, ofFile: sourcePath, pageSize: pageSize)
        let damagedBytes = try Data(contentsOf: URL(fileURLWithPath: sourcePath))
        db = try SQLConnection(engine: StorageEngine(path: sourcePath))
        for _ in 0..<2 {
            XCTAssertThrowsError(try db.execute("VACUUM INTO ?", arguments: [.text(copyPath)])) {
                XCTAssertEqual($0 as? StorageError, .corrupt(page: damaged, "page checksum mismatch"))
            }
            for path in sideFiles { XCTAssertFalse(FileManager.default.fileExists(atPath: path), path) }
        }
        try db.engine.close()
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: sourcePath)), damagedBytes, "the source is untouched")
    }

    func testVacuumIsRefusedWhereSQLiteRefusesIt() throws {
        let db = try SQLConnection(engine: StorageEngine.inMemory())
        try db.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1), (2)")
        try db.execute("BEGIN")
        for sql in ["VACUUM", "VACUUM INTO '/nonexistent/never.granite'"] {
            XCTAssertThrowsError(try db.execute(sql)) {
                XCTAssertEqual(($0 as? SQLExecutionError)?.message, "cannot VACUUM from within a transaction")
            }
        }
        try db.execute("ROLLBACK")
        let running = try db.prepare("SELECT x FROM t")
        XCTAssertTrue(try running.stepRow())
        XCTAssertThrowsError(try db.execute("VACUUM")) {
            XCTAssertEqual(($0 as? SQLExecutionError)?.message, "cannot VACUUM - SQL statements in progress")
        }
        running.reset()
        XCTAssertThrowsError(try db.execute("VACUUM other")) {
            XCTAssertEqual(($0 as? SQLExecutionError)?.message, "unknown database other")
        }
        try db.execute("VACUUM; VACUUM main; VACUUM temp")
        XCTAssertEqual(try db.query("SELECT x FROM t ORDER BY x").rows, [[.integer(1)], [.integer(2)]])
    }
}
