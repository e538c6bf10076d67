import Foundation
import Granite
import GraniteTestSupport
import XCTest

/// Collects what the error log receives.
private final class ErrorLogRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var storedEntries: [(ResultCode, String)] = []

    var entries: [(ResultCode, String)] { lock.withLock { storedEntries } }

    func record(_ code: ResultCode, _ message: String) {
        lock.withLock { storedEntries.append((code, message)) }
    }
}

final class DatabaseLeftoversTests: XCTestCase {
    func testAllStatementsConsumeArgumentsInOrder() throws {
        try DatabaseQueue().write { db in
            try db.execute(sql: "CREATE TABLE t(a, b)")
            let statements = try db.allStatements(
                sql: "INSERT INTO t VALUES (?, ?); INSERT INTO t VALUES (?, 'x'); SELECT COUNT(*) FROM t",
                arguments: [1, 2, 3])
            var sqls: [String] = []
            while let statement = try statements.next() {
                sqls.append(statement.sql)
                try statement.execute()
            }
            XCTAssertEqual(
                sqls, ["INSERT INTO t VALUES (?, ?)", "INSERT INTO t VALUES (?, 'x')", "SELECT COUNT(*) FROM t"])
            XCTAssertEqual(
                try Row.fetchAll(db, sql: "SELECT a, b FROM t ORDER BY a"), [["a": 1, "b": 2], ["a": 3, "b": "x"]])
        }
    }

    func testAllStatementsPreparesEachStatementWhenReached() throws {
        try DatabaseQueue().write { db in
            let statements = try db.allStatements(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)")
            while let statement = try statements.next() { try statement.execute() }
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT a FROM t"), 1)
        }
    }

    func testAllStatementsThrowsOnLeftoverArguments() throws {
        try DatabaseQueue().write { db in
            let statements = try db.allStatements(sql: "SELECT ?; SELECT ?", arguments: [1, 2, 3])
            XCTAssertNotNil(try statements.next())
            XCTAssertNotNil(try statements.next())
            XCTAssertThrowsError(try statements.next()) { error in
                let error = error as! DatabaseError
                XCTAssertEqual(error.resultCode, .SQLITE_MISUSE)
                XCTAssertEqual(error.message, "wrong number of statement arguments: 3")
            }
        }
    }

    func testAllStatementsLiteral() throws {
        try DatabaseQueue().write { db in
            try db.execute(sql: "CREATE TABLE t(a)")
            let statements = try db.allStatements(literal: "INSERT INTO t VALUES (\(1)); INSERT INTO t VALUES (\(2))")
            let all = try Array(statements)
            XCTAssertEqual(all.count, 2)
            for statement in all { try statement.execute() }
            XCTAssertEqual(try Int.fetchAll(db, sql: "SELECT a FROM t ORDER BY a"), [1, 2])
        }
    }

    func testLastError() throws {
        try DatabaseQueue().inDatabase { db in
            XCTAssertEqual(db.lastErrorCode, .SQLITE_OK)
            XCTAssertEqual(db.lastErrorMessage, "not an error")
            try db.execute(sql: "CREATE TABLE t(a UNIQUE)")
            try db.execute(sql: "INSERT INTO t VALUES (1)")
            XCTAssertThrowsError(try db.execute(sql: "INSERT INTO t VALUES (1)"))
            XCTAssertEqual(db.lastErrorCode, .SQLITE_CONSTRAINT_UNIQUE)
            XCTAssertEqual(db.lastErrorMessage, "UNIQUE constraint failed: t.a")
            XCTAssertThrowsError(try db.execute(sql: "SELECT * FROM missing"))
            XCTAssertEqual(db.lastErrorCode, .SQLITE_ERROR)
            XCTAssertEqual(db.lastErrorMessage, "no such table: missing")
            try db.execute(sql: "SELECT 1")
            XCTAssertEqual(db.lastErrorCode, .SQLITE_OK)
        }
    }

