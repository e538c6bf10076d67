import Granite
import XCTest

private struct Player: TableRecord, FetchableRecord {
    enum Columns {
        static let id = Column("id")
        static let teamId = Column("teamId")
        static let name = Column("name")
        static let score = Column("score")
    }

    var id: Int64
    var name: String

    init(row: Row) {
        id = row["id"]
        name = row["name"]
    }
}

private struct Team: TableRecord {}

final class TableAliasTests: XCTestCase {
    private func makeDatabase() throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE team (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                    CREATE TABLE player (id INTEGER PRIMARY KEY, teamId INTEGER, name TEXT NOT NULL, score INT NOT NULL);
                    CREATE TABLE tag (name TEXT PRIMARY KEY);
                    INSERT INTO team VALUES (1, 'Red'), (2, 'Blue');
                    INSERT INTO player VALUES (1, 1, 'Arthur', 100), (2, 2, 'Barbara', 300), (3, 1, 'Craig', 200),
                        (4, 2, 'Diane', 50);
                    """)
        }
        return dbQueue
    }

    private func sql(_ db: Database, _ request: some FetchRequest) throws -> String {
        try request.makePreparedRequest(db, forSingleResult: false).statement.sql
    }

    func testNamedAliasQualifiesTheRequest() throws {
        try makeDatabase().read { db in
            let p = TableAlias(name: "p")
            let request = Player.aliased(p).filter(Column("score") > 150).order(Column("name").desc)
            XCTAssertEqual(
                try sql(db, request),
                #"SELECT "p".* FROM "player" "p" WHERE "p"."score" > ? ORDER BY "p"."name" DESC"#)
            XCTAssertEqual(try request.fetchAll(db).map(\.name), ["Craig", "Barbara"])
            XCTAssertEqual(try request.fetchCount(db), 2)

            let selection = Table("player").aliased(TableAlias(name: "x")).select(Column("name"), count(Column("id")))
                .group(Column("teamId"))
            XCTAssertEqual(
                try sql(db, selection), #"SELECT "x"."name", COUNT("x"."id") FROM "player" "x" GROUP BY "x"."teamId""#)

            let typed = TableAlias<Player>(name: "t")
            let byScore = Player.all().aliased(typed).filter { $0.score < 150 }.order(typed.score)
            XCTAssertEqual(
                try sql(db, byScore), #"SELECT "t".* FROM "player" "t" WHERE "t"."score" < ? ORDER BY "t"."score""#)
            XCTAssertEqual(try byScore.fetchAll(db).map(\.name), ["Diane", "Arthur"])
        }
    }

    func testAnonymousAliasLeavesTheRequestUnchanged() throws {
        try makeDatabase().read { db in
            let alias = TableAlias()
            let request = Player.aliased(alias).filter(Column("score") > 150)
            XCTAssertEqual(try sql(db, request), #"SELECT * FROM "player" WHERE "score" > ?"#)
            XCTAssertEqual(try SQL("\(alias[Column("score")])").build(db).sql, #""player"."score""#)
            XCTAssertEqual(try request.fetchCount(db), 2)
        }
    }

    func testCorrelatedSubqueries() throws {
        try makeDatabase().read { db in
            // The best player of each team.
            let p = TableAlias(name: "p")
            let bestScoreOfTeam = Player.select(max(Column("score"))).filter(Column("teamId") == p[Column("teamId")])
            let request = Player.aliased(p).filter(Column("score") == bestScoreOfTeam).order(Column("id"))
            XCTAssertEqual(
                try sql(db, request),
                #"SELECT "p".* FROM "player" "p" WHERE "p"."score" = "#
                    + #"(SELECT MAX("score") FROM "player" WHERE "teamId" = "p"."teamId") ORDER BY "p"."id""#)
            XCTAssertEqual(try request.fetchAll(db).map(\.name), ["Barbara", "Craig"])

            // Teams that have a player, from the team alias.
            let team = TableAlias<Team>(name: "team")
            let teamsWithBestPlayer = Team.aliased(team)
                .filter(Player.filter(Column("teamId") == team["id"] && Column("score") > 250).exists())
                .select(Column("name"), as: String.self)
            XCTAssertEqual(
                try sql(db, teamsWithBestPlayer),
                #"SELECT "team"."name" FROM "team" "team" WHERE EXISTS "#
                    + #"(SELECT * FROM "player" WHERE ("teamId" = "team"."id") AND ("score" > ?))"#)
            XCTAssertEqual(try teamsWithBestPlayer.fetchAll(db), ["Blue"])
        }
    }

    func testSelfJoinWithSQLLiteral() throws {
        try makeDatabase().read { db in
            let other = TableAlias(name: "other")
            let request = Player.aliased(TableAlias(name: "me"))
                .filter(literal: "EXISTS (SELECT 1 FROM player other WHERE \(other[Column("teamId")]) = me.teamId AND \(other[Column("score")]) > me.score)")
                .select(Column("name"), as: String.self)
                .order(Column("name"))
            _ = Player.aliased(other)
            XCTAssertEqual(
                try sql(db, request),
                #"SELECT "me"."name" FROM "player" "me" WHERE EXISTS (SELECT 1 FROM player other "#
                    + #"WHERE "other"."teamId" = me.teamId AND "other"."score" > me.score) ORDER BY "me"."name""#)
            XCTAssertEqual(try request.fetchAll(db), ["Arthur", "Diane"])
        }
    }

    func testSubscripts() throws {
        try makeDatabase().read { db in
            let alias = TableAlias<Player>(name: "p")
            _ = Player.aliased(alias)
            XCTAssertEqual(try SQL("\(alias["name"])").build(db).sql, #""p"."name""#)
            XCTAssertEqual(try SQL("\(alias[Column("score") * 2 + 1])").build(db).sql, #"("p"."score" * ?) + ?"#)
            XCTAssertEqual(try SQL("\(alias[Column("score").desc])").build(db).sql, #""p"."score" DESC"#)
            XCTAssertEqual(try SQL("\(alias.name)").build(db).sql, #""p"."name""#)

            let request = Table("player").select(alias[AllColumns()]).aliased(alias)
            XCTAssertEqual(try sql(db, request), #"SELECT "p".* FROM "player" "p""#)
            let excluding = Table("player").select(alias[.allColumns(excluding: ["score", "teamId"])]).aliased(alias)
            XCTAssertEqual(try sql(db, excluding), #"SELECT "p"."id", "p"."name" FROM "player" "p""#)
            let keyed = Table("player").select(alias[(Column("score") + 1).forKey("next")]).aliased(alias)
            XCTAssertEqual(try sql(db, keyed), #"SELECT "p"."score" + ? AS "next" FROM "player" "p""#)

            XCTAssertEqual(try SQL("\(alias.exists)").build(db).sql, #""p"."id" IS NOT NULL"#)
            let tag = TableAlias(name: "t")
            _ = Table("tag").aliased(tag)
            XCTAssertEqual(try SQL("\(tag.exists)").build(db).sql, #""t"."rowid" IS NOT NULL"#)
            XCTAssertEqual(try SQL("\(!tag.exists)").build(db).sql, #""t"."rowid" IS NULL"#)
        }
    }

    func testEquality() {
        let a = TableAlias()
        let b = TableAlias()
        XCTAssertEqual(a, a)
        XCTAssertNotEqual(a, b)
        XCTAssertEqual(Set<TableAliasBase>([a, a, b]).count, 2)
        let typed = TableAlias<Player>(name: "p")
        XCTAssertEqual(typed as TableAliasBase, typed as TableAliasBase)
        XCTAssertNotEqual(typed as TableAliasBase, a as TableAliasBase)
    }

    func testMisuse() throws {
        try makeDatabase().read { db in
            let unbound = TableAlias()
            XCTAssertThrowsError(try Player.filter(unbound[Column("id")] == 1).fetchAll(db)) { error in
                XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_MISUSE)
                XCTAssertEqual((error as? DatabaseError)?.message, "Undefined alias has no table name")
            }

            let shared = TableAlias(name: "s")
            let players = Player.aliased(shared)
            _ = Team.aliased(shared)
            XCTAssertThrowsError(try players.fetchAll(db)) { error in
                XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_MISUSE)
                XCTAssertEqual(
                    (error as? DatabaseError)?.message, "A TableAlias most not be used to refer to multiple tables")
            }
        }
    }
}
