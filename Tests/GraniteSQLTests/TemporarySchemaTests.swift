import Foundation
import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// The temporary schema's life: private to its connection, gone when it closes, never written to the file, and
/// undone with the transaction, savepoint or statement that made it.
final class TemporarySchemaTests: XCTestCase {
    func testTemporaryObjectsAreInvisibleToAnotherConnection() throws {
        let path = try makeTemporaryDatabasePath()
        let engine = try StorageEngine(path: path)
        let first = try SQLConnection(engine: engine)
        let second = try SQLConnection(engine: try StorageEngine(sharing: engine))
        try first.execute("CREATE TABLE t(x)")
        try first.execute("INSERT INTO t VALUES (1)")
        try first.execute("CREATE TEMP TABLE t(x)")
        try first.execute("INSERT INTO t VALUES (2)")
        try first.execute("CREATE TEMP TABLE scratch(y)")
        try first.execute("CREATE TEMP VIEW tv AS SELECT * FROM scratch")
        XCTAssertEqual(try first.query("SELECT x FROM t").rows, [[.integer(2)]])
        XCTAssertEqual(try second.query("SELECT x FROM t").rows, [[.integer(1)]])
        XCTAssertThrowsError(try second.query("SELECT * FROM scratch")) { error in
            XCTAssertEqual((error as? SQLExecutionError)?.message, "no such table: scratch")
        }
        XCTAssertThrowsError(try second.query("SELECT * FROM tv"))
        XCTAssertEqual(try second.query("SELECT count(*) FROM sqlite_temp_master").rows, [[.integer(0)]])
        // The second connection's own temporary table of the same name is another table.
        try second.execute("CREATE TEMP TABLE scratch(z)")
        try second.execute("INSERT INTO scratch VALUES (7)")
        XCTAssertEqual(try first.query("SELECT count(*) FROM scratch").rows, [[.integer(0)]])
        XCTAssertEqual(try second.query("SELECT z FROM scratch").rows, [[.integer(7)]])
    }

    func testTemporaryObjectsVanishWhenTheConnectionCloses() throws {
        let path = try makeTemporaryDatabasePath()
        do {
            let db = try SQLConnection(engine: try StorageEngine(path: path))
            try db.execute("CREATE TABLE kept(a)")
            try db.execute("CREATE TEMP TABLE gone(a)")
            try db.execute("INSERT INTO gone VALUES (1)")
            try db.execute("CREATE INDEX gone_a ON gone(a)")
            try db.engine.close()
        }
        let reopened = try SQLConnection(engine: try StorageEngine(path: path))
        XCTAssertEqual(
            try reopened.query("SELECT type, name FROM sqlite_master").rows, [[.text("table"), .text("kept")]])
        XCTAssertEqual(try reopened.query("SELECT count(*) FROM sqlite_temp_master").rows, [[.integer(0)]])
        XCTAssertThrowsError(try reopened.query("SELECT * FROM gone"))
    }

    func testTemporaryWritesLeaveTheFileUnchanged() throws {
        let path = try makeTemporaryDatabasePath()
        let db = try SQLConnection(engine: try StorageEngine(path: path))
        try db.execute("CREATE TABLE t(a, b)")
        try db.execute("INSERT INTO t VALUES (1, 'one')")
        let before = try Self.fileBytes(path)
        try db.execute("CREATE TEMP TABLE scratch(a, b)")
        for k in 0..<500 {
            try db.execute("INSERT INTO scratch VALUES (?, ?)", arguments: [.integer(Int64(k)), .text("row \(k)")])
        }
        try db.execute("CREATE INDEX scratch_b ON scratch(b)")
        try db.execute("UPDATE scratch SET b = b || '!' WHERE a % 3 = 0")
        try db.execute("BEGIN")
        try db.execute("DELETE FROM scratch WHERE a < 100")
        try db.execute("CREATE TEMP VIEW sv AS SELECT count(*) FROM scratch")
        try db.execute("CREATE TEMP TRIGGER st AFTER DELETE ON scratch BEGIN SELECT 1; END")
        try db.execute("COMMIT")
        try db.execute("DROP TABLE scratch")
        XCTAssertEqual(try Self.fileBytes(path), before)
        XCTAssertEqual(try db.query("SELECT name FROM sqlite_master").rows, [[.text("t")]])
    }

