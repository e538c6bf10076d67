import Granite
import XCTest

final class DatabaseQuestionMarksTests: XCTestCase {
    func testQuestionMarks() {
        XCTAssertEqual(databaseQuestionMarks(count: 0), "")
        XCTAssertEqual(databaseQuestionMarks(count: 1), "?")
        XCTAssertEqual(databaseQuestionMarks(count: 3), "?,?,?")
        XCTAssertEqual(databaseQuestionMarks(count: -1), "", "a negative count has no placeholders")
    }

    func testQuestionMarksInAStatement() throws {
        let dbQueue = try DatabaseQueue()
        let ids = [1, 3, 4]
        let names = try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT)")
            try db.execute(sql: "INSERT INTO player VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')")
            return try String.fetchAll(
                db, sql: "SELECT name FROM player WHERE id IN (\(databaseQuestionMarks(count: ids.count))) ORDER BY id",
                arguments: StatementArguments(ids))
        }
        XCTAssertEqual(names, ["a", "c", "d"])
    }
}
