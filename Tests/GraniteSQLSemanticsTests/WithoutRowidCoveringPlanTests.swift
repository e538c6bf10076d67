import CSQLiteOracle
import Foundation
import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// Secondary indexes of WITHOUT ROWID tables as covering indexes, on SQLite and Granite. An entry of SQLite's holds
/// the index's columns and the primary key; one of Granite's holds the index's columns and the hidden storage
/// rowid (FORMAT.md, "WITHOUT ROWID tables"). So a query reading only the index's columns is served from the
/// entries alone on both, with the same `EXPLAIN QUERY PLAN`; one reading the key too fetches each row in Granite,
/// whose plan then says `USING INDEX` where SQLite's says `USING COVERING INDEX`. Rows match in every case.
final class WithoutRowidCoveringPlanTests: XCTestCase {
    static let schema = [
        "CREATE TABLE w(a INTEGER, b INTEGER, c TEXT, PRIMARY KEY(a)) WITHOUT ROWID",
        "CREATE INDEX wb ON w(b)",
        "CREATE TABLE w2(k TEXT, j INTEGER, d REAL, e, PRIMARY KEY(k, j)) WITHOUT ROWID",
        "CREATE INDEX w2d ON w2(d)",
        "INSERT INTO w VALUES (1, 10, 'x'), (2, 20, 'y'), (3, 10, 'z'), (4, NULL, 'n')",
        "INSERT INTO w2 VALUES ('a', 1, 0.5, 'p'), ('a', 2, 1.5, 'q'), ('b', 1, 0.5, NULL)",
    ]

    /// Queries reading only the index's columns: the same plan (covering) and rows.
    static let samePlans = [
        "SELECT b FROM w WHERE b = 10",
        "SELECT b FROM w WHERE b > 10",
        "SELECT b FROM w ORDER BY b",
        "SELECT b, count(*) FROM w GROUP BY b",
        "SELECT count(*) FROM w WHERE b = 10",
        "SELECT d FROM w2 WHERE d = 0.5",
        "SELECT a FROM w WHERE a = 2",
    ]

    /// Queries reading the primary key through a secondary index: SQLite's entry covers them, Granite's does not.
    static let keyReadThroughIndex = [
        "SELECT a, b FROM w WHERE b = 10",
        "SELECT a FROM w WHERE b > 10",
        "SELECT a, b FROM w ORDER BY b",
        "SELECT count(a) FROM w WHERE b = 20",
        "SELECT a FROM w WHERE b IN (10, 20)",
        "SELECT k, j, d FROM w2 WHERE d = 0.5",
    ]

    func testCoveringPlansAndRowsMatchSQLite() throws {
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        for sql in Self.schema {
            oracle.execute(sql)
            try db.execute(sql)
        }
        func details(_ result: SelectDifferentialTests.Result) -> [String] {
            guard case .rows(_, let rows) = result else { return ["\(result)"] }
            return rows.map { row in
                guard case .text(let detail)? = row.last else { return "\(row)" }
                return detail
            }
        }
        for sql in Self.samePlans + Self.keyReadThroughIndex {
            let why = SelectDifferentialTests.mismatch(
                SelectDifferentialTests.sqlite(oracle, sql), SelectDifferentialTests.granite(db, sql), ordered: false)
            XCTAssertNil(why, sql)
            let plan = "EXPLAIN QUERY PLAN " + sql
            var expected = details(SelectDifferentialTests.sqlite(oracle, plan))
            if Self.keyReadThroughIndex.contains(sql) {
                XCTAssert(expected.contains { $0.contains("USING COVERING INDEX") }, "\(sql): \(expected)")
                expected = expected.map { $0.replacingOccurrences(of: "COVERING INDEX", with: "INDEX") }
            }
            XCTAssertEqual(details(SelectDifferentialTests.granite(db, plan)), expected, sql)
        }
    }
}
