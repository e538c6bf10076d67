import Foundation
import Granite
import XCTest

final class DatabaseTests: XCTestCase {
    func testChangesAndRowIDs() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, a)")
            try db.execute(sql: "INSERT INTO t (a) VALUES (1), (2), (3)")
            XCTAssertEqual(db.lastInsertedRowID, 3)
            XCTAssertEqual(db.changesCount, 3)
            try db.execute(sql: "UPDATE t SET a = a + 1 WHERE id > 1")
            XCTAssertEqual(db.changesCount, 2)
            XCTAssertEqual(db.totalChangesCount, 5)
            XCTAssertTrue(db.isInsideTransaction)
        }
        try dbQueue.writeWithoutTransaction { db in XCTAssertFalse(db.isInsideTransaction) }
    }

    func testStatements() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t (a, b)")
            let insert = try db.makeStatement(sql: "INSERT INTO t VALUES (?, ?);")
            XCTAssertEqual(insert.sql, "INSERT INTO t VALUES (?, ?)")
            XCTAssertFalse(insert.isReadonly)
            try insert.execute(arguments: [1, "a"])
            insert.arguments = [2, "b"]
            XCTAssertEqual(insert.arguments, [2, "b"])
            try insert.execute()
            XCTAssertThrowsError(try insert.setArguments([1]))
            let cached = try db.cachedStatement(sql: "SELECT a, b FROM t ORDER BY a")
            XCTAssertTrue(cached === (try db.cachedStatement(sql: "SELECT a, b FROM t ORDER BY a")))
            XCTAssertEqual(cached.columnNames, ["a", "b"])
            XCTAssertEqual(cached.columnCount, 2)
            XCTAssertEqual(cached.index(ofColumn: "B"), 1)
            XCTAssertTrue(cached.isReadonly)
            XCTAssertEqual(try String.fetchAll(db.cachedStatement(sql: "SELECT b FROM t ORDER BY a")), ["a", "b"])
            XCTAssertThrowsError(try db.makeStatement(sql: "SELECT 1; SELECT 2")) { error in
                XCTAssertEqual((error as! DatabaseError).resultCode, .SQLITE_MISUSE)
            }
        }
    }

    func testSQLLiterals() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT)")
            let name = "O'Brien"
            try db.execute(literal: "INSERT INTO player (id, name) VALUES (\(1), \(name))")
            try db.execute(literal: "INSERT INTO player (id, name) VALUES (\(2), \(nil as String?))")
            let ids = [1, 2, 3]
            let query: SQL = "SELECT name FROM player WHERE id IN \(ids) ORDER BY id"
            let (sql, arguments) = try query.build(db)
            XCTAssertEqual(sql, "SELECT name FROM player WHERE id IN (?,?,?) ORDER BY id")
            XCTAssertEqual(arguments, [1, 2, 3])
            XCTAssertEqual(try String?.fetchAll(db, literal: query), ["O'Brien", nil])
            var composed: SQL = "SELECT \(sql: "id") FROM player"
            composed += " WHERE \(identifier: "name") = \(name)"
            XCTAssertEqual(try Int.fetchOne(db, literal: composed), 1)
            let joined = [SQL(sql: "a"), SQL(1.databaseValue)].joined(separator: ", ")
            XCTAssertEqual(try joined.build(db).sql, "a, ?")
        }
    }

    func testTraceShowsExpandedSQL() throws {
        let dbQueue = try DatabaseQueue()
        let events = EventLog()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t (a, b, c, d, e)")
            db.trace { events.append($0.expandedDescription, $0.description) }
            try db.execute(
                sql: "INSERT INTO t VALUES (?, ?, :c, ?, ?)",
                arguments: [nil, 12, "it's", 1.5, Data([0x01, 0x02, 0xFF])] as StatementArguments)
            try db.execute(sql: "INSERT INTO t VALUES (?, ?, ?, ?, ?)", arguments: [1.0, 1e20, 0.1, -0.0, ""])
            db.trace(nil)
            try db.execute(sql: "DELETE FROM t")
        }
        XCTAssertEqual(
            events.expanded,
            [
                "INSERT INTO t VALUES (NULL, 12, 'it''s', 1.5, x'0102ff')",
                "INSERT INTO t VALUES (1.0, 1.0e+20, 0.1, 0.0, '')",
            ])
        XCTAssertEqual(events.plain.first, "INSERT INTO t VALUES (?, ?, :c, ?, ?)")
    }

    func testProfileEvents() throws {
        let dbQueue = try DatabaseQueue()
        let events = EventLog()
        try dbQueue.inDatabase { db in
            db.trace(options: .profile) { events.append($0.expandedDescription, $0.description) }
            _ = try Int.fetchAll(db, sql: "SELECT 1")
        }
        XCTAssertEqual(events.expanded.count, 1)
        XCTAssertTrue(events.expanded[0].hasSuffix("s SELECT 1"), events.expanded[0])
    }

    func testErrors() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, email TEXT UNIQUE, name TEXT NOT NULL)")
            try db.execute(sql: "INSERT INTO player VALUES (1, 'a@x', 'A')")
            do {
                try db.execute(sql: "INSERT INTO player VALUES (?, ?, ?)", arguments: [2, "a@x", "B"])
                XCTFail("expected an error")
            } catch DatabaseError.SQLITE_CONSTRAINT_UNIQUE {
                // matched by extended code
            }
            do {
                try db.execute(sql: "INSERT INTO player VALUES (3, 'c@x', NULL)")
                XCTFail("expected an error")
            } catch let error as DatabaseError {
                XCTAssertEqual(error.resultCode, .SQLITE_CONSTRAINT)
                XCTAssertEqual(error.extendedResultCode, .SQLITE_CONSTRAINT_NOTNULL)
                XCTAssertEqual(error.message, "NOT NULL constraint failed: player.name")
                XCTAssertEqual(error.sql, "INSERT INTO player VALUES (3, 'c@x', NULL)")
                XCTAssertEqual(
                    error.description,
                    "SQLite error 19: NOT NULL constraint failed: player.name - while executing "
                        + "`INSERT INTO player VALUES (3, 'c@x', NULL)`")
            }
            do {
                try db.execute(sql: "INSERT INTO player VALUES (1, 'z', 'Z')")
            } catch ResultCode.SQLITE_CONSTRAINT {
                // a primary code matches the whole family
            }
            XCTAssertThrowsError(try db.execute(sql: "SELECT * FROM nope")) { error in
                let error = error as! DatabaseError
                XCTAssertEqual(error.resultCode, .SQLITE_ERROR)
                XCTAssertEqual(error.message, "no such table: nope")
            }
            XCTAssertThrowsError(try db.execute(sql: "SELEC 1")) { error in
                XCTAssertEqual((error as! DatabaseError).message, "near \"SELEC\": syntax error")
            }
            // The failing statements changed nothing.
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player"), 1)
        }
        let error = DatabaseError(
            resultCode: .SQLITE_CONSTRAINT_UNIQUE, message: "m", sql: "UPDATE t SET a = ?", arguments: [1])
        XCTAssertEqual(error.description, "SQLite error 19: m - while executing `UPDATE t SET a = ?`")
        XCTAssertEqual(
            error.expandedDescription, "SQLite error 19: m - while executing `UPDATE t SET a = ?` with arguments [1]")
        XCTAssertEqual(DatabaseError().message, "SQL logic error")
        XCTAssertEqual(ResultCode.SQLITE_CONSTRAINT_UNIQUE.primaryResultCode, .SQLITE_CONSTRAINT)
        XCTAssertEqual(ResultCode.SQLITE_BUSY.description, "5 (database is locked)")
    }

    func testReadOnlyAccessRefusesWrites() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t (a)") }
        XCTAssertThrowsError(try dbQueue.read { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }) { error in
            XCTAssertEqual((error as! DatabaseError).resultCode, .SQLITE_READONLY)
        }
        XCTAssertEqual(try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") }, 0)
    }
}

/// Collects trace events from closures.
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var expanded: [String] = []
    private(set) var plain: [String] = []
    func append(_ expandedText: String, _ plainText: String) {
        lock.lock()
        expanded.append(expandedText)
        plain.append(plainText)
        lock.unlock()
    }
}
