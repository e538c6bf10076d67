import Granite
import XCTest

final class StatementArgumentsTests: XCTestCase {
    func testLiteralsAndDescription() {
        let positional: StatementArguments = [1, "a", nil]
        XCTAssertEqual(positional.description, "[1, \"a\", NULL]")
        let named: StatementArguments = ["b": 2, "a": "x"]
        XCTAssertEqual(named.description, "[\"a\": \"x\", \"b\": 2]")
        XCTAssertTrue(StatementArguments().isEmpty)
        XCTAssertFalse(positional.isEmpty)
    }

    func testInitFromAny() {
        XCTAssertNotNil(StatementArguments([1, "a"] as [Any]))
        XCTAssertNil(StatementArguments([1, NSObject()] as [Any]))
        XCTAssertNotNil(StatementArguments(["a": 1] as [AnyHashable: Any]))
        XCTAssertNil(StatementArguments([1: 1] as [AnyHashable: Any]))
    }

    func testConcatenation() {
        let a: StatementArguments = [1, 2]
        let b: StatementArguments = [3]
        XCTAssertEqual(a + b, [1, 2, 3])
        var c: StatementArguments = ["x": 1]
        c += ["y": 2]
        XCTAssertEqual(c, ["x": 1, "y": 2])
        XCTAssertEqual(["x": 1] &+ ["x": 2] as StatementArguments, ["x": 2])
        var d: StatementArguments = ["x": 1]
        XCTAssertEqual(d.append(contentsOf: ["x": 3]), ["x": DatabaseValue(value: 1)!])
    }

    func testBindingPositionalAndNamed() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t (a, b)")
            try db.execute(sql: "INSERT INTO t VALUES (?, ?)", arguments: [1, 2])
            try db.execute(sql: "INSERT INTO t VALUES (:a, :b)", arguments: ["a": 3, "b": 4])
            try db.execute(sql: "INSERT INTO t VALUES ($a, @b)", arguments: ["a": 5, "b": 6])
            // A named parameter takes a positional value when the dictionary lacks its name.
            try db.execute(sql: "INSERT INTO t VALUES (:a, :b)", arguments: [7, 8])
            // ?NNN parameters reuse the same value.
            try db.execute(sql: "INSERT INTO t VALUES (?1, ?1)", arguments: [9])
            XCTAssertEqual(
                try Int.fetchAll(db, sql: "SELECT a * 10 + b FROM t ORDER BY a"), [12, 34, 56, 78, 99])
        }
    }

    func testWrongArgumentCounts() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t (a, b)")
            XCTAssertThrowsError(try db.execute(sql: "INSERT INTO t VALUES (?, ?)", arguments: [1])) { error in
                let error = error as! DatabaseError
                XCTAssertEqual(error.resultCode, .SQLITE_MISUSE)
                XCTAssertEqual(error.message, "wrong number of statement arguments: 1")
            }
            XCTAssertThrowsError(try db.execute(sql: "INSERT INTO t VALUES (?, ?)", arguments: [1, 2, 3]))
            XCTAssertThrowsError(try db.execute(sql: "INSERT INTO t VALUES (:a, :b)", arguments: ["a": 1])) { error in
                XCTAssertEqual((error as! DatabaseError).message, "missing statement argument: b")
            }
            let statement = try db.makeStatement(sql: "SELECT ?, :x")
            XCTAssertThrowsError(try statement.validateArguments([1]))
            XCTAssertNoThrow(try statement.validateArguments([1, 2]))
            XCTAssertNoThrow(try statement.validateArguments(StatementArguments([1]) + ["x": 2]))
            statement.setUncheckedArguments([1])
            XCTAssertEqual(try Row.fetchOne(statement), ["?": 1, ":x": nil])
        }
    }

    func testScriptConsumesArgumentsInOrder() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE t (a);
                    INSERT INTO t VALUES (?);
                    INSERT INTO t VALUES (?);
                    """, arguments: [1, 2])
            XCTAssertEqual(try Int.fetchAll(db, sql: "SELECT a FROM t ORDER BY a"), [1, 2])
            XCTAssertThrowsError(
                try db.execute(sql: "INSERT INTO t VALUES (?); INSERT INTO t VALUES (?)", arguments: [1, 2, 3]))
        }
    }
}
