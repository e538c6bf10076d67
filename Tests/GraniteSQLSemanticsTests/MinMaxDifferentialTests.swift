import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// `min()` and `max()` read through an index or the rowid in the order of their argument, stopping at the first
/// row that gives them a value (SQLite's min/max optimization), and a lone `count(*)` of a table counted from its
/// tree, against SQLite: random tables with NULLs, ties and values of every storage class, indexes in both
/// directions, with collations, partial and on several columns, conditions, bare columns, expressions around the
/// aggregate, LIMIT, correlated subqueries, empty tables and uncommitted rows.
final class MinMaxDifferentialTests: XCTestCase {
    static let schema = [
        "CREATE TABLE p(id INTEGER PRIMARY KEY, score, name TEXT COLLATE NOCASE, tag INTEGER, note)",
        "CREATE INDEX p_score ON p(score)",
        "CREATE INDEX p_name ON p(name)",
        "CREATE INDEX p_name_binary ON p(name COLLATE BINARY DESC)",
        "CREATE INDEX p_tag_score ON p(tag, score DESC)",
        "CREATE INDEX p_note ON p(note) WHERE note IS NOT NULL",
        "CREATE TABLE k(a TEXT PRIMARY KEY, b) WITHOUT ROWID",
        "CREATE INDEX k_b ON k(b)",
        "CREATE TABLE empty(x, y)",
        "CREATE INDEX empty_x ON empty(x)",
    ]

    static let queries = [
        "SELECT max(score) FROM p", "SELECT min(score) FROM p", "SELECT max(id) FROM p", "SELECT min(id) FROM p",
        "SELECT max(name) FROM p", "SELECT min(name) FROM p", "SELECT max(name COLLATE BINARY) FROM p",
        "SELECT min(name COLLATE BINARY) FROM p", "SELECT max(tag) FROM p", "SELECT min(note) FROM p",
        "SELECT max(score) + 1 FROM p",
        "SELECT max(score) FROM p WHERE tag = 2", "SELECT min(score) FROM p WHERE tag = 3",
        "SELECT min(score) FROM p WHERE score > 2",
        "SELECT max(score) FROM p WHERE id BETWEEN 3 AND 9", "SELECT max(score) FROM p WHERE name = 'b'",
        "SELECT max(score) FROM p LIMIT 1", "SELECT min(score) FROM p LIMIT 1 OFFSET 1",
        "SELECT max(DISTINCT score) FROM p", "SELECT max(score) FILTER (WHERE tag = 1) FROM p",
        "SELECT min(score) FROM p HAVING min(score) IS NOT NULL", "SELECT max(score) FROM p ORDER BY 1",
        "SELECT tag, (SELECT max(score) FROM p AS q WHERE q.tag = p.tag) FROM p GROUP BY tag ORDER BY tag",
        "SELECT max(a), min(a) FROM k", "SELECT max(b) FROM k", "SELECT min(b), a FROM k",
        "SELECT max(x) FROM empty", "SELECT min(x), y FROM empty", "SELECT max(x) FROM empty WHERE y = 1",
        "SELECT max(score) FROM p WHERE 0",
        // `count(*)` alone is answered from the tree's entry count; the others count rows read.
        "SELECT count(*) FROM p", "SELECT count(*) FROM k", "SELECT count(*) FROM empty",
        "SELECT count(*) + 0 FROM p", "SELECT count(*) FROM p WHERE tag = 1", "SELECT count(*), max(id) FROM p",
        "SELECT count(*) FROM p AS q",
        // Bare columns beside a min() or max() that only NULLs reach come from the group's last row.
        // (Not grouped by `tag`: its index orders `score DESC` ascending, so its groups' rows come in another
        // order than SQLite's.)
        "SELECT max(note), id, name FROM p GROUP BY name", "SELECT min(note + 0), id FROM p",
        "SELECT max(CASE WHEN tag > 1 THEN score END), id FROM p GROUP BY tag IS NULL, note IS NULL",
        "SELECT min(x), y FROM empty GROUP BY y",
    ]

