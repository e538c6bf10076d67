import Foundation
import Granite
import GraniteTestSupport
import XCTest

/// Every error type the engine throws (``SQLEvaluationError``, ``SQLExecutionError``, ``SQLSyntaxError``,
/// ``SchemaError``, ``StorageError``) reaches API callers as a `DatabaseError` with SQLite's result code, SQLite's
/// message and GRDB's description.
final class DatabaseErrorMappingTests: XCTestCase {
    /// Runs `body`, which must throw a `DatabaseError` with `code`, `message` and, when given, `description`.
    func expect(
        _ code: ResultCode, _ message: String, description: String? = nil, file: StaticString = #filePath,
        line: UInt = #line, _ body: () throws -> Void
    ) {
        do {
            try body()
            XCTFail("expected \(message)", file: file, line: line)
        } catch let error as DatabaseError {
            XCTAssertEqual(error.extendedResultCode, code, file: file, line: line)
            XCTAssertEqual(error.message, message, file: file, line: line)
            if let description { XCTAssertEqual(error.description, description, file: file, line: line) }
        } catch {
            XCTFail("\(type(of: error)) is not a DatabaseError: \(error)", file: file, line: line)
        }
    }

    func makeQueue() throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t(a)")
            try db.execute(sql: "INSERT INTO t VALUES (9223372036854775807), (1)")
        }
        return dbQueue
    }

    // MARK: Suggestions

    /// The message of an unknown name is SQLite's text exactly, as GRDB apps compare it; the close existing name
    /// Granite finds is in `suggestion`, not in the message.
    func testSuggestionsStayOutOfTheMessage() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player(name TEXT)")
            for (sql, message, suggestion) in [
                ("SELECT * FROM playr", "no such table: playr", "player"),
                ("SELECT nmae FROM player", "no such column: nmae", "name"),
                ("SELECT uper(name) FROM player", "no such function: uper", "upper"),
                ("DROP TABLE playr", "no such table: playr", "player"),
            ] {
                do {
                    try db.execute(sql: sql)
                    XCTFail("\(sql) ran")
                } catch let error as DatabaseError {
                    XCTAssertEqual(error.resultCode, .SQLITE_ERROR, sql)
                    XCTAssertEqual(error.message, message, sql)
                    XCTAssertEqual(error.suggestion, suggestion, sql)
                    XCTAssertEqual(error.description, "SQLite error 1: \(message) - while executing `\(sql)`")
                }
            }
            do {
                try db.execute(sql: "SELECT * FROM zzzzzz")
                XCTFail("ran")
            } catch let error as DatabaseError {
                XCTAssertNil(error.suggestion)
            }
        }
    }

    // MARK: SQLEvaluationError

    func testIntegerOverflowInSum() throws {
        let dbQueue = try makeQueue()
        try dbQueue.read { db in
            expect(
                .SQLITE_ERROR, "integer overflow",
                description: "SQLite error 1: integer overflow - while executing `SELECT sum(a) FROM t`"
            ) { _ = try Row.fetchAll(db, sql: "SELECT sum(a) FROM t") }
        }
    }

    func testIntegerOverflowInFunction() throws {
        let dbQueue = try makeQueue()
        try dbQueue.write { db in
            expect(
                .SQLITE_ERROR, "integer overflow",
                description: "SQLite error 1: integer overflow - while executing `SELECT abs(?)`"
            ) { _ = try Row.fetchAll(db, sql: "SELECT abs(?)", arguments: [Int64.min]) }
            expect(.SQLITE_ERROR, "integer overflow") {
                try db.execute(sql: "UPDATE t SET a = abs(-9223372036854775807 - 1)")
            }
        }
    }

    func testFunctionArgumentErrors() throws {
        let dbQueue = try makeQueue()
        try dbQueue.write { db in
            expect(.SQLITE_ERROR, "ESCAPE expression must be a single character") {
                _ = try Row.fetchAll(db, sql: "SELECT a FROM t WHERE 'x' LIKE 'x' ESCAPE 'ab'")
            }
            expect(.SQLITE_ERROR, "LIKE or GLOB pattern too complex") {
                _ = try Row.fetchAll(db, sql: "SELECT 'a' LIKE ?", arguments: [String(repeating: "%", count: 60_000)])
            }
        }
    }

    func testNonDeterministicUseInAnIndex() throws {
        let dbQueue = try makeQueue()
        try dbQueue.write { db in
            expect(
                .SQLITE_ERROR, "non-deterministic use of date() in an index",
                description: "SQLite error 1: non-deterministic use of date() in an index - while executing "
                    + "`CREATE INDEX i ON t(date('now'))`"
            ) { try db.execute(sql: "CREATE INDEX i ON t(date('now'))") }
        }
    }

    // MARK: SQLExecutionError

    func testExecutionErrors() throws {
        let dbQueue = try makeQueue()
        try dbQueue.write { db in
            expect(
                .SQLITE_ERROR, "no such table: nope",
                description: "SQLite error 1: no such table: nope - while executing `SELECT * FROM nope`"
            ) { _ = try Row.fetchAll(db, sql: "SELECT * FROM nope") }
            expect(
                .SQLITE_MISMATCH, "datatype mismatch",
                description: "SQLite error 20: datatype mismatch - while executing `SELECT 1 LIMIT 'x'`"
            ) { _ = try Row.fetchAll(db, sql: "SELECT 1 LIMIT 'x'") }
            try db.execute(sql: "CREATE UNIQUE INDEX u ON t(a)")
            expect(
                .SQLITE_CONSTRAINT_UNIQUE, "UNIQUE constraint failed: t.a",
                description: "SQLite error 19: UNIQUE constraint failed: t.a - while executing "
                    + "`INSERT INTO t VALUES (1)`"
            ) { try db.execute(sql: "INSERT INTO t VALUES (1)") }
        }
    }

    // MARK: SQLSyntaxError

    func testSyntaxError() throws {
        let dbQueue = try makeQueue()
        try dbQueue.read { db in
            expect(
                .SQLITE_ERROR, "near \"SELEC\": syntax error",
                description: "SQLite error 1: near \"SELEC\": syntax error - while executing `SELEC a FROM t`"
            ) { _ = try Row.fetchAll(db, sql: "SELEC a FROM t") }
        }
    }

    // MARK: SchemaError

    func testSchemaErrors() throws {
        let dbQueue = try makeQueue()
        try dbQueue.write { db in
            expect(
                .SQLITE_ERROR, "table t already exists",
                description: "SQLite error 1: table t already exists - while executing `CREATE TABLE t(b)`"
            ) { try db.execute(sql: "CREATE TABLE t(b)") }
            expect(.SQLITE_ERROR, "non-deterministic functions prohibited in index expressions") {
                try db.execute(sql: "CREATE INDEX i ON t(a + random())")
            }
            expect(.SQLITE_ERROR, "subqueries prohibited in CHECK constraints") {
                try db.execute(sql: "CREATE TABLE c(x CHECK (x IN (SELECT 1)))")
            }
        }
    }

    // MARK: StorageError

    func testNotADatabase() throws {
        let path = try makeTemporaryDatabasePath()
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: path))
        do {
            let dbQueue = try DatabaseQueue(path: path)
            try dbQueue.read { db in _ = try Row.fetchAll(db, sql: "SELECT * FROM sqlite_master") }
            XCTFail("expected an error")
        } catch let error as DatabaseError {
            XCTAssertEqual(error.resultCode, .SQLITE_NOTADB)
            XCTAssert(error.description.hasPrefix("SQLite error 26: file is not a Granite database"), error.description)
        }
    }
}
