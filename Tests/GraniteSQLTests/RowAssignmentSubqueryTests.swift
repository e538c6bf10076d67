import GraniteSQL
import GraniteStorage
import Synchronization
import XCTest

/// `UPDATE … SET (a, b, …) = (SELECT …)`: the subquery runs once per updated row, not once per assigned column,
/// whether it is correlated or not, in a plain UPDATE, an upsert, a trigger body, an `UPDATE … FROM` and an update
/// of a view.
final class RowAssignmentSubqueryTests: XCTestCase {
    /// How many times `tick` ran.
    private final class Calls: Sendable {
        private let count = Mutex(0)
        func withLock<T>(_ body: (inout Int) -> T) -> T { count.withLock { body(&$0) } }
    }

    /// A connection with `tick(x)`, which counts its calls in `calls` and returns `x`.
    private func connection(counting calls: Calls) throws -> SQLConnection {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        db.addFunction(
            SQLCustomFunction(
                name: "tick", argumentCount: 1, isDeterministic: false,
                kind: .scalar { args in
                    calls.withLock { $0 += 1 }
                    return args[0]
                }))
        try db.execute("CREATE TABLE t(a PRIMARY KEY, b, c)")
        try db.execute("INSERT INTO t VALUES (1, 10, 100), (2, 20, 200), (3, 30, 300)")
        return db
    }

    func testCorrelatedSubqueryRunsOncePerRow() throws {
        let calls = Calls()
        let db = try connection(counting: calls)
        try db.execute("UPDATE t SET (b, c, a) = (SELECT tick(w.c), w.b, w.a + 10 FROM t AS w WHERE w.a = t.a)")
        XCTAssertEqual(calls.withLock { $0 }, 3)
        let expected: [[Value]] = [
            [.integer(11), .integer(100), .integer(10)], [.integer(12), .integer(200), .integer(20)],
            [.integer(13), .integer(300), .integer(30)],
        ]
        XCTAssertEqual(try db.query("SELECT a, b, c FROM t ORDER BY a").rows, expected)
    }

    func testUncorrelatedSubqueryRunsOncePerStatement() throws {
        let calls = Calls()
        let db = try connection(counting: calls)
        try db.execute("UPDATE t SET (b, c) = (SELECT tick(7), 8)")
        XCTAssertEqual(calls.withLock { $0 }, 1)
        let expected: [[Value]] = [[.integer(7), .integer(8)]]
        XCTAssertEqual(try db.query("SELECT DISTINCT b, c FROM t").rows, expected)
    }

    func testEmptySubqueryAssignsNulls() throws {
        let calls = Calls()
        let db = try connection(counting: calls)
        try db.execute("UPDATE t SET (b, c) = (SELECT tick(1), 2 WHERE 0) WHERE a = 2")
        XCTAssertEqual(try db.query("SELECT b, c FROM t WHERE a = 2").rows, [[.null, .null]])
    }

    func testUpsertAndTriggerBodies() throws {
        let calls = Calls()
        let db = try connection(counting: calls)
        try db.execute(
            "INSERT INTO t VALUES (2, 0, 0) ON CONFLICT(a) DO UPDATE SET (b, c) = (SELECT tick(excluded.a), t.b)")
        XCTAssertEqual(calls.withLock { $0 }, 1)
        XCTAssertEqual(try db.query("SELECT b, c FROM t WHERE a = 2").rows, [[.integer(2), .integer(20)]])
        try db.execute("CREATE TABLE log(x, y, z)")
        try db.execute("INSERT INTO log VALUES (0, 0, 0)")
        try db.execute(
            "CREATE TRIGGER tr AFTER UPDATE ON t BEGIN "
                + "UPDATE log SET (x, y, z) = (SELECT tick(new.a), new.b, old.b); END")
        calls.withLock { $0 = 0 }
        try db.execute("UPDATE t SET b = 99 WHERE a = 3")
        XCTAssertEqual(calls.withLock { $0 }, 1)
        XCTAssertEqual(try db.query("SELECT * FROM log").rows, [[.integer(3), .integer(99), .integer(30)]])
    }

    func testWidthMismatchIsSQLitesError() throws {
        let db = try connection(counting: Calls())
        for (sql, message) in [
            ("UPDATE t SET (b, c) = (SELECT 1, 2, 3)", "2 columns assigned 3 values"),
            ("UPDATE t SET (b, c) = (SELECT * FROM t)", "2 columns assigned 3 values"),
            ("UPDATE t SET (a, b, c) = (SELECT 1)", "3 columns assigned 1 values"),
            ("UPDATE t SET (b) = (SELECT 1, 2)", "1 columns assigned 2 values"),
            ("UPDATE t SET (b, c) = (SELECT 1, 2, 3) FROM t AS w WHERE w.a = t.a + 1", "2 columns assigned 3 values"),
            ("UPDATE t SET (b, c) = (SELECT 1)", "2 columns assigned 1 values"),
        ] {
            XCTAssertThrowsError(try db.execute(sql), sql) { XCTAssertEqual("\($0)", message, sql) }
        }
    }

    func testUpdateFromSubqueryRunsOncePerUpdatedRow() throws {
        let calls = Calls()
        let db = try connection(counting: calls)
        try db.execute("UPDATE t SET (c, b) = (SELECT tick(w.c), t.b + w.b) FROM t AS w WHERE w.a = t.a + 1")
        XCTAssertEqual(calls.withLock { $0 }, 2)
        let expected: [[Value]] = [
            [.integer(1), .integer(30), .integer(200)], [.integer(2), .integer(50), .integer(300)],
            [.integer(3), .integer(30), .integer(300)],
        ]
        XCTAssertEqual(try db.query("SELECT a, b, c FROM t ORDER BY a").rows, expected)
    }

    func testViewUpdateFromSubqueryRunsOncePerViewRow() throws {
        let calls = Calls()
        let db = try connection(counting: calls)
        try db.execute("CREATE VIEW v AS SELECT a, b FROM t")
        try db.execute("CREATE TRIGGER tv INSTEAD OF UPDATE ON v BEGIN UPDATE t SET b = new.b WHERE a = old.a; END")
        try db.execute("UPDATE v SET (a, b) = (SELECT 1, tick(v.b) + 1) WHERE a > 1")
        XCTAssertEqual(calls.withLock { $0 }, 2)
        XCTAssertEqual(try db.query("SELECT b FROM t ORDER BY a").rows, [[.integer(10)], [.integer(21)], [.integer(31)]])
    }
}
