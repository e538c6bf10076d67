import Granite
import XCTest

private struct Player: FetchableRecord, Hashable {
    var id: Int64
    var name: String
    init(row: Row) {
        id = row["id"]
        name = row["name"]
    }
}

final class TableTests: XCTestCase {
    func testTableRequests() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, score INT);
                    INSERT INTO player VALUES (1, 'Arthur', 10), (2, 'Barbara', 20), (3, 'Craig', 30);
                    """)
            let table = Table("player")
            XCTAssertEqual(table.tableName, "player")
            XCTAssertEqual(try table.all().makePreparedRequest(db).statement.sql, "SELECT * FROM \"player\"")
            XCTAssertEqual(try table.fetchCount(db), 3)
            XCTAssertEqual(try table.fetchAll(db).count, 3)
            XCTAssertEqual(try table.fetchOne(db, key: 2)?["name"], "Barbara")
            XCTAssertEqual(try table.fetchOne(db, key: ["name": "Craig"])?["id"], 3)
            XCTAssertEqual(
                try table.filter(Column("score") > 15).order(Column("score").desc).fetchAll(db).map {
                    $0["id"] as Int64
                }, [3, 2])
            XCTAssertEqual(
                try table.select(Column("name"), as: String.self).order(Column("name")).fetchAll(db),
                ["Arthur", "Barbara", "Craig"])
            XCTAssertTrue(try table.exists(db, key: 1))
            XCTAssertFalse(try table.exists(db, key: ["name": "Diane"]))

            let players = Table<Player>("player")
            XCTAssertEqual(try players.fetchAll(db).map(\.name), ["Arthur", "Barbara", "Craig"])
            XCTAssertEqual(try players.fetchOne(db, key: 1)?.name, "Arthur")
            XCTAssertEqual(try players.fetchSet(db).count, 3)
            XCTAssertEqual(try players.limit(1, offset: 2).fetchOne(db)?.name, "Craig")

            XCTAssertEqual(try table.updateAll(db, Column("score").set(to: 0)), 3)
            XCTAssertTrue(try table.deleteOne(db, key: 1))
            XCTAssertEqual(try table.deleteAll(db, keys: [2, 3]), 2)
            XCTAssertEqual(try table.deleteAll(db), 0)
        }
    }
}
