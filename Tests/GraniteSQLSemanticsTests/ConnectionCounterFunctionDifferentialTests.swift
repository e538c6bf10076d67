import GraniteSQL
import GraniteStorage
import XCTest

/// `changes()`, `total_changes()` and `last_insert_rowid()` called from SQL, run on SQLite and Granite statement
/// by statement: each statement's rows or error, the connection's counters after it, and the final tables (see
/// ``TriggerDifferentialTests/mismatches(_:)``).
final class ConnectionCounterFunctionDifferentialTests: XCTestCase {
    /// A query reading the three counters.
    static let counters = "SELECT changes(), total_changes(), last_insert_rowid()"

    func testFreshConnectionAndPlainWrites() throws {
        try TriggerDifferentialTests.check([
            Self.counters,
            "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT UNIQUE, c)",
            Self.counters,
            "INSERT INTO t(b, c) VALUES ('x', 1)",
            Self.counters,
            "INSERT INTO t(b, c) VALUES ('y', 2), ('z', 3), ('w', 4)",
            Self.counters,
            "INSERT INTO t VALUES (100, 'v', 5)",
            "SELECT last_insert_rowid(), changes() + 1, typeof(changes())",
            "UPDATE t SET c = c * 10 WHERE c > 1",
            Self.counters,
            "DELETE FROM t WHERE c = 30",
            Self.counters,
            "DELETE FROM t WHERE 0",
            Self.counters,
            "SELECT a, last_insert_rowid() FROM t WHERE a < last_insert_rowid() ORDER BY a",
            "SELECT changes(1)",
            "SELECT last_insert_rowid(*)",
            "SELECT total_changes() FILTER (WHERE 1)",
        ])
    }

    func testConflictResolutionsAndFailedStatements() throws {
        try TriggerDifferentialTests.check([
            "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT UNIQUE, c NOT NULL)",
            "INSERT INTO t VALUES (1, 'x', 1), (2, 'y', 2)",
            "INSERT OR IGNORE INTO t VALUES (3, 'x', 3)",
            Self.counters,
            "INSERT OR IGNORE INTO t VALUES (4, 'q', 4), (5, 'y', 5)",
            Self.counters,
            "INSERT OR REPLACE INTO t VALUES (6, 'x', 6)",
            Self.counters,
            "INSERT INTO t VALUES (7, 'x', 7)",
            Self.counters,
            "INSERT INTO t VALUES (8, 'n', NULL)",
            Self.counters,
            "UPDATE t SET b = 'y' WHERE a = 6",
            Self.counters,
            "INSERT INTO t VALUES (2, 'r', 9) ON CONFLICT(a) DO UPDATE SET c = excluded.c + 100",
            Self.counters,
            "INSERT INTO t VALUES (20, 'y', 9) ON CONFLICT(b) DO NOTHING",
            Self.counters,
            "INSERT INTO t VALUES (21, 's', 1) ON CONFLICT DO UPDATE SET c = 0",
            Self.counters,
        ])
    }

    func testCallsInsideWrites() throws {
        try TriggerDifferentialTests.check([
            "CREATE TABLE t(a INTEGER PRIMARY KEY, b, c)",
            "INSERT INTO t VALUES (5, 1, 1)",
            "INSERT INTO t VALUES (NULL, last_insert_rowid(), changes())",
            "INSERT INTO t VALUES (NULL, last_insert_rowid(), total_changes()), (NULL, last_insert_rowid(), changes())",
            "INSERT INTO t SELECT NULL, last_insert_rowid(), changes() FROM t WHERE a < 8",
            "UPDATE t SET c = changes() + total_changes() WHERE a > 6",
            "UPDATE t SET b = last_insert_rowid() WHERE a = last_insert_rowid()",
            "INSERT INTO t VALUES (NULL, 0, 0) RETURNING a, last_insert_rowid(), changes(), total_changes()",
            "DELETE FROM t WHERE a = 5 RETURNING last_insert_rowid(), changes()",
            "CREATE TABLE d(a INTEGER PRIMARY KEY, b DEFAULT (last_insert_rowid()), c DEFAULT (total_changes()))",
            "INSERT INTO d(a) VALUES (50)",
            "INSERT INTO d(a) VALUES (NULL), (NULL)",
            "CREATE TABLE k(a CHECK (a > total_changes()))",
            "INSERT INTO k VALUES (1)",
            "INSERT INTO k VALUES (1000)",
            "CREATE TABLE g(a, b AS (changes()))",
            "CREATE INDEX ix ON t(last_insert_rowid())",
            "CREATE INDEX ix ON t(a) WHERE total_changes() > 0",
            "CREATE INDEX ix ON t(a + changes())",
            Self.counters,
        ])
    }

