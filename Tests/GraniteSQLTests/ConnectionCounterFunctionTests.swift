import GraniteSQL
import GraniteStorage
import XCTest

/// `changes()`, `total_changes()` and `last_insert_rowid()`: a prepared statement reads the counters each time it
/// runs, each connection reads its own, and an application function of the name takes precedence.
final class ConnectionCounterFunctionTests: XCTestCase {
    private func connection() throws -> SQLConnection {
        try SQLConnection(engine: try StorageEngine.inMemory())
    }

    func testPreparedStatementReadsCurrentCountersEachRun() throws {
        let db = try connection()
        try db.execute("CREATE TABLE t(a INTEGER PRIMARY KEY)")
        let read = try db.prepare("SELECT changes(), total_changes(), last_insert_rowid()")
        XCTAssertEqual(try read.all(), [[.integer(0), .integer(0), .integer(0)]])
        try db.execute("INSERT INTO t VALUES (41), (42)")
        read.reset()
        XCTAssertEqual(try read.all(), [[.integer(2), .integer(2), .integer(42)]])
        try db.execute("DELETE FROM t")
        read.reset()
        XCTAssertEqual(try read.all(), [[.integer(2), .integer(4), .integer(42)]])
    }

    func testEachConnectionReadsItsOwnCounters() throws {
        let engine = try StorageEngine.inMemory()
        let first = try SQLConnection(engine: engine)
        let second = try SQLConnection(engine: engine)
        try first.execute("CREATE TABLE t(a INTEGER PRIMARY KEY)")
        try first.execute("INSERT INTO t VALUES (7)")
        try second.execute("INSERT INTO t VALUES (9), (10)")
        XCTAssertEqual(try first.query("SELECT last_insert_rowid(), changes()").rows, [[.integer(7), .integer(1)]])
        XCTAssertEqual(try second.query("SELECT last_insert_rowid(), changes()").rows, [[.integer(10), .integer(2)]])
    }

    func testApplicationFunctionOfTheNameTakesPrecedence() throws {
        let db = try connection()
        db.addFunction(
            SQLCustomFunction(
                name: "changes", argumentCount: 0, isDeterministic: true, kind: .scalar { _ in .text("mine") }))
        XCTAssertEqual(try db.query("SELECT changes(), total_changes()").rows, [[.text("mine"), .integer(0)]])
    }

    func testWrongArgumentCountIsAnError() throws {
        let db = try connection()
        XCTAssertThrowsError(try db.query("SELECT last_insert_rowid(1)")) { error in
            XCTAssertEqual("\(error)", "wrong number of arguments to function last_insert_rowid()")
        }
    }

    /// The first statement calling a counter function, inside a trigger body fired in the middle of a write, runs
    /// once: an observer sees each row change once, and the counters the calls read are those of that moment.
    func testFirstCounterCallInsideATriggerRunsOnce() throws {
        let db = try connection()
        let observer = RowChangeRecorder()
        db.changeObserver = observer
        try db.execute("CREATE TABLE t(a INTEGER PRIMARY KEY)")
        try db.execute("CREATE TABLE log(x, y)")
        try db.execute(
            "CREATE TRIGGER tr AFTER INSERT ON t BEGIN INSERT INTO log VALUES (last_insert_rowid(), changes()); END")
        try db.execute("INSERT INTO t VALUES (7), (8)")
        XCTAssertEqual(
            observer.changes.map { "\($0.kind) \($0.tableName) \($0.rowid)" },
            ["insert t 7", "insert log 1", "insert t 8", "insert log 2"])
        XCTAssertEqual(
            try db.query("SELECT x, y FROM log ORDER BY rowid").rows,
            [[.integer(7), .integer(0)], [.integer(8), .integer(0)]])
        XCTAssertEqual(try db.query("SELECT last_insert_rowid(), changes()").rows, [[.integer(8), .integer(2)]])
    }

    /// A row inserted earlier in the same statement is what `last_insert_rowid()` returns for the next one of its
    /// `VALUES`; a query reading the table written runs to its end before the first insert.
    func testInsertReadsTheRowidOfItsOwnPreviousRow() throws {
        let db = try connection()
        try db.execute("CREATE TABLE t(a INTEGER PRIMARY KEY, b)")
        try db.execute("INSERT INTO t VALUES (10, last_insert_rowid()), (NULL, last_insert_rowid())")
        try db.execute("INSERT INTO t(b) SELECT last_insert_rowid() FROM t")
        XCTAssertEqual(
            try db.query("SELECT a, b FROM t ORDER BY a").rows,
            [
                [.integer(10), .integer(0)], [.integer(11), .integer(10)], [.integer(12), .integer(11)],
                [.integer(13), .integer(11)],
            ])
    }
}

/// Records the row changes a connection reports.
private final class RowChangeRecorder: SQLChangeObserver {
    var changes: [SQLRowChange] = []
    func rowDidChange(_ change: SQLRowChange) { changes.append(change) }
}
