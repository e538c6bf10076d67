import XCTest

/// `INSERT INTO u SELECT …` against SQLite: a query that does not read `u` is run as the rows go in, so
/// `last_insert_rowid()` in it sees the rows the statement already inserted (and `changes()` / `total_changes()`
/// the values from before it, which SQLite updates when the statement ends); a query reading `u` (directly, in a
/// subquery, through a view or a common table), an ORDER BY that sorts, triggers and RETURNING make SQLite run the
/// whole query first.
final class InsertSelectStreamingDifferentialTests: XCTestCase {
    static let setup = [
        "CREATE TABLE s(x)", "INSERT INTO s VALUES (1), (2), (3), (4)",
        "CREATE TABLE u(a INTEGER PRIMARY KEY, b, c, d)", "INSERT INTO u VALUES (100, 0, 0, 0)",
        "CREATE VIEW uv AS SELECT a FROM u", "CREATE VIEW sv AS SELECT x FROM s",
    ]

    func testQueriesNotReadingTheTableStream() throws {
        try TriggerDifferentialTests.check(
            Self.setup + [
                "INSERT INTO u(b, c, d) SELECT last_insert_rowid(), changes(), total_changes() FROM s",
                "INSERT INTO u(b) SELECT last_insert_rowid() FROM s LIMIT 2",
                "INSERT INTO u(b) SELECT last_insert_rowid() FROM s LIMIT 2 OFFSET 1",
                "INSERT INTO u(b) SELECT last_insert_rowid() FROM sv WHERE x > 1",
                "INSERT INTO u(b) SELECT last_insert_rowid() + x FROM s, (SELECT 1 AS y) WHERE x % 2 = 0",
                "INSERT INTO u(b) SELECT max(last_insert_rowid(), x) FROM s WHERE x IN (SELECT x FROM s)",
                "WITH c AS (SELECT x FROM s) INSERT INTO u(b) SELECT last_insert_rowid() FROM c",
                "INSERT INTO u(b) SELECT last_insert_rowid() FROM s WHERE last_insert_rowid() < 130",
                "SELECT * FROM u",
            ])
    }

    func testQueriesThatMustRunFirst() throws {
        try TriggerDifferentialTests.check(
            Self.setup + [
                "INSERT INTO u(b, c, d) SELECT last_insert_rowid(), changes(), total_changes() FROM u",
                "INSERT INTO u(b) SELECT last_insert_rowid() FROM s ORDER BY random()",
                "INSERT INTO u(b) SELECT last_insert_rowid() FROM s ORDER BY x DESC",
                "INSERT INTO u(b) SELECT (SELECT max(a) FROM u) FROM s",
                "INSERT INTO u(b) SELECT last_insert_rowid() FROM s WHERE x IN (SELECT a % 5 FROM uv)",
                "INSERT INTO u(b) SELECT last_insert_rowid() FROM s WHERE EXISTS (SELECT 1 FROM U)",
                "WITH c AS (SELECT a FROM u) INSERT INTO u(b) SELECT last_insert_rowid() FROM s, c WHERE x = 1",
                "INSERT INTO u(b) SELECT last_insert_rowid() FROM s RETURNING a, b",
                "SELECT count(*) FROM s, u",
                "CREATE TABLE log(x)",
                "CREATE TRIGGER t AFTER INSERT ON u BEGIN INSERT INTO log VALUES (new.b); END",
                "INSERT INTO u(b) SELECT last_insert_rowid() FROM s",
                "SELECT * FROM u",
            ])
    }

    /// A query failing part-way: in a transaction, the rows inserted before stay only where SQLite keeps them.
    func testFailingQueryPartWay() throws {
        try TriggerDifferentialTests.check(
            Self.setup + [
                "BEGIN",
                "INSERT OR IGNORE INTO u(a, b) SELECT CASE x WHEN 3 THEN 'x' ELSE x END, last_insert_rowid() FROM s",
                "INSERT INTO u(a, b) SELECT CASE x WHEN 3 THEN 'x' ELSE x + 10 END, last_insert_rowid() FROM s",
                "SELECT * FROM u",
                "COMMIT",
            ])
    }
}
