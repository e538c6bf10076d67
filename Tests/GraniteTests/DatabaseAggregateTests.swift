import Foundation
import Granite
import XCTest

private struct Sum: DatabaseAggregate {
    var sum: Int?
    mutating func step(_ dbValues: [DatabaseValue]) {
        if let int = Int.fromDatabaseValue(dbValues[0]) { sum = (sum ?? 0) + int }
    }
    func finalize() -> (any DatabaseValueConvertible)? { sum }
}

private struct ArgumentCounter: DatabaseAggregate {
    var counts: [Int] = []
    mutating func step(_ dbValues: [DatabaseValue]) { counts.append(dbValues.count) }
    func finalize() -> (any DatabaseValueConvertible)? { counts.map(String.init).joined(separator: ",") }
}

private struct Failing: DatabaseAggregate {
    mutating func step(_ dbValues: [DatabaseValue]) throws {
        if dbValues[0] == "fail step".databaseValue {
            throw DatabaseError(resultCode: ResultCode(rawValue: 123), message: "step failed")
        }
    }
    func finalize() throws -> (any DatabaseValueConvertible)? {
        throw NSError(domain: "CustomErrorDomain", code: 321, userInfo: [NSLocalizedDescriptionKey: "finalize failed"])
    }
}

final class DatabaseAggregateTests: XCTestCase {
    func testAggregation() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            db.add(function: DatabaseFunction("mySum", argumentCount: 1, aggregate: Sum.self))
            try db.execute(sql: "CREATE TABLE test(i); INSERT INTO test VALUES (1), (2), (3)")
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT mysum(i) FROM test"), 6)
            XCTAssertNil(try Int.fetchOne(db, sql: "SELECT mySum(i) FROM test WHERE 0"))
        }
    }

    func testParallelAggregationsAndGroupsHaveTheirOwnState() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            db.add(function: DatabaseFunction("f", argumentCount: 1, aggregate: Sum.self))
            try db.execute(sql: "CREATE TABLE pairs(a, b); INSERT INTO pairs VALUES (1, 2), (2, 4), (3, 6)")
            let row = try XCTUnwrap(try Row.fetchOne(db, sql: "SELECT f(a), f(b) FROM pairs"))
            XCTAssertEqual(row[0], 6)
            XCTAssertEqual(row[1], 12)
            try db.execute(sql: "CREATE TABLE t(g TEXT, v INTEGER); INSERT INTO t VALUES ('a', 1), ('b', 10), ('a', 2)")
            XCTAssertEqual(try Int.fetchAll(db, sql: "SELECT f(v) FROM t GROUP BY g ORDER BY g"), [3, 10])
        }
    }

    func testArgumentCounts() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            db.add(function: DatabaseFunction("counts", aggregate: ArgumentCounter.self))
            db.add(function: DatabaseFunction("pairs", argumentCount: 2, aggregate: ArgumentCounter.self))
            try db.execute(sql: "CREATE TABLE two(x); INSERT INTO two VALUES (1), (2)")
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT counts() FROM two"), "0,0")
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT counts(1, 2, 3)"), "3")
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT pairs(x, 2) FROM two"), "2,2")
            XCTAssertThrowsError(try db.execute(sql: "SELECT pairs(1)")) { error in
                XCTAssertEqual((error as? DatabaseError)?.message, "wrong number of arguments to function pairs()")
            }
        }
    }

    func testErrorsOfStepAndFinalize() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            db.add(function: DatabaseFunction("failing", argumentCount: 1, aggregate: Failing.self))
            XCTAssertThrowsError(try db.execute(sql: "SELECT failing('fail step')")) { error in
                let error = error as? DatabaseError
                XCTAssertEqual(error?.extendedResultCode.rawValue, 123)
                XCTAssertEqual(error?.message, "step failed")
            }
            XCTAssertThrowsError(try db.execute(sql: "SELECT failing('ok')")) { error in
                let error = error as? DatabaseError
                XCTAssertEqual(error?.resultCode, .SQLITE_ERROR)
                XCTAssertTrue(error?.message?.contains("CustomErrorDomain") == true)
                XCTAssertTrue(error?.message?.contains("321") == true)
            }
        }
    }

    func testAggregateInQueryInterface() throws {
        let mySum = DatabaseFunction("mySum", argumentCount: 1, aggregate: Sum.self)
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            db.add(function: mySum)
            try db.execute(sql: "CREATE TABLE player(team TEXT, score INTEGER)")
            try db.execute(sql: "INSERT INTO player VALUES ('red', 1), ('blue', 10), ('red', 2)")
            let total = Table("player").select(mySum(Column("score")), as: Int.self)
            XCTAssertEqual(try total.makePreparedRequest(db).statement.sql, "SELECT mySum(\"score\") FROM \"player\"")
            XCTAssertEqual(try total.fetchOne(db), 13)
            let byTeam = Table("player")
                .select(Column("team"), mySum(Column("score")))
                .group(Column("team"))
                .having(mySum(Column("score")) > 5)
            XCTAssertEqual(try Row.fetchAll(db, byTeam).map { $0["team"] as String }, ["blue"])
        }
    }
}
