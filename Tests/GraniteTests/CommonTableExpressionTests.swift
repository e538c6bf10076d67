import Granite
import XCTest

private struct Player: TableRecord {}

// GRDB's common table expressions: the SQL they generate (through SQL interpolation, which does not prepare the
// statement) and the requests they run.
final class CommonTableExpressionTests: XCTestCase {
    private func makeDatabase() throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, score INT)")
        }
        return dbQueue
    }

    /// The SQL and arguments of a request, as an SQL literal renders it.
    private func generated(_ db: Database, _ request: some SQLSubqueryable & SQLExpressible & SQLSelectable & SQLOrderingTerm)
        throws -> (sql: String, arguments: StatementArguments)
    {
        try SQL("\(request)").build(db)
    }

    func testDefinitions() throws {
        try makeDatabase().read { db in
            let fromSQL = CommonTableExpression(named: "cte", sql: "SELECT ?", arguments: ["O'Brien"])
            XCTAssertEqual(fromSQL.tableName, "cte")
            var result = try generated(db, Player.with(fromSQL))
            XCTAssertEqual(result.sql, #"WITH "cte" AS (SELECT ?) SELECT * FROM "player""#)
            XCTAssertEqual(result.arguments, ["O'Brien"])

            let fromLiteral = CommonTableExpression(named: "cte", literal: "SELECT \("O'Brien")")
            result = try generated(db, Player.all().with(fromLiteral))
            XCTAssertEqual(result.sql, #"WITH "cte" AS (SELECT ?) SELECT * FROM "player""#)
            XCTAssertEqual(result.arguments, ["O'Brien"])

            let fromRequest = CommonTableExpression(named: "cte", request: Player.filter(Column("score") > 10))
            result = try generated(db, Table("player").with(fromRequest))
            XCTAssertEqual(
                result.sql, #"WITH "cte" AS (SELECT * FROM "player" WHERE "score" > ?) SELECT * FROM "player""#)
            XCTAssertEqual(result.arguments, [10])

            let withColumns = CommonTableExpression<Int>(named: "cte", columns: ["id", "a"], sql: "SELECT 1, 2")
            result = try generated(db, withColumns.all().with(withColumns))
            XCTAssertEqual(result.sql, #"WITH "cte"("id", "a") AS (SELECT 1, 2) SELECT * FROM "cte""#)
        }
    }

    func testRecursiveAndSeveralExpressions() throws {
        try makeDatabase().read { db in
            let counter = CommonTableExpression(
                recursive: true, named: "counter", columns: ["x"],
                literal: "VALUES(1) UNION ALL SELECT x + 1 FROM counter WHERE x < \(5)")
            let other = CommonTableExpression(named: "other", sql: "SELECT 2")
            let request = counter.all().with(other).with(counter)
            XCTAssertEqual(
                try generated(db, request).sql,
                #"WITH RECURSIVE "other" AS (SELECT 2), "counter"("x") AS (VALUES(1) UNION ALL SELECT x + 1 FROM counter "#
                    + #"WHERE x < ?) SELECT * FROM "counter""#)

            // An expression of the same name replaces the previous one, at its position.
            let replacement = CommonTableExpression(named: "other", sql: "SELECT 3")
            XCTAssertEqual(
                try generated(db, request.with(replacement)).sql,
                #"WITH RECURSIVE "other" AS (SELECT 3), "counter"("x") AS (VALUES(1) UNION ALL SELECT x + 1 FROM counter "#
                    + #"WHERE x < ?) SELECT * FROM "counter""#)
        }
    }

    func testExpressionsUsedInRequests() throws {
        try makeDatabase().read { db in
            let bestIds = CommonTableExpression(
                named: "bestIds", request: Player.select(Column("id")).order(Column("score").desc).limit(3))
            let request = Player.with(bestIds).filter(bestIds.contains(Column("id")))
            XCTAssertEqual(
                try generated(db, request).sql,
                #"WITH "bestIds" AS (SELECT "id" FROM "player" ORDER BY "score" DESC LIMIT 3) "#
                    + #"SELECT * FROM "player" WHERE "id" IN "bestIds""#)
            XCTAssertEqual(
                try generated(db, Player.with(bestIds).filter(!bestIds.contains(Column("id")))).sql,
                #"WITH "bestIds" AS (SELECT "id" FROM "player" ORDER BY "score" DESC LIMIT 3) "#
                    + #"SELECT * FROM "player" WHERE "id" NOT IN "bestIds""#)

            let maxScore = CommonTableExpression(named: "maxScore", request: Player.select(max(Column("score"))))
            let best = Player.with(maxScore).filter(Column("score") == maxScore.all())
            XCTAssertEqual(
                try generated(db, best).sql,
                #"WITH "maxScore" AS (SELECT MAX("score") FROM "player") "#
                    + #"SELECT * FROM "player" WHERE "score" = (SELECT * FROM "maxScore")"#)
        }
    }

    func testInterpolation() throws {
        try makeDatabase().read { db in
            let cte = CommonTableExpression(named: "name", request: Player.select(Column("name")).filter(Column("id") > 1))
            let request: SQLRequest<String> = "WITH \(definitionFor: cte) SELECT * FROM \(cte)"
            let (sql, arguments) = try SQL("\(request)").build(db)
            XCTAssertEqual(sql, #"WITH "name" AS (SELECT "name" FROM "player" WHERE "id" > ?) SELECT * FROM "name""#)
            XCTAssertEqual(arguments, [1])

            let withColumns = CommonTableExpression(named: "t", columns: ["a"], sql: "SELECT 1")
            XCTAssertEqual(try SQL("WITH \(definitionFor: withColumns) ").build(db).sql, #"WITH "t"("a") AS (SELECT 1) "#)
        }
    }

    func testRequestsRun() throws {
        try makeDatabase().write { db in
            try db.execute(sql: "INSERT INTO player VALUES (1, 'a', 10), (2, 'b', 30), (3, 'c', 20), (4, 'd', 5)")
            let bestIds = CommonTableExpression(
                named: "bestIds", request: Player.select(Column("id")).order(Column("score").desc).limit(2))
            XCTAssertEqual(
                try Row.fetchAll(db, Player.with(bestIds).filter(bestIds.contains(Column("id"))).order(Column("id")))
                    .map { $0["name"] as String },
                ["b", "c"])
            let maxScore = CommonTableExpression(named: "maxScore", request: Player.select(max(Column("score"))))
            XCTAssertEqual(
                try Row.fetchOne(db, Player.with(maxScore).filter(Column("score") == maxScore.all()))?["id"], 2)
            let counter = CommonTableExpression<Int>(
                recursive: true, named: "counter", columns: ["x"],
                literal: "VALUES(1) UNION ALL SELECT x + 1 FROM counter WHERE x < \(5)")
            XCTAssertEqual(try Int.fetchAll(db, counter.all().with(counter)), [1, 2, 3, 4, 5])
        }
    }

    func testCountDeleteAndUpdateKeepTheWithClause() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            try db.execute(sql: "INSERT INTO player VALUES (1, 'a', 10), (2, 'b', 30)")
            var statements: [String] = []
            db.trace { statements.append($0.description) }
            let ids = CommonTableExpression(named: "ids", sql: "SELECT 1")
            let request = Player.with(ids).filter(ids.contains(Column("id")))
            XCTAssertEqual(try request.fetchCount(db), 1)
            try request.updateAll(db, Column("score").set(to: 0))
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT score FROM player WHERE id = 1"), 0)
            try request.deleteAll(db)
            db.trace(nil)
            XCTAssertEqual(try Int.fetchAll(db, sql: "SELECT id FROM player"), [2])
            XCTAssertEqual(
                statements.filter { $0.contains("ids") },
                [
                    #"SELECT COUNT(*) FROM (WITH "ids" AS (SELECT 1) SELECT * FROM "player" WHERE "id" IN "ids")"#,
                    #"WITH "ids" AS (SELECT 1) UPDATE "player" SET "score" = ? WHERE "id" IN "ids""#,
                    #"WITH "ids" AS (SELECT 1) DELETE FROM "player" WHERE "id" IN "ids""#,
                ])
        }
    }
}
