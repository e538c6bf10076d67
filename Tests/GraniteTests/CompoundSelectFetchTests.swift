import Granite
import GraniteTestSupport
import XCTest

/// Compound selects and VALUES lists through Granite's statement layer: fetching rows, prepared statements run
/// again with new arguments (each term, a FROM compound and a compound subquery see the new values), and
/// INSERT … SELECT of a compound.
final class CompoundSelectFetchTests: XCTestCase {
    private func makeDatabase() throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT COLLATE NOCASE, score INTEGER);
                    INSERT INTO player VALUES (1, 'arthur', 10), (2, 'Barbara', 20), (3, 'craig', 10);
                    """)
        }
        return dbQueue
    }

    func testFetchingCompoundsAndValues() throws {
        try makeDatabase().read { db in
            XCTAssertEqual(
                try String.fetchAll(db, sql: "SELECT name FROM player UNION SELECT 'ARTHUR' ORDER BY 1"),
                ["ARTHUR", "Barbara", "craig"])
            XCTAssertEqual(try Int.fetchAll(db, sql: "SELECT score FROM player UNION ALL SELECT 5"), [10, 20, 10, 5])
            XCTAssertEqual(try Int.fetchAll(db, sql: "SELECT score FROM player EXCEPT SELECT 20"), [10])
            XCTAssertEqual(try Int.fetchAll(db, sql: "SELECT score FROM player INTERSECT VALUES (20), (30)"), [20])
            let rows = try Row.fetchAll(db, sql: "VALUES (1, 'a'), (2, 'b')")
            XCTAssertEqual(Array(rows[0].columnNames), ["column1", "column2"])
            XCTAssertEqual(rows.map { $0[1] as String }, ["a", "b"])
        }
    }

    func testPreparedCompoundRunsAgainWithNewArguments() throws {
        try makeDatabase().read { db in
            let top = try db.makeStatement(sql: "SELECT id FROM player WHERE score = ? UNION SELECT ? ORDER BY 1 DESC")
            XCTAssertEqual(try Int.fetchAll(top, arguments: [10, 7]), [7, 3, 1])
            XCTAssertEqual(try Int.fetchAll(top, arguments: [20, 1]), [2, 1])

            let from = try db.makeStatement(sql: "SELECT count(*) FROM (SELECT ? UNION SELECT ? UNION SELECT ?)")
            XCTAssertEqual(try Int.fetchOne(from, arguments: [1, 1, 2]), 2)
            XCTAssertEqual(try Int.fetchOne(from, arguments: [1, 2, 3]), 3)

            // A FROM subquery is read again on each execution (its rows used to stay from the first).
            let plain = try db.makeStatement(sql: "SELECT count(*) FROM (SELECT id FROM player WHERE score = ?)")
            XCTAssertEqual(try Int.fetchOne(plain, arguments: [10]), 2)
            XCTAssertEqual(try Int.fetchOne(plain, arguments: [20]), 1)

            let subquery = try db.makeStatement(
                sql: "SELECT id FROM player WHERE score IN (SELECT ? UNION ALL SELECT ?) ORDER BY id")
            XCTAssertEqual(try Int.fetchAll(subquery, arguments: [20, 0]), [2])
            XCTAssertEqual(try Int.fetchAll(subquery, arguments: [10, 0]), [1, 3])
        }
    }

    func testInsertSelectOfACompound() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE name (value TEXT)")
            try db.execute(sql: "INSERT INTO name SELECT name FROM player UNION SELECT ? ", arguments: ["dora"])
            XCTAssertEqual(
                try String.fetchAll(db, sql: "SELECT value FROM name ORDER BY value COLLATE NOCASE"),
                ["arthur", "Barbara", "craig", "dora"])
        }
    }
}