    func testLogErrorReceivesEveryError() throws {
        let recorder = ErrorLogRecorder()
        Database.logError = { code, message in recorder.record(code, message) }
        defer { Database.logError = nil }
        try DatabaseQueue().inDatabase { db in
            XCTAssertThrowsError(try db.execute(sql: "SELECT * FROM missing"))
            try db.execute(sql: "CREATE TABLE t(a NOT NULL)")
            XCTAssertThrowsError(try db.execute(sql: "INSERT INTO t VALUES (NULL)"))
        }
        let entries = recorder.entries
        XCTAssertEqual(entries.map(\.0), [.SQLITE_ERROR, .SQLITE_CONSTRAINT_NOTNULL])
        XCTAssertEqual(entries.map(\.1), ["no such table: missing", "NOT NULL constraint failed: t.a"])
    }

    func testReadOnlyRefusesWritesAndNests() throws {
        try DatabaseQueue().write { db in
            try db.execute(sql: "CREATE TABLE t(a)")
            try db.readOnly {
                XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t"), 0)
                try db.readOnly {}
                XCTAssertThrowsError(try db.execute(sql: "INSERT INTO t VALUES (1)")) { error in
                    let error = error as! DatabaseError
                    XCTAssertEqual(error.resultCode, .SQLITE_READONLY)
                    XCTAssertEqual(error.message, "attempt to write a readonly database")
                }
            }
            try db.execute(sql: "INSERT INTO t VALUES (1)")
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t"), 1)
        }
    }

