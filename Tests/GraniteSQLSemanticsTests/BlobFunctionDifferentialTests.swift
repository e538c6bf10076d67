import CSQLiteOracle
import GraniteSQL
import GraniteStorage
import XCTest

/// `zeroblob(N)` and `randomblob(N)` against SQLite: N read as an integer the way `sqlite3_value_int64` reads any
/// value, zeroblob of N < 1 empty, randomblob at least one byte, both BLOBs, and past SQLite's length limit
/// `string or blob too big` (SQLITE_TOOBIG). randomblob's bytes are compared through their length and type only.
final class BlobFunctionDifferentialTests: XCTestCase {
    static let arguments = [
        "0", "1", "3", "-1", "-9223372036854775808", "NULL", "2.9", "-0.5", "'3'", "' 4 '", "'abc'", "'2e1'",
        "x'01'", "x'3531'", "1000000001", "1e300", "9223372036854775807",
    ]

    func testZeroblobMatchesSQLite() throws {
        var statements: [String] = []
        for argument in Self.arguments {
            statements.append("SELECT zeroblob(\(argument)), typeof(zeroblob(\(argument)))")
            statements.append("SELECT length(zeroblob(\(argument))), hex(zeroblob(\(argument)))")
            statements.append("SELECT quote(zeroblob(\(argument))), zeroblob(\(argument)) = x''")
        }
        statements += [
            "SELECT zeroblob()", "SELECT zeroblob(1, 2)", "SELECT zeroblob(2) || 'a'", "SELECT zeroblob(2) = x'0000'",
            "SELECT typeof(zeroblob(2) || zeroblob(1))",
        ]
        try compare(statements)
    }

    func testRandomblobLengthAndTypeMatchSQLite() throws {
        var statements: [String] = []
        for argument in Self.arguments {
            statements.append("SELECT length(randomblob(\(argument))), typeof(randomblob(\(argument)))")
            statements.append("SELECT length(hex(randomblob(\(argument))))")
        }
        statements += [
            "SELECT randomblob()", "SELECT randomblob(1, 2)",
            // A new blob on every call and row: sixteen random bytes never repeat.
            "SELECT count(DISTINCT randomblob(16)) FROM (VALUES (1), (2), (3), (4))",
            "SELECT randomblob(16) = randomblob(16)",
            "CREATE TABLE c(x CHECK (length(randomblob(x)) > 0))",
            "CREATE TABLE i(x)", "CREATE INDEX ii ON i(randomblob(x))", "CREATE INDEX iz ON i(zeroblob(x))",
            "INSERT INTO i VALUES (2)", "SELECT hex(zeroblob(x)) FROM i WHERE zeroblob(x) = x'0000'",
        ]
        try compare(statements)
    }

    /// Runs each statement on SQLite and Granite, comparing rows or error messages and result codes.
    private func compare(_ statements: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        var failures: [String] = []
        for sql in statements {
            let expected = SelectDifferentialTests.sqlite(oracle, sql)
            let actual = SelectDifferentialTests.granite(db, sql)
            if let why = SelectDifferentialTests.mismatch(expected, actual, ordered: true) {
                failures.append("\(sql): \(why)")
            } else if case .failure = expected {
                let code = sqlite3_extended_errcode(oracle.db)
                var graniteCode: Int32 = 1
                do {
                    _ = try db.query(sql)
                } catch let error as SQLEvaluationError {
                    graniteCode = error.resultCode
                } catch let error as SQLExecutionError {
                    graniteCode = error.extendedResultCode
                } catch {}
                if graniteCode != code { failures.append("\(sql): result code sqlite \(code), granite \(graniteCode)") }
            }
        }
        XCTAssert(failures.isEmpty, failures.joined(separator: "\n"), file: file, line: line)
    }
}
