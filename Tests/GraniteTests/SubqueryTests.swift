import Granite
import XCTest

private struct Player: TableRecord, FetchableRecord, Hashable {
    var id: Int64
    var teamId: Int64?
    var name: String
    var score: Int

    init(row: Row) {
        id = row["id"]
        teamId = row["teamId"]
        name = row["name"]
        score = row["score"]
    }
}

private struct Team: TableRecord {}

final class SubqueryTests: XCTestCase {
    private func makeDatabase() throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE team (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                    CREATE TABLE player (id INTEGER PRIMARY KEY, teamId INTEGER, name TEXT NOT NULL, score INT NOT NULL);
                    INSERT INTO team VALUES (1, 'Red'), (2, 'Blue');
                    INSERT INTO player VALUES (1, 1, 'Arthur', 100), (2, 2, 'Barbara', 300), (3, 1, 'Craig', 200),
                        (4, NULL, 'Diane', 300);
                    """)
        }
        return dbQueue
    }

    private func sql(_ db: Database, _ request: some FetchRequest) throws -> String {
        try request.makePreparedRequest(db, forSingleResult: false).statement.sql
    }

    func testRequestAsExpression() throws {
        try makeDatabase().read { db in
            let redTeamId = Team.select(Column("id")).filter(Column("name") == "Red")
            let request = Player.filter(Column("teamId") == redTeamId).order(Column("id"))
            XCTAssertEqual(
                try sql(db, request),
                #"SELECT * FROM "player" WHERE "teamId" = (SELECT "id" FROM "team" WHERE "name" = ?) ORDER BY "id""#)
            XCTAssertEqual(try request.fetchAll(db).map(\.name), ["Arthur", "Craig"])

            let maxScore = Player.select(max(Column("score")))
            let best = Player.filter(Column("score") == maxScore).order(Column("id"))
            XCTAssertEqual(
                try sql(db, best),
                #"SELECT * FROM "player" WHERE "score" = (SELECT MAX("score") FROM "player") ORDER BY "id""#)
            XCTAssertEqual(try best.fetchAll(db).map(\.name), ["Barbara", "Diane"])
        }
    }

    func testRequestAsSelectionAndOrdering() throws {
        try makeDatabase().read { db in
            let playerCount = Player.select(count(Column("id"))).filter(sql: "teamId = team.id")
            let request = Table("team").select(Column("name"), playerCount.forKey("playerCount")).order(Column("id"))
            XCTAssertEqual(
                try sql(db, request),
                #"SELECT "name", (SELECT COUNT("id") FROM "player" WHERE teamId = team.id) AS "playerCount" "#
                    + #"FROM "team" ORDER BY "id""#)
            let rows = try request.fetchAll(db)
            XCTAssertEqual(rows.map { $0["playerCount"] as Int }, [2, 1])

            let ordered = Table("team").select(Column("name"), as: String.self).order(playerCount.desc)
            XCTAssertEqual(
                try sql(db, ordered),
                #"SELECT "name" FROM "team" ORDER BY (SELECT COUNT("id") FROM "player" WHERE teamId = team.id) DESC"#)
            XCTAssertEqual(try ordered.fetchAll(db), ["Red", "Blue"])
        }
    }

    func testContainsAndExists() throws {
        try makeDatabase().read { db in
            let redPlayerIds = Player.select(Column("id")).filter(Column("teamId") == 1)
            let request = Player.filter(redPlayerIds.contains(Column("id")))
            XCTAssertEqual(
                try sql(db, request),
                #"SELECT * FROM "player" WHERE "id" IN (SELECT "id" FROM "player" WHERE "teamId" = ?)"#)
            XCTAssertEqual(try request.fetchAll(db).map(\.id), [1, 3])

            let notIn = Player.filter(!redPlayerIds.contains(Column("id")))
            XCTAssertEqual(
                try sql(db, notIn),
                #"SELECT * FROM "player" WHERE "id" NOT IN (SELECT "id" FROM "player" WHERE "teamId" = ?)"#)
            XCTAssertEqual(try notIn.fetchAll(db).map(\.id), [2, 4])

            let teamsWithPlayers = Table("team").filter(
                Player.filter(sql: "teamId = team.id").exists()
            ).select(Column("name"), as: String.self)
            XCTAssertEqual(
                try sql(db, teamsWithPlayers),
                #"SELECT "name" FROM "team" WHERE EXISTS (SELECT * FROM "player" WHERE teamId = team.id)"#)
            XCTAssertEqual(try teamsWithPlayers.fetchAll(db), ["Red", "Blue"])

            let teamsWithoutHighScore = Table("team").filter(
                !Player.filter(sql: "teamId = team.id AND score > 250").exists()
            ).select(Column("name"), as: String.self)
            XCTAssertEqual(
                try sql(db, teamsWithoutHighScore),
                #"SELECT "name" FROM "team" WHERE NOT EXISTS (SELECT * FROM "player" WHERE teamId = team.id AND score > 250)"#
            )
            XCTAssertEqual(try teamsWithoutHighScore.fetchAll(db), ["Red"])
        }
    }

    func testSQLRequestAsSubquery() throws {
        try makeDatabase().read { db in
            let blueIds: SQLRequest<Int64> = "SELECT id FROM team WHERE name = \("Blue")"
            let request = Player.filter(Column("teamId") == blueIds)
            XCTAssertEqual(
                try sql(db, request),
                #"SELECT * FROM "player" WHERE "teamId" = (SELECT id FROM team WHERE name = ?)"#)
            XCTAssertEqual(try request.fetchAll(db).map(\.name), ["Barbara"])

            let contained = Player.filter(blueIds.contains(Column("teamId")))
            XCTAssertEqual(
                try sql(db, contained),
                #"SELECT * FROM "player" WHERE "teamId" IN (SELECT id FROM team WHERE name = ?)"#)
            XCTAssertEqual(try contained.fetchAll(db).map(\.name), ["Barbara"])

            let named = SQLRequest<Int64>(sql: "SELECT id FROM team WHERE name = :name", arguments: ["name": "Red"])
            XCTAssertThrowsError(try Player.filter(Column("teamId") == named).fetchAll(db)) { error in
                XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_MISUSE)
            }
        }
    }

    func testSubqueryInterpolation() throws {
        try makeDatabase().read { db in
            let redTeam = Team.select(Column("id")).filter(Column("name") == "Red")
            let request: SQLRequest<String> = """
                SELECT name FROM player WHERE teamId IN (\(redTeam)) AND score > \(150)
                """
            XCTAssertEqual(
                try sql(db, request),
                #"SELECT name FROM player WHERE teamId IN (SELECT "id" FROM "team" WHERE "name" = ?) AND score > ?"#)
            XCTAssertEqual(try request.fetchAll(db), ["Craig"])

            let inner: SQLRequest<Int> = "SELECT score FROM player WHERE name = \("Craig")"
            let outer: SQLRequest<Int> = "SELECT COUNT(*) FROM player WHERE score < (\(inner))"
            XCTAssertEqual(
                try sql(db, outer), "SELECT COUNT(*) FROM player WHERE score < (SELECT score FROM player WHERE name = ?)")
            XCTAssertEqual(try outer.fetchOne(db), 1)

            let subquery = redTeam.sqlSubquery
            let countRequest: SQLRequest<Int> = "SELECT COUNT(*) FROM (\(subquery))"
            XCTAssertEqual(try countRequest.fetchOne(db), 1)
            XCTAssertEqual(
                try Int.fetchOne(db, Player.select(count(Column("id"))).filter(Column("teamId") == subquery)), 2)
        }
    }

    func testArgumentsFollowTheirPlaceholders() throws {
        try makeDatabase().read { db in
            let request = Player
                .filter(Column("score") > 150)
                .filter(Column("teamId") == Team.select(Column("id")).filter(Column("name") == "Red"))
                .filter(Column("name") != "Diane")
            let statement = try request.makePreparedRequest(db, forSingleResult: false).statement
            XCTAssertEqual(statement.arguments, [150, "Red", "Diane"])
            XCTAssertEqual(try request.fetchAll(db).map(\.name), ["Craig"])
        }
    }
}