    func testReleaseMemoryKeepsTheDataReadable() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t(a)")
            for i in 0..<500 {
                try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [String(repeating: "x", count: i)])
            }
        }
        let statement = try dbQueue.inDatabase { db in try db.cachedStatement(sql: "SELECT COUNT(*) FROM t") }
        dbQueue.releaseMemory()
        try dbQueue.inDatabase { db in
            XCTAssertFalse(statement === (try db.cachedStatement(sql: "SELECT COUNT(*) FROM t")))
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t"), 500)
            db.releaseMemory()
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT SUM(length(a)) FROM t"), 499 * 500 / 2)
        }
    }

    func testPoolReleaseMemoryAndInvalidateReadOnlyConnections() throws {
        let directory = try makeTemporaryDirectory(prefix: "granite-leftovers")
        let dbPool = try DatabasePool(path: directory.path("db.granite"))
        try dbPool.write { db in try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        XCTAssertEqual(try dbPool.read { db in try Int.fetchOne(db, sql: "SELECT a FROM t") }, 1)
        dbPool.releaseMemory()
        XCTAssertEqual(try dbPool.read { db in try Int.fetchOne(db, sql: "SELECT a FROM t") }, 1)
        dbPool.invalidateReadOnlyConnections()
        XCTAssertEqual(try dbPool.read { db in try Int.fetchOne(db, sql: "SELECT a FROM t") }, 1)
        let released = expectation(description: "released")
        dbPool.releaseMemoryEventually()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { released.fulfill() }
        wait(for: [released], timeout: 5)
        XCTAssertEqual(try dbPool.read { db in try Int.fetchOne(db, sql: "SELECT a FROM t") }, 1)
    }

    func testDatabaseValueFetchOneTellsNullFromNoRow() throws {
        try DatabaseQueue().write { db in
            try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (NULL)")
            XCTAssertEqual(try DatabaseValue.fetchOne(db, sql: "SELECT a FROM t"), .null)
            XCTAssertNil(try DatabaseValue.fetchOne(db, sql: "SELECT a FROM t WHERE 0"))
            XCTAssertEqual(try DatabaseValue.fetchOne(db.makeStatement(sql: "SELECT 12")), 12.databaseValue)
            XCTAssertEqual(try DatabaseValue.fetchOne(db, SQLRequest<DatabaseValue>(sql: "SELECT NULL")), .null)
        }
    }

    func testSchemaRecordsAreFetchable() throws {
        try DatabaseQueue().write { db in
            try db.execute(sql: "CREATE TABLE parent(id INTEGER PRIMARY KEY)")
            try db.execute(sql: "CREATE TABLE child(id INTEGER PRIMARY KEY, parentId REFERENCES parent(id))")
            let columns = try ColumnInfo.fetchAll(db, sql: "PRAGMA table_info(child)")
            XCTAssertEqual(columns.map(\.name), ["id", "parentId"])
            XCTAssertEqual(columns.map(\.primaryKeyIndex), [1, 0])
            // The columns of PRAGMA foreign_key_check, in its order.
            let violations = try ForeignKeyViolation.fetchAll(
                db, sql: "SELECT 'child' AS \"table\", 7 AS rowid, 'parent' AS parent, 0 AS fkid")
            XCTAssertEqual(violations.count, 1)
            let violation = try XCTUnwrap(violations.first)
            XCTAssertEqual(violation.originTable, "child")
            XCTAssertEqual(violation.originRowID, 7)
            XCTAssertEqual(violation.destinationTable, "parent")
            XCTAssertEqual(violation.foreignKeyId, 0)
            let withoutRowID = ForeignKeyViolation(row: ["table": "child", "rowid": nil, "parent": "parent", "fkid": 2])
            XCTAssertNil(withoutRowID.originRowID)
            XCTAssertEqual(withoutRowID.foreignKeyId, 2)
        }
    }

    func testDescriptionsLimitsAndVersion() throws {
        var configuration = Configuration()
        configuration.label = "Leftovers"
        try DatabaseQueue(configuration: configuration).inDatabase { db in
            XCTAssertEqual(db.debugDescription, "<Database: Leftovers>")
            XCTAssertEqual(db.maximumStatementArgumentCount, 32766)
            let placeholders = Array(repeating: "?", count: db.maximumStatementArgumentCount).joined(separator: ",")
            XCTAssertNoThrow(try db.makeStatement(sql: "SELECT \(placeholders)"))
        }
        XCTAssertEqual(Database.sqliteLibVersionNumber, 3_040_000)
        XCTAssertEqual(Database.suspendNotification.rawValue, "GRDB.Database.Suspend")
        XCTAssertEqual(Database.resumeNotification.rawValue, "GRDB.Database.Resume")
    }

    func testConfigurationLeftovers() throws {
        var configuration = Configuration()
        XCTAssertFalse(configuration.observesSuspensionNotifications)
        XCTAssertNil(configuration.targetQueue)
        XCTAssertNil(configuration.writeTargetQueue)
        XCTAssertNil(configuration.schemaSource)
        XCTAssertEqual(configuration.readQoS, configuration.qos)
        XCTAssertEqual(configuration.writeQoS, configuration.qos)
        configuration.targetQueue = DispatchQueue(label: "target", qos: .utility)
        configuration.writeTargetQueue = DispatchQueue(label: "write", qos: .background)
        XCTAssertEqual(configuration.readQoS, .utility)
        XCTAssertEqual(configuration.writeQoS, .background)
        configuration.busyMode = .callback { tries in tries < 3 }
        configuration.observesSuspensionNotifications = true
        let dbQueue = try DatabaseQueue(configuration: configuration)
        try dbQueue.write { db in try db.execute(sql: "CREATE TABLE t(a)") }
        NotificationCenter.default.post(name: Database.suspendNotification, object: nil)
        NotificationCenter.default.post(name: Database.resumeNotification, object: nil)
        XCTAssertEqual(try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") }, 0)
    }

    func testSchemaSourceIsScopedByWithSchemaSource() throws {
        struct Source: DatabaseSchemaSource {
            let columns: [String]?
            func columnsForPrimaryKey(_ db: Database, inView view: DatabaseObjectID) throws -> [String]? { columns }
        }
        var configuration = Configuration()
        configuration.schemaSource = Source(columns: ["a"])
        try DatabaseQueue(configuration: configuration).inDatabase { db in
            let view = DatabaseObjectID(name: "v", schemaID: .main)
            XCTAssertEqual(try db.schemaSource?.columnsForPrimaryKey(db, inView: view), ["a"])
            try db.withSchemaSource(Source(columns: nil).then(Source(columns: ["b"]))) {
                XCTAssertEqual(try db.schemaSource?.columnsForPrimaryKey(db, inView: view), ["b"])
            }
            db.withSchemaSource(nil) { XCTAssertNil(db.schemaSource) }
            XCTAssertEqual(try db.schemaSource?.columnsForPrimaryKey(db, inView: view), ["a"])
            db.clearSchemaCache()
        }
    }
}
