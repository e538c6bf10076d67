import Granite
import XCTest

private struct Player: TableRecord {}

private struct PartialPlayer: TableRecord {
    static let databaseTableName = "player"
    static var databaseSelection: [any SQLSelectable] { [Column("id"), Column("name")] }
}

private struct PlayerWithComputedColumns: TableRecord {
    static let databaseTableName = "player"
    static var databaseSelection: [any SQLSelectable] {
        [.allColumns, .rowID, (Column("score") * 2).forKey("doubleScore")]
    }
}

private struct PlayerWithoutScore: TableRecord {
    static let databaseTableName = "player"
    static var databaseSelection: [any SQLSelectable] { [.allColumns(excluding: ["SCORE"])] }
}

private struct PlayerWithLiteral: TableRecord {
    static let databaseTableName = "player"
    static var databaseSelection: [any SQLSelectable] { [Column("id"), SQL(sql: "name, score")] }
}

private struct Missing: TableRecord {}

final class NumberOfSelectedColumnsTests: XCTestCase {
    func testNumberOfSelectedColumns() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, score INTEGER)")
            XCTAssertEqual(try Player.numberOfSelectedColumns(db), 3, "SELECT * counts the table's columns")
            XCTAssertEqual(try PartialPlayer.numberOfSelectedColumns(db), 2)
            XCTAssertEqual(try PlayerWithComputedColumns.numberOfSelectedColumns(db), 5)
            XCTAssertEqual(try PlayerWithoutScore.numberOfSelectedColumns(db), 2)

            // The count matches what requests select.
            try db.execute(sql: "INSERT INTO player VALUES (1, 'Arthur', 10)")
            XCTAssertEqual(try Row.fetchOne(db, Player.all())?.count, 3)
            XCTAssertEqual(try Row.fetchOne(db, PartialPlayer.all())?.count, 2)
            XCTAssertEqual(try Row.fetchOne(db, PlayerWithComputedColumns.all())?.count, 5)
            XCTAssertEqual(try Row.fetchOne(db, PlayerWithoutScore.all())?.count, 2)
        }
    }

    func testLiteralSelectionCanNotBeCounted() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, score INTEGER)")
            XCTAssertThrowsError(try PlayerWithLiteral.numberOfSelectedColumns(db)) { error in
                guard let error = error as? DatabaseError else { return XCTFail("unexpected error \(error)") }
                XCTAssertEqual(error.resultCode, .SQLITE_MISUSE)
                XCTAssertEqual(
                    error.message,
                    "Selection literals don't known how many columns they contain. "
                        + "To resolve this error, select one or several expressions instead.")
            }
        }
    }

    func testMissingTable() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.read { db in
            XCTAssertThrowsError(try Missing.numberOfSelectedColumns(db)) { error in
                guard let error = error as? DatabaseError else { return XCTFail("unexpected error \(error)") }
                XCTAssertEqual(error.resultCode, .SQLITE_ERROR)
                XCTAssertEqual(error.message, "no such table: missing")
            }
        }
    }
}