    func testRollbackUndoesTemporaryChanges() throws {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        try db.execute("BEGIN")
        try db.execute("CREATE TEMP TABLE t(a)")
        try db.execute("INSERT INTO t VALUES (1)")
        try db.execute("ROLLBACK")
        XCTAssertThrowsError(try db.query("SELECT * FROM t"))
        XCTAssertEqual(try db.query("SELECT count(*) FROM sqlite_temp_master").rows, [[.integer(0)]])

        try db.execute("CREATE TEMP TABLE t(a UNIQUE)")
        try db.execute("SAVEPOINT s")
        try db.execute("INSERT INTO t VALUES (1)")
        try db.execute("SAVEPOINT nested")
        try db.execute("INSERT INTO t VALUES (2)")
        try db.execute("CREATE TEMP TABLE u(b)")
        try db.execute("ROLLBACK TO nested")
        XCTAssertEqual(try db.query("SELECT a FROM t").rows, [[.integer(1)]])
        XCTAssertThrowsError(try db.query("SELECT * FROM u"))
        // A failing statement's temporary writes are undone, the earlier ones kept.
        XCTAssertThrowsError(try db.execute("INSERT INTO t VALUES (3), (1)"))
        XCTAssertEqual(try db.query("SELECT a FROM t").rows, [[.integer(1)]])
        try db.execute("RELEASE s")
        XCTAssertEqual(try db.query("SELECT a FROM t").rows, [[.integer(1)]])
        XCTAssertThrowsError(try db.execute("INSERT INTO t VALUES (4), (1)"))
        XCTAssertEqual(try db.query("SELECT a FROM t").rows, [[.integer(1)]])
    }

    func testTheTemporarySchemaIsMadeOnFirstUse() throws {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        try db.execute("CREATE TABLE t(a)")
        try db.execute("INSERT INTO t VALUES (1)")
        _ = try db.query("SELECT * FROM t")
        _ = try db.query("SELECT * FROM main.t")
        // Reading the empty temporary schema's table does not make the schema (nor change the schema version).
        let version = db.catalog.schemaVersion
        XCTAssertEqual(try db.query("SELECT count(*) FROM sqlite_temp_master").rows, [[.integer(0)]])
        XCTAssertEqual(try db.query("SELECT count(*) FROM temp.sqlite_master").rows, [[.integer(0)]])
        XCTAssertFalse(db.catalog.hasTemporarySchema)
        XCTAssertEqual(db.catalog.schemaVersion, version)
        try db.execute("CREATE TEMP TABLE u(b)")
        XCTAssertTrue(db.catalog.hasTemporarySchema)
    }

    func testAReadOnlyConnectionWritesItsTemporarySchemaOnly() throws {
        let path = try makeTemporaryDatabasePath()
        do {
            let db = try SQLConnection(engine: try StorageEngine(path: path))
            try db.execute("CREATE TABLE t(a); INSERT INTO t VALUES (1), (2)")
            try db.engine.close()
        }
        var options = StorageOptions()
        options.readOnly = true
        let db = try SQLConnection(engine: try StorageEngine(path: path, options: options))
        try db.execute("CREATE TEMP TABLE s(a UNIQUE)")
        try db.execute("INSERT INTO s SELECT a * 10 FROM t")
        try db.execute("CREATE INDEX temp.si ON s(a)")
        try db.execute("UPDATE s SET a = a + 1 WHERE a = 10")
        XCTAssertEqual(try db.query("SELECT a FROM s ORDER BY a").rows, [[.integer(11)], [.integer(20)]])
        // A failing statement's temporary changes are undone.
        XCTAssertThrowsError(try db.execute("INSERT INTO s VALUES (30), (20)"))
        XCTAssertEqual(try db.query("SELECT count(*) FROM s").rows, [[.integer(2)]])
        XCTAssertThrowsError(try db.execute("INSERT INTO t VALUES (3)"))
        XCTAssertThrowsError(try db.execute("CREATE TABLE u(a)"))
        try db.execute("DROP TABLE s")
        XCTAssertEqual(try db.query("SELECT count(*) FROM sqlite_temp_master").rows, [[.integer(0)]])
    }

    func testTemporaryWritesInsideASnapshotKeepTheSnapshot() throws {
        let path = try makeTemporaryDatabasePath()
        let engine = try StorageEngine(path: path)
        let writer = try SQLConnection(engine: engine)
        try writer.execute("CREATE TABLE t(a); INSERT INTO t VALUES (1)")
        let reader = try SQLConnection(engine: try StorageEngine(sharing: engine))
        try reader.beginSnapshotRead()
        try reader.execute("CREATE TEMP TABLE copy(a)")
        try writer.execute("INSERT INTO t VALUES (2)")
        try reader.execute("INSERT INTO copy SELECT a FROM t")
        XCTAssertEqual(try reader.query("SELECT a FROM copy").rows, [[.integer(1)]])
        XCTAssertTrue(reader.isInSnapshotRead)
        try reader.endSnapshotRead()
        XCTAssertEqual(try reader.query("SELECT count(*) FROM t").rows, [[.integer(2)]])
    }

    /// The database file's bytes and its log's.
    static func fileBytes(_ path: String) throws -> [Data] {
        [path, path + "-wal"].map { FileManager.default.contents(atPath: $0) ?? Data() }
    }
}
