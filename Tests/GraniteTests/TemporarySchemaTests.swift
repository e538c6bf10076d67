import Foundation
import Granite
import GraniteTestSupport
import XCTest

/// The temporary schema through the GRDB API: `create(table:options: .temporary)` and friends, introspection of
/// temporary objects (alone or shadowing main ones), in a queue and in a pool's writer.
final class TemporarySchemaTests: XCTestCase {
    private func exerciseTemporarySchema(_ db: Database) throws {
        try db.create(table: "player") { t in
            t.primaryKey("id", .integer)
            t.column("name", .text)
        }
        try db.execute(sql: "INSERT INTO player VALUES (1, 'Arthur')")
        try db.create(table: "scratch", options: .temporary) { t in
            t.primaryKey("id", .integer)
            t.column("score", .integer).indexed()
        }
        try db.execute(sql: "INSERT INTO scratch SELECT id, 10 FROM player")
        XCTAssertTrue(try db.tableExists("scratch"))
        XCTAssertTrue(try db.tableExists("scratch", in: "temp"))
        XCTAssertFalse(try db.tableExists("scratch", in: "main"))
        XCTAssertEqual(try db.columns(in: "scratch").map(\.name), ["id", "score"])
        XCTAssertEqual(try db.indexes(on: "scratch").map(\.columns), [["score"]])
        XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT score FROM temp.scratch WHERE id = 1"), 10)

        // A temporary table shadows the main one of its name; `main.` reaches the main one.
        try db.create(table: "player", options: .temporary) { t in t.column("nickname", .text) }
        XCTAssertEqual(try db.columns(in: "player").map(\.name), ["nickname"])
        XCTAssertEqual(try db.columns(in: "player", in: "main").map(\.name), ["id", "name"])
        XCTAssertEqual(try String.fetchOne(db, sql: "SELECT name FROM main.player"), "Arthur")
        try db.drop(table: "player")
        XCTAssertEqual(try db.columns(in: "player").map(\.name), ["id", "name"])

        try db.create(view: "best", options: .temporary, asLiteral: "SELECT * FROM scratch WHERE score > 5")
        XCTAssertTrue(try db.viewExists("best"))
        XCTAssertTrue(try db.viewExists("best", in: "temp"))
        try db.execute(
            sql: "CREATE TEMP TRIGGER playerAdded AFTER INSERT ON player BEGIN INSERT INTO scratch VALUES (new.id, 0); END")
        XCTAssertTrue(try db.triggerExists("playerAdded"))
        XCTAssertTrue(try db.triggerExists("playerAdded", in: "temp"))
        XCTAssertFalse(try db.triggerExists("playerAdded", in: "main"))
        try db.execute(sql: "INSERT INTO player VALUES (2, 'Barbara')")
        XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM scratch"), 2)
        XCTAssertEqual(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master"), ["player"])
    }

    func testTemporaryTablesInADatabaseQueue() throws {
        let path = try makeTemporaryDatabasePath()
        do {
            let dbQueue = try DatabaseQueue(path: path)
            try dbQueue.write { db in try exerciseTemporarySchema(db) }
            // A transaction that rolls back takes its temporary changes with it.
            try dbQueue.inTransaction { db in
                try db.execute(sql: "DELETE FROM scratch")
                return .rollback
            }
            XCTAssertEqual(try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM scratch") }, 2)
        }
        // Gone with the connection.
        let reopened = try DatabaseQueue(path: path)
        try reopened.read { db in
            XCTAssertFalse(try db.tableExists("scratch"))
            XCTAssertTrue(try db.tableExists("player"))
        }
    }

    func testTemporaryTablesInAPoolWriter() throws {
        let path = try makeTemporaryDatabasePath()
        let dbPool = try DatabasePool(path: path)
        try dbPool.write { db in try exerciseTemporarySchema(db) }
        try dbPool.write { db in
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM scratch"), 2)
        }
        // The readers are other connections: they do not see the writer's temporary schema.
        try dbPool.read { db in
            XCTAssertFalse(try db.tableExists("scratch"))
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM player"), 2)
        }
    }

    func testAPoolReaderCreatesTemporaryTablesOutsideReadOnlyBlocks() throws {
        let path = try makeTemporaryDatabasePath()
        let dbPool = try DatabasePool(path: path, configuration: {
            var configuration = Configuration()
            configuration.maximumReaderCount = 1
            return configuration
        }())
        try dbPool.write { db in try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1), (2)") }
        // A reader is a read-only connection, which SQLite lets write its temporary schema, in its snapshot.
        let inRead = try dbPool.read { db -> Int? in
            try db.execute(sql: "CREATE TEMP TABLE r(a)")
            try db.execute(sql: "INSERT INTO r SELECT a FROM t")
            // `readOnly` is SQLite's `query_only`: every write is refused there.
            XCTAssertThrowsError(try db.readOnly { try db.execute(sql: "INSERT INTO r VALUES (0)") }) { error in
                XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_READONLY)
            }
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM r")
        }
        XCTAssertEqual(inRead, 2)
        let count = try dbPool.unsafeRead { db -> Int? in
            try db.execute(sql: "CREATE TEMP TABLE IF NOT EXISTS s(a)")
            try db.execute(sql: "INSERT INTO s SELECT a FROM t")
            XCTAssertThrowsError(try db.execute(sql: "INSERT INTO t VALUES (3)")) { error in
                XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_READONLY)
            }
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM s")
        }
        XCTAssertEqual(count, 2)
        try dbPool.write { db in
            XCTAssertFalse(try db.tableExists("s"))
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM t"), 2)
        }
    }
}