    func testTriggers() throws {
        try TriggerDifferentialTests.check([
            "CREATE TABLE t(a INTEGER PRIMARY KEY, b)",
            "CREATE TABLE log(id INTEGER PRIMARY KEY, event, seen_changes, seen_total, seen_rowid)",
            """
            CREATE TRIGGER ti AFTER INSERT ON t BEGIN
              INSERT INTO log(event, seen_changes, seen_total, seen_rowid)
                VALUES ('insert ' || new.a, changes(), total_changes(), last_insert_rowid());
              INSERT INTO log(id, event, seen_changes, seen_total, seen_rowid)
                VALUES (1000 + new.a, 'again', changes(), total_changes(), last_insert_rowid());
            END
            """,
            """
            CREATE TRIGGER tu BEFORE UPDATE ON t BEGIN
              INSERT INTO log(event, seen_changes, seen_total, seen_rowid)
                VALUES ('update ' || old.a, changes(), total_changes(), last_insert_rowid());
            END
            """,
            """
            CREATE TRIGGER td AFTER DELETE ON t WHEN changes() >= 0 BEGIN
              SELECT changes(), last_insert_rowid();
              UPDATE log SET seen_total = total_changes() WHERE id = 1;
              INSERT INTO log(event, seen_changes, seen_total, seen_rowid)
                VALUES ('delete ' || old.a, changes(), total_changes(), last_insert_rowid());
            END
            """,
            "INSERT INTO t VALUES (1, 'a')",
            Self.counters,
            "INSERT INTO t VALUES (2, 'b'), (3, 'c')",
            Self.counters,
            "UPDATE t SET b = b || '!'",
            Self.counters,
            "DELETE FROM t WHERE a > 1",
            Self.counters,
            "INSERT INTO t VALUES (1, 'dup')",
            Self.counters,
        ])
    }

    func testStatementsFailingAfterSomeRowsAndViewTriggers() throws {
        try TriggerDifferentialTests.check([
            "CREATE TABLE t(a INTEGER PRIMARY KEY, b UNIQUE)",
            "CREATE TABLE log(id INTEGER PRIMARY KEY, note)",
            "CREATE VIEW v AS SELECT a, b FROM t",
            """
            CREATE TRIGGER vi INSTEAD OF INSERT ON v BEGIN
              INSERT INTO t VALUES (new.a, new.b);
              INSERT INTO log(note) VALUES (last_insert_rowid() || '/' || changes() || '/' || total_changes());
            END
            """,
            "INSERT INTO t VALUES (30, 'a'), (31, 'b'), (32, 'a')",
            Self.counters,
            "INSERT OR FAIL INTO t VALUES (40, 'c'), (41, 'd'), (42, 'c')",
            Self.counters,
            "INSERT INTO v VALUES (50, 'e'), (51, 'f')",
            Self.counters,
            "INSERT INTO v VALUES (60, 'g'), (61, 'e')",
            Self.counters,
            "INSERT INTO t VALUES (70, 'h')",
            "INSERT INTO v VALUES (71, 'h')",
            Self.counters,
            "INSERT INTO t VALUES (72, 'i')",
            "UPDATE v SET b = 'x' WHERE a = 72",
            Self.counters,
            "DELETE FROM t WHERE a > changes() * 45",
            Self.counters,
            "INSERT INTO t VALUES (41, 'z') ON CONFLICT(a) DO UPDATE SET b = last_insert_rowid() || '-' || changes()",
            Self.counters,
            "INSERT OR REPLACE INTO t SELECT a + 100, b FROM t WHERE a < last_insert_rowid() ORDER BY a",
            Self.counters,
        ])
    }

    func testForeignKeyCascades() throws {
        try TriggerDifferentialTests.check([
            "CREATE TABLE p(id INTEGER PRIMARY KEY)",
            "CREATE TABLE c(id INTEGER PRIMARY KEY, p REFERENCES p ON DELETE CASCADE ON UPDATE CASCADE)",
            "INSERT INTO p VALUES (1), (2), (3)",
            "INSERT INTO c VALUES (10, 1), (11, 1), (12, 2)",
            Self.counters,
            "DELETE FROM p WHERE id = 1",
            Self.counters,
            "UPDATE p SET id = 20 WHERE id = 2",
            Self.counters,
            "INSERT INTO c VALUES (13, 99)",
            Self.counters,
            "SELECT id, p, changes() FROM c ORDER BY id",
        ])
    }

    func testExplicitTransactions() throws {
        try TriggerDifferentialTests.check([
            "CREATE TABLE t(a INTEGER PRIMARY KEY, b)",
            "BEGIN",
            "INSERT INTO t VALUES (1, 1), (2, 2)",
            Self.counters,
            "SAVEPOINT s",
            "INSERT INTO t VALUES (3, 3)",
            "ROLLBACK TO s",
            Self.counters,
            "RELEASE s",
            "COMMIT",
            Self.counters,
            "BEGIN",
            "DELETE FROM t",
            "ROLLBACK",
            Self.counters,
            "SELECT count(*), changes(), total_changes(), last_insert_rowid() FROM t",
        ])
    }

    /// A statement that uses a counter function runs right even when it is the connection's first to do so and
    /// its call is first compiled in the middle of a write (a trigger body's statement).
    func testFirstUseInsideTriggerBody() throws {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        try db.execute("CREATE TABLE t(a INTEGER PRIMARY KEY)")
        try db.execute("CREATE TABLE log(x, y)")
        try db.execute(
            "CREATE TRIGGER tr AFTER INSERT ON t BEGIN INSERT INTO log VALUES (changes(), total_changes()); END")
        let insert = try db.prepare("INSERT INTO t VALUES (7), (8)")
        _ = try insert.all()
        XCTAssertEqual(
            try db.query("SELECT x, y FROM log").rows, [[.integer(0), .integer(0)], [.integer(0), .integer(1)]])
        XCTAssertEqual(try db.query("SELECT count(*) FROM t").rows, [[.integer(2)]])
        XCTAssertEqual(try db.query("SELECT changes(), total_changes()").rows, [[.integer(2), .integer(4)]])
    }
}
