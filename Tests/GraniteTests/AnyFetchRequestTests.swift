import Granite
import XCTest

private struct Player: TableRecord, FetchableRecord {
    var id: Int64
    var name: String

    init(row: Row) {
        id = row["id"]
        name = row["name"]
    }
}

final class AnyFetchRequestTests: XCTestCase {
    private func makeDatabase() throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INT NOT NULL);
                    INSERT INTO player VALUES (1, 'Arthur', 100), (2, 'Barbara', 300), (3, 'Craig', 200);
                    """)
        }
        return dbQueue
    }

    private func request(sortedByScore: Bool) -> AnyFetchRequest<Player> {
        if sortedByScore {
            return AnyFetchRequest(Player.order(Column("score").desc))
        }
        return AnyFetchRequest(SQLRequest<Player>(sql: "SELECT * FROM player ORDER BY name"))
    }

    func testErasedRequestsFetchLikeTheirBase() throws {
        try makeDatabase().read { db in
            XCTAssertEqual(try request(sortedByScore: true).fetchAll(db).map(\.name), ["Barbara", "Craig", "Arthur"])
            XCTAssertEqual(try request(sortedByScore: false).fetchAll(db).map(\.name), ["Arthur", "Barbara", "Craig"])
            XCTAssertEqual(try request(sortedByScore: true).fetchOne(db)?.name, "Barbara")
            XCTAssertEqual(try request(sortedByScore: true).fetchCount(db), 3)
            XCTAssertEqual(try request(sortedByScore: false).fetchCount(db), 3)
        }
    }

    func testPreparedRequestKeepsTheBaseSQL() throws {
        try makeDatabase().read { db in
            let erased = AnyFetchRequest(Player.filter(Column("score") > 150).order(Column("id")))
            let statement = try erased.makePreparedRequest(db).statement
            XCTAssertEqual(statement.sql, #"SELECT * FROM "player" WHERE "score" > ? ORDER BY "id""#)
            XCTAssertEqual(statement.arguments, [150])
            XCTAssertEqual(
                try erased.makePreparedRequest(db, forSingleResult: true).statement.sql,
                #"SELECT * FROM "player" WHERE "score" > ? ORDER BY "id" LIMIT 1"#)
        }
    }

    func testAsRequestChangesTheDecodedType() throws {
        try makeDatabase().read { db in
            let names = AnyFetchRequest(Player.select(Column("name")).order(Column("name"))).asRequest(of: String.self)
            XCTAssertEqual(try names.fetchAll(db), ["Arthur", "Barbara", "Craig"])
            let rows = AnyFetchRequest(Player.all()).asRequest(of: Row.self)
            XCTAssertEqual(try rows.fetchAll(db).count, 3)
        }
    }

    func testErasedRequestIsASubquery() throws {
        try makeDatabase().read { db in
            let topIds = AnyFetchRequest(Player.select(Column("id")).filter(Column("score") >= 200))
            let request = Player.filter(topIds.contains(Column("id"))).order(Column("id"))
            XCTAssertEqual(
                try request.makePreparedRequest(db).statement.sql,
                #"SELECT * FROM "player" WHERE "id" IN (SELECT "id" FROM "player" WHERE "score" >= ?) ORDER BY "id""#)
            XCTAssertEqual(try request.fetchAll(db).map(\.name), ["Barbara", "Craig"])
            let interpolated: SQLRequest<Int> = "SELECT COUNT(*) FROM (\(topIds))"
            XCTAssertEqual(try interpolated.fetchOne(db), 2)
        }
    }
}
