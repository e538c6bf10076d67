import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// Parses `sql` as one statement, checks its canonical form, and checks that the canonical form round-trips.
func assertCanonical(
    _ sql: String, _ expected: String, file: StaticString = #filePath, line: UInt = #line
) {
    do {
        let statement = try Parser.parseStatement(sql)
        XCTAssertEqual(statement.description, expected, "canonical form of: \(sql)", file: file, line: line)
        let reparsed = try Parser.parseStatement(statement.description)
        XCTAssertEqual(reparsed, statement, "round trip of: \(sql)", file: file, line: line)
        XCTAssertEqual(reparsed.description, statement.description, file: file, line: line)
    } catch {
        XCTFail("unexpected error for \(sql): \(error)", file: file, line: line)
    }
}

/// Parses `sql` as an expression and checks its canonical form.
func assertExpression(_ sql: String, _ expected: String, file: StaticString = #filePath, line: UInt = #line) {
    do {
        let expression = try Parser.parseExpression(sql)
        XCTAssertEqual(expression.description, expected, "canonical form of: \(sql)", file: file, line: line)
        XCTAssertEqual(try Parser.parseExpression(expression.description), expression, file: file, line: line)
    } catch {
        XCTFail("unexpected error for \(sql): \(error)", file: file, line: line)
    }
}

/// Checks that parsing `sql` as one statement fails with `message` at `line:column`.
func assertSyntaxError(
    _ sql: String, _ message: String, at position: (Int, Int), file: StaticString = #filePath, line: UInt = #line
) {
    do {
        let statement = try Parser.parseStatement(sql)
        XCTFail("expected an error for \(sql), got \(statement)", file: file, line: line)
    } catch {
        XCTAssertEqual(error.message, message, "message for: \(sql)", file: file, line: line)
        XCTAssertEqual(error.location.line, position.0, "line for: \(sql)", file: file, line: line)
        XCTAssertEqual(error.location.column, position.1, "column for: \(sql)", file: file, line: line)
    }
}

/// Two connections to one in-memory database holding `t(x)` with the rows 1, 2 and 3.
func twoConnectionsSharingTable() throws -> (SQLConnection, SQLConnection) {
    let first = try SQLConnection(engine: try StorageEngine.inMemory())
    try first.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3)")
    let second = try SQLConnection(engine: try StorageEngine(sharing: first.engine))
    return (first, second)
}

extension XCTestCase {
    /// A read-only connection to a new database file holding `t(x)` with the row 1 (removed when the test ends).
    func readOnlyConnectionToTable() throws -> SQLConnection {
        let path = try makeTemporaryDatabasePath()
        do {
            let db = try SQLConnection(engine: try StorageEngine(path: path))
            try db.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1)")
            try db.engine.close()
        }
        var options = StorageOptions()
        options.readOnly = true
        return try SQLConnection(engine: try StorageEngine(path: path, options: options))
    }
}
