import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// The statements that read a whole table while writing (CREATE INDEX filling the index, ALTER TABLE rewriting
/// rows, DROP TABLE deleting a parent's rows, foreign key checks and unindexed child lookups) read it a batch at
/// a time so that their memory stays bounded: each test runs them on tables of several batches (rows are handed
/// over 1,024 at a time) against SQLite, with the failures that must stop them part way.
final class BatchedScanDifferentialTests: XCTestCase {
    /// Rows enough for three batches and a partial fourth.
    private static let rows = 3 * 1_024 + 300

    /// An INSERT of `rows` rows into `table(columns)` from a recursive CTE whose counter is `i`.
    private static func insertSeries(_ table: String, _ columns: String, _ values: String) -> String {
        "INSERT INTO \(table)(\(columns)) WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
            + "WHERE i < \(rows)) SELECT \(values) FROM n"
    }

    func testCreateIndexOverManyBatches() throws {
        try DeleteAllDifferentialTests.checkStatements([
            "CREATE TABLE t(a INTEGER PRIMARY KEY, b, c)",
            Self.insertSeries("t", "b, c", "i * 7 % 1000, 'v' || (i % 97)"),
            "CREATE INDEX tb ON t(b, c)",
            "CREATE INDEX tc_partial ON t(c) WHERE b > 500",
            "CREATE INDEX texpr ON t(b + length(c))",
            "SELECT count(*), sum(a) FROM t INDEXED BY tb WHERE b BETWEEN 100 AND 200",
            "SELECT count(*) FROM t INDEXED BY tc_partial WHERE c = 'v5' AND b > 500",
            "SELECT count(*) FROM t WHERE b + length(c) = 503",
            // Entries are sorted by their key bytes before they are inserted: descending and NOCASE keys too.
            "UPDATE t SET c = upper(c) WHERE a % 3 = 0",
            "CREATE INDEX tdesc ON t(c COLLATE NOCASE DESC, b)",
            "SELECT a, b, c FROM t INDEXED BY tdesc WHERE c = 'v5' COLLATE NOCASE ORDER BY c COLLATE NOCASE DESC, b",
            "SELECT a FROM t INDEXED BY tdesc ORDER BY c COLLATE NOCASE DESC, b LIMIT 5 OFFSET 2000",
            // NULLs do not conflict in a UNIQUE index.
            "CREATE TABLE v(a INTEGER PRIMARY KEY, b)",
            Self.insertSeries("v", "b", "CASE WHEN i % 2 = 0 THEN NULL ELSE i END"),
            "CREATE UNIQUE INDEX vb ON v(b)",
            "SELECT count(*) FROM v INDEXED BY vb WHERE b IS NULL",
            // A duplicate found in the third batch: the index is not created, the table is untouched.
            "CREATE TABLE u(a INTEGER PRIMARY KEY, b)",
            Self.insertSeries("u", "b", "CASE WHEN i = \(Self.rows - 10) THEN 5 ELSE i END"),
            "CREATE UNIQUE INDEX ub ON u(b)",
            "SELECT count(*) FROM sqlite_schema WHERE name = 'ub'",
            "UPDATE u SET b = -1 WHERE a = \(Self.rows - 10)",
            "CREATE UNIQUE INDEX ub ON u(b)",
            "SELECT a FROM u INDEXED BY ub WHERE b = 5",
            "PRAGMA integrity_check",
        ])
    }

    func testAlterTableRewritesEveryBatch() throws {
        try DeleteAllDifferentialTests.checkStatements([
            "CREATE TABLE t(a INTEGER PRIMARY KEY, b, c, d)",
            Self.insertSeries("t", "b, c, d", "i, i * 2, 'text ' || i"),
            "ALTER TABLE t DROP COLUMN c",
            "SELECT count(*), sum(b), max(d) FROM t",
            "SELECT * FROM t WHERE a IN (1, 1024, 1025, 2048, 3000, \(Self.rows))",
            "ALTER TABLE t ADD COLUMN e AS (b * 3) STORED",
            "SELECT count(*), sum(e) FROM t",
            "SELECT * FROM t WHERE a IN (1, 1025, \(Self.rows))",
            // A NOT NULL generated column failing on a row of the last batch leaves the table as it was.
            "ALTER TABLE t ADD COLUMN f AS (CASE WHEN b = \(Self.rows - 1) THEN NULL ELSE b END) STORED NOT NULL",
            "SELECT sql FROM sqlite_schema WHERE name = 't'",
            "SELECT count(*), sum(e) FROM t",
            "PRAGMA integrity_check",
        ])
    }

    func testForeignKeysOverManyBatches() throws {
        try DeleteAllDifferentialTests.checkStatements([
            "CREATE TABLE parent(id INTEGER PRIMARY KEY, name)",
            // The child's key has no index: deleting a parent scans the whole child table.
            "CREATE TABLE child(id INTEGER PRIMARY KEY, parent_id REFERENCES parent(id) ON DELETE CASCADE, note)",
            "CREATE TABLE strict_child(id INTEGER PRIMARY KEY, parent_id REFERENCES parent(id))",
            Self.insertSeries("parent", "id, name", "i, 'p' || i"),
            Self.insertSeries("child", "parent_id, note", "(i * 13) % \(Self.rows) + 1, i"),
            "INSERT INTO strict_child(parent_id) VALUES (\(Self.rows - 5))",
            "DELETE FROM parent WHERE id IN (1, 2, 3000)",
            "SELECT changes(), (SELECT count(*) FROM child)",
            "DELETE FROM parent WHERE id = \(Self.rows - 5)",
            "SELECT count(*) FROM parent",
            "PRAGMA foreign_keys = OFF",
            "INSERT INTO child(parent_id, note) VALUES (999999, 'orphan'), (\(Self.rows + 7), 'orphan 2')",
            "PRAGMA foreign_key_check",
            "PRAGMA foreign_key_check(child)",
            "DELETE FROM child WHERE note LIKE 'orphan%'",
            "PRAGMA foreign_keys = ON",
            "DELETE FROM strict_child",
            // DROP TABLE deletes the parent's rows one batch after another, cascading into the child (kept small,
            // as every parent row deleted scans it).
            "DELETE FROM child WHERE id > 60",
            "DROP TABLE parent",
            "SELECT changes(), (SELECT count(*) FROM child)",
        ])
    }
}
