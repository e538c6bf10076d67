import CSQLiteOracle
import GraniteSQL
import XCTest

/// Syntax error messages compared with SQLite's `sqlite3_prepare_v2` messages.
final class SyntaxErrorDifferentialTests: XCTestCase {
    /// (`SELECT CASE END` is left out: SQLite reads `END` as an identifier there and reports `incomplete input`.)
    static let statements: [String] = [
        "SELECT * FORM t",
        "SELECT (1 + 2",
        "INSERT INTO t VALUES",
        "SELECT 1 garbage more",
        "SELECT\n  a,\n  FROM t",
        "SELECT 12abc",
        "SELECT #",
        "UPDATE t SET",
        "SELECT * FROM t WHERE",
        "SELECT * FROM select",
        "CREATE TABLE t (a, PRIMARY KEY (a), b)",
        "DELETE t",
        "SELECT 1,",
        "SELECT a FROM t ORDER",
        "SELECT a FROM t GROUP BY",
        "CREATE TABLE",
        "CREATE INDEX i ON t",
        "PRAGMA",
        "PRAGMA x = ",
        "SELECT * FROM t LIMIT",
        "SELECT a b c FROM t",
        "INSERT INTO t (a VALUES (1)",
        "SELECT )",
        "SELECT 1 +",
        "DROP",
        "SELECT a FROM t WHERE a IN",
        "SELECT ~",
        "SELECT 'a' || ",
        "SELECT * FROM t JOIN",
    ]

    func testMessagesMatchSQLite() {
        var db: OpaquePointer?
        sqlite3_open(":memory:", &db)
        defer { sqlite3_close(db) }
        var offsetsCompared = 0
        for sql in Self.statements {
            var stmt: OpaquePointer?
            let rc = sqlite3_prepare_v2(db, sql, -1, &stmt, nil)
            sqlite3_finalize(stmt)
            XCTAssertNotEqual(rc, SQLITE_OK, sql)
            let expected = String(cString: sqlite3_errmsg(db))
            let offset = Int(sqlite3_error_offset(db))
            do {
                _ = try Parser.parseScript(sql)
                XCTFail("no syntax error for \(sql); SQLite says \(expected)")
            } catch {
                XCTAssertEqual(error.message, expected, sql)
                if offset >= 0 {
                    XCTAssertEqual(error.location.offset, offset, "offset for \(sql)")
                    offsetsCompared += 1
                }
            }
        }
        XCTAssertGreaterThan(offsetsCompared, 10)
    }
}