    func testMinMaxMatchSQLite() throws {
        let seed = testSeed()
        var source = ValueSource(seed: seed)
        let tables = 12 * stressFactor
        for _ in 0..<tables {
            let oracle = Oracle()
            let db = try SQLConnection(engine: try StorageEngine.inMemory())
            var statements = Self.schema
            func value() -> String {
                source.pick([
                    "NULL", "\(source.int(-3...6))", "\(source.int(-3...3)).5", "'\(source.pick(["a", "B", "b", "c", "A"]))'",
                    "x'0\(source.int(0...9))'",
                ])
            }
            let rows = source.int(0...24)
            for id in 0..<rows {
                statements.append(
                    "INSERT OR IGNORE INTO p VALUES (\((id + 1) * source.int(1...3)), \(value()), \(value()), "
                        + "\(source.int(0...3)), \(source.bool() ? "NULL" : value()))")
                statements.append("INSERT OR IGNORE INTO k VALUES ('\(source.int(0...30))', \(value()))")
            }
            for sql in statements {
                oracle.execute(sql)
                _ = try? db.execute(sql)
            }
            SelectDifferentialTests.compareInOrder(Self.queries, oracle, db)
            try checkBareColumns(oracle, db)
            // Inside a transaction, the count sees its uncommitted rows, and no longer after a rollback.
            let counts = [
                "BEGIN", "INSERT INTO p(score) VALUES (1), (2)", "DELETE FROM k WHERE a > '5'",
                "SELECT count(*) FROM p", "SELECT count(*) FROM k", "ROLLBACK", "SELECT count(*) FROM p",
            ]
            SelectDifferentialTests.compareInOrder(counts, oracle, db)
        }
    }

    /// Queries whose bare column comes from the row holding the extreme value: among rows tied on it SQLite
    /// picks one arbitrarily (Granite's descending index walk meets ties in another order than SQLite's), so the
    /// row Granite gives must hold SQLite's extreme value and pass the condition.
    static let bareColumnQueries = [
        ("SELECT max(score), id FROM p", "1"), ("SELECT min(score), id FROM p", "1"),
        ("SELECT max(score), id FROM p WHERE tag = 1", "tag = 1"), ("SELECT min(id), id FROM p", "1"),
        ("SELECT min(score), id FROM p WHERE tag = 0", "tag = 0"),
    ]

    private func checkBareColumns(_ oracle: Oracle, _ db: SQLConnection) throws {
        for (sql, condition) in Self.bareColumnQueries {
            guard case .rows(let expected) = oracle.all(sql, []),
                case .rows(let actual) = StatementOutcome.granite(db, sql, [])
            else { return XCTFail("\(sql) failed") }
            XCTAssertEqual(actual.count, 1, sql)
            XCTAssertEqual(actual.first?.first, expected.first?.first, sql)
            guard let row = actual.first, row[1] != .null else {
                XCTAssertEqual(expected.first?[1], .null, sql)
                continue
            }
            let column = sql.contains("min(id)") ? "id" : "score"
            let check = "SELECT count(*) FROM p WHERE id = ? AND \(column) IS ? AND \(condition)"
            guard case .rows(let found) = oracle.all(check, [row[1], row[0]]) else {
                return XCTFail("\(check) failed")
            }
            XCTAssertEqual(found.first?.first, .integer(1), "\(sql): \(row) is not a row holding the extreme value")
        }
    }

    /// `EXPLAIN QUERY PLAN` says what SQLite's does: `SEARCH` for a min/max query (which reads one entry of an
    /// index on its argument, or every row when there is none), and the narrowest index a `count(*)` counts.
    func testPlansSearchTheIndex() throws {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        for sql in Self.schema { try db.execute(sql) }
        let plans = [
            ("SELECT max(score) FROM p", "SEARCH p USING INDEX p_score"),
            ("SELECT max(id) FROM p", "SEARCH p"),
            ("SELECT min(score) FROM p WHERE tag = 2", "SEARCH p USING INDEX p_tag_score (tag=?)"),
            ("SELECT max(x) FROM empty", "SEARCH empty USING INDEX empty_x"),
            ("SELECT max(y) FROM empty", "SEARCH empty"),
            ("SELECT count(*) FROM p", "SCAN p USING COVERING INDEX p_score"),
            ("SELECT count(*) FROM empty", "SCAN empty USING COVERING INDEX empty_x"),
            ("SELECT count(*) FROM k", "SCAN k"),
            ("SELECT count(*) FROM p NOT INDEXED", "SCAN p"),
        ]
        for (sql, expected) in plans {
            let rows = try db.query("EXPLAIN QUERY PLAN " + sql).rows
            XCTAssertEqual(rows.map { $0[3] }, [.text(expected)], sql)
        }
        // The schema table's count (Granite lists a WITHOUT ROWID key's index there, SQLite does not), counted
        // from its tree and row by row; and that of a connection's temporary schema, which has no tree yet.
        let counted = try db.query("SELECT count(*) FROM sqlite_schema").rows
        XCTAssertEqual(counted, try db.query("SELECT count(*) + 0 FROM sqlite_schema").rows)
        XCTAssertEqual(counted, [[.integer(Int64(Self.schema.count + 1))]])
        XCTAssertEqual(try db.query("SELECT count(*) FROM sqlite_temp_master").rows, [[.integer(0)]])
    }
}
