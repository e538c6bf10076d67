import CSQLiteOracle
import GraniteSQL
import GraniteStorage
import XCTest

/// What SQLite refuses in index expressions, partial-index WHERE clauses and CHECK constraints: subqueries and
/// non-deterministic functions when the schema is created, date and time functions reading the clock or the time
/// zone when they run. Each script runs statement by statement on SQLite and Granite; every statement's outcome
/// (rows, or the exact error message) must agree.
final class SchemaExpressionDifferentialTests: XCTestCase {
    static let scripts: [[String]] = [
        // Refused when the index is created.
        ["CREATE TABLE t(a)", "CREATE INDEX i ON t(a + random())", "SELECT count(*) FROM t"],
        ["CREATE TABLE t(a)", "CREATE INDEX i ON t(CURRENT_TIME)"],
        ["CREATE TABLE t(a)", "CREATE INDEX i ON t(CURRENT_DATE)"],
        ["CREATE TABLE t(a)", "CREATE INDEX i ON t(a, CURRENT_TIMESTAMP DESC)"],
        ["CREATE TABLE t(a)", "CREATE INDEX i ON t(abs(coalesce(a, RANDOM())))"],
        ["CREATE TABLE t(a)", "CREATE INDEX i ON t(a) WHERE random() > 0"],
        ["CREATE TABLE t(a)", "CREATE INDEX i ON t(a) WHERE a > CURRENT_DATE"],
        ["CREATE TABLE t(a)", "CREATE INDEX i ON t((SELECT 1))"],
        ["CREATE TABLE t(a)", "CREATE INDEX i ON t(a IN (SELECT 1))"],
        ["CREATE TABLE t(a)", "CREATE INDEX i ON t(EXISTS (SELECT 1) + a)"],
        ["CREATE TABLE t(a)", "CREATE INDEX i ON t(a) WHERE (SELECT 1)"],
        ["CREATE TABLE t(a)", "CREATE INDEX i ON t(a) WHERE a IN (SELECT 1)"],
        ["CREATE TABLE t(a)", "CREATE INDEX i ON t((SELECT 1) + random())"],
        ["CREATE TABLE t(a)", "CREATE INDEX i ON t(random() + (SELECT 1))"],
        ["CREATE TABLE t(a)", "CREATE INDEX i ON t(random() + CURRENT_TIME)"],
        ["CREATE TABLE t(a)", "CREATE INDEX i ON t((SELECT 1) + abs(random()))"],
        ["CREATE TABLE t(a)", "CREATE INDEX i ON t(zz + (SELECT 1))"],
        ["CREATE TABLE t(a)", "CREATE INDEX i ON t((SELECT 1) + zz)"],
        ["CREATE TABLE t(a)", "CREATE INDEX i ON t(random() + zz)"],
        ["CREATE TABLE t(a)", "CREATE INDEX i ON t(a) WHERE random() > t.zz"],
        ["CREATE TABLE t(a CHECK ((SELECT 1)))"],
        // Parameters stop the walk like subqueries; aggregates, like non-deterministic functions, do not.
        ["CREATE TABLE t(a)", "CREATE INDEX i ON t(? + (SELECT 1))"],
        ["CREATE TABLE t(a)", "CREATE INDEX i ON t((SELECT 1) + ?)"],
        ["CREATE TABLE t(a)", "CREATE INDEX i ON t(random() + ?)"],
        ["CREATE TABLE t(a)", "CREATE INDEX i ON t(zz + ?)"],
        ["CREATE TABLE t(a)", "CREATE INDEX i ON t(a) WHERE a > ?"],
        ["CREATE TABLE t(a)", "CREATE INDEX i ON t(random() + count(*))"],
        ["CREATE TABLE t(a)", "CREATE INDEX i ON t(count(*) + random())"],
        ["CREATE TABLE t(a)", "CREATE INDEX i ON t(max(a))"],
        ["CREATE TABLE t(a)", "CREATE INDEX i ON t(a) WHERE sum(a) > 1"],
        ["CREATE TABLE t(a CHECK (a > ?))"],
        ["CREATE TABLE t(a CHECK (count(*) > 0))"],
        ["CREATE TABLE t(a CHECK (count(*) + random()))"],
        ["CREATE TABLE t(a CHECK (max(a, 1) > 0))", "INSERT INTO t VALUES (2)", "SELECT a FROM t"],
        // ALTER TABLE ADD COLUMN checks the new table.
        ["CREATE TABLE t(a)", "ALTER TABLE t ADD COLUMN b CHECK ((SELECT 1))", "SELECT * FROM t"],
        ["CREATE TABLE t(a)", "ALTER TABLE t ADD COLUMN b CHECK (b > ?)"],
        ["CREATE TABLE t(a)", "ALTER TABLE t ADD COLUMN b CHECK (count(*))"],
        // Column defaults must be constant (functions allowed); a bare subquery is a syntax error.
        ["CREATE TABLE t(a DEFAULT (SELECT 1))"],
        ["CREATE TABLE t(a DEFAULT ((SELECT 1)))"],
        ["CREATE TABLE t(a DEFAULT (1 IN (SELECT 1)))"],
        ["CREATE TABLE t(a DEFAULT (b), b)"],
        ["CREATE TABLE t(a DEFAULT (?))"],
        ["CREATE TABLE t(a DEFAULT (abs(-3) + length('xy')), b)", "INSERT INTO t(b) VALUES (1)", "SELECT a FROM t"],
        ["CREATE TABLE t(a CHECK (zz > 0))"],
        ["CREATE TABLE t(a CHECK (t.a > 0 AND rowid > 0))", "INSERT INTO t VALUES (1)", "SELECT a FROM t"],
        ["CREATE TABLE t(a, CHECK (a IN (SELECT 1)))"],
        ["CREATE TABLE t(a CHECK (EXISTS (SELECT 1)))"],
        // Allowed in CHECK constraints.
        ["CREATE TABLE t(a CHECK (a > random()))", "INSERT INTO t VALUES (9223372036854775807)", "SELECT a FROM t"],
        ["CREATE TABLE t(a CHECK (a > CURRENT_TIMESTAMP))", "INSERT INTO t VALUES ('z')", "SELECT a FROM t"],
        // Date and time functions: refused as they run, when they read the clock or the time zone.
        ["CREATE TABLE t(a)", "INSERT INTO t VALUES (1)", "CREATE INDEX i ON t(time('now'))", "SELECT a FROM t"],
        ["CREATE TABLE t(a)", "CREATE INDEX i ON t(date('NOW'))", "INSERT INTO t VALUES (1)", "SELECT a FROM t"],
        ["CREATE TABLE t(a)", "INSERT INTO t VALUES (1)", "CREATE INDEX i ON t(date())"],
        ["CREATE TABLE t(a)", "INSERT INTO t VALUES (1)", "CREATE INDEX i ON t(strftime('%s'))"],
        ["CREATE TABLE t(a)", "INSERT INTO t VALUES (1)", "CREATE INDEX i ON t(strftime('%s', 'now'))"],
        ["CREATE TABLE t(a)", "INSERT INTO t VALUES (1)", "CREATE INDEX i ON t(strftime(NULL, 'now'))"],
        ["CREATE TABLE t(a)", "INSERT INTO t VALUES (1)", "CREATE INDEX i ON t(unixepoch('now'))"],
        ["CREATE TABLE t(a)", "INSERT INTO t VALUES (1)", "CREATE INDEX i ON t(julianday('now', '+1 day'))"],
        ["CREATE TABLE t(a)", "INSERT INTO t VALUES (1)", "CREATE INDEX i ON t(datetime(a, 'localtime'))"],
        ["CREATE TABLE t(a)", "INSERT INTO t VALUES (1)", "CREATE INDEX i ON t(datetime(a, 'utc'))"],
        ["CREATE TABLE t(a)", "INSERT INTO t VALUES (1)", "CREATE INDEX i ON t(a) WHERE a < julianday('now')"],
        // Deterministic uses: allowed.
        [
            "CREATE TABLE t(a)", "INSERT INTO t VALUES ('2024-01-02'), (2460000.5), (NULL), ('x')",
            "CREATE INDEX i ON t(date(a), datetime(a, '+1 day'), strftime('%Y', a))",
            "CREATE INDEX j ON t(a) WHERE julianday(a) > 0", "INSERT INTO t VALUES ('2025-03-04 05:06:07')",
            "SELECT a, date(a) FROM t ORDER BY date(a), a",
        ],
        ["CREATE TABLE t(a)", "INSERT INTO t VALUES (1)", "CREATE INDEX i ON t(date(a, '+1 day', 'now'))"],
        ["CREATE TABLE t(a)", "INSERT INTO t VALUES (1)", "CREATE INDEX i ON t(julianday(' now'))"],
        ["CREATE TABLE t(a)", "INSERT INTO t VALUES (NULL)", "CREATE INDEX i ON t(date(a, 'localtime'))"],
        ["CREATE TABLE t(a)", "INSERT INTO t VALUES ('x')", "CREATE INDEX i ON t(date(a, 'utc'))"],
        // Value-dependent: the row holds 'now'.
        [
            "CREATE TABLE t(a)", "CREATE INDEX i ON t(date(a))", "INSERT INTO t VALUES ('2024-01-01')",
            "INSERT INTO t VALUES ('now')", "SELECT a FROM t",
        ],
        [
            "CREATE TABLE t(a, b)", "CREATE INDEX i ON t(a) WHERE time(b) IS NOT NULL",
            "INSERT INTO t VALUES (1, 'Now')",
        ],
        // CHECK constraints.
        ["CREATE TABLE t(a CHECK (a < date('now')))", "INSERT INTO t VALUES (1)", "SELECT count(*) FROM t"],
        [
            "CREATE TABLE t(a CHECK (a IS NULL OR date(a) IS NOT NULL))", "INSERT INTO t VALUES ('2024-01-01')",
            "INSERT INTO t VALUES ('now')", "UPDATE t SET a = 'now'", "SELECT a FROM t",
        ],
        ["CREATE TABLE t(a, CHECK (datetime(a, 'localtime') IS NOT NULL))", "INSERT INTO t VALUES (5)"],
    ]

    func testRestrictedSchemaExpressions() throws {
        var failures: [String] = []
        for script in Self.scripts {
            let oracle = Oracle()
            let db = try SQLConnection(engine: try StorageEngine.inMemory())
            for sql in script {
                let expected = SelectDifferentialTests.sqlite(oracle, sql)
                var actual = SelectDifferentialTests.granite(db, sql)
                do {
                    _ = try Parser.parseScript(sql)
                } catch {
                    actual = .failure(error.message)
                }
                if let why = SelectDifferentialTests.mismatch(expected, actual, ordered: true) {
                    failures.append("\(script.joined(separator: "; ")) — at \(sql): \(why)")
                    break
                }
            }
        }
        XCTAssert(failures.isEmpty, failures.joined(separator: "\n"))
    }
}
