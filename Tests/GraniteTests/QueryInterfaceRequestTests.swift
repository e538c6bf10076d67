import Granite
import GraniteTestSupport
import XCTest

private struct Player: TableRecord, FetchableRecord, Hashable {
    var id: Int64
    var name: String
    var score: Int
    var team: String?

    init(row: Row) {
        id = row["id"]
        name = row["name"]
        score = row["score"]
        team = row["team"]
    }

    enum Columns {
        static let id = Column("id")
        static let name = Column("name")
        static let score = Column("score")
        static let team = Column("team")
    }
}

extension DerivableRequest<Player> {
    fileprivate func best() -> Self {
        order { [$0.score.desc, $0.name.asc] }
    }

    fileprivate func red() -> Self {
        filter { $0.team == "red" }
    }
}

final class QueryInterfaceRequestTests: XCTestCase {
    /// A database with four players, whose statements are recorded with their arguments inlined.
    private func makeDatabase() throws -> (DatabaseQueue, SQLRecorder) {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INT NOT NULL, team TEXT);
                    INSERT INTO player VALUES (1, 'Arthur', 100, 'red'), (2, 'Barbara', 1000, 'blue'),
                                              (3, 'Craig', 500, 'red'), (4, 'Diane', 1000, NULL);
                    """)
        }
        let recorder = SQLRecorder()
        recorder.record(dbQueue)
        return (dbQueue, recorder)
    }

    private func sql(_ db: Database, _ request: some FetchRequest) throws -> String {
        try request.makePreparedRequest(db).statement.sql
    }

    func testSelectShapes() throws {
        let (dbQueue, _) = try makeDatabase()
        try dbQueue.read { db in
            let name = Player.Columns.name
            let score = Player.Columns.score
            XCTAssertEqual(try sql(db, Player.all()), "SELECT * FROM \"player\"")
            XCTAssertEqual(try sql(db, Player.select(name)), "SELECT \"name\" FROM \"player\"")
            XCTAssertEqual(
                try sql(db, Player.select(AllColumns(), score * 2)), "SELECT *, \"score\" * ? FROM \"player\"")
            XCTAssertEqual(
                try sql(db, Player.annotated(with: (score * 2).forKey("double"))),
                "SELECT *, \"score\" * ? AS \"double\" FROM \"player\"")
            XCTAssertEqual(try sql(db, Player.select(name).distinct()), "SELECT DISTINCT \"name\" FROM \"player\"")
            XCTAssertEqual(
                try sql(db, Player.filter(score > 100).filter(name != nil)),
                "SELECT * FROM \"player\" WHERE (\"score\" > ?) AND (\"name\" IS NOT NULL)")
            XCTAssertEqual(
                try sql(db, Player.filter(sql: "score > ?", arguments: [1])),
                "SELECT * FROM \"player\" WHERE score > ?")
            XCTAssertEqual(
                try sql(db, Player.order(score.desc, name)),
                "SELECT * FROM \"player\" ORDER BY \"score\" DESC, \"name\"")
            XCTAssertEqual(
                try sql(db, Player.order(score.ascNullsLast).reversed()),
                "SELECT * FROM \"player\" ORDER BY \"score\" DESC NULLS FIRST")
            XCTAssertEqual(
                try sql(db, Player.order(score.descNullsFirst, name.asc).reversed()),
                "SELECT * FROM \"player\" ORDER BY \"score\" ASC NULLS LAST, \"name\" DESC")
            XCTAssertEqual(try sql(db, Player.all().reversed()), "SELECT * FROM \"player\"")
            XCTAssertEqual(try sql(db, Player.order(name).order(score)), "SELECT * FROM \"player\" ORDER BY \"score\"")
            XCTAssertEqual(try sql(db, Player.order(name).unordered()), "SELECT * FROM \"player\"")
            XCTAssertEqual(try sql(db, Player.orderByPrimaryKey()), "SELECT * FROM \"player\" ORDER BY \"id\"")
            XCTAssertEqual(try sql(db, Player.order(sql: "name DESC")), "SELECT * FROM \"player\" ORDER BY name DESC")
            XCTAssertThrowsError(try sql(db, Player.order(sql: "name").reversed()))
            XCTAssertEqual(try sql(db, Player.limit(2)), "SELECT * FROM \"player\" LIMIT 2")
            XCTAssertEqual(try sql(db, Player.limit(2, offset: 1)), "SELECT * FROM \"player\" LIMIT 2 OFFSET 1")
            XCTAssertEqual(
                try sql(
                    db,
                    Player.select(Player.Columns.team, count(name)).group(Player.Columns.team).having(count(name) > 1)),
                "SELECT \"team\", COUNT(\"name\") FROM \"player\" GROUP BY \"team\" HAVING COUNT(\"name\") > ?")
            XCTAssertEqual(try sql(db, Player.none()), "SELECT * FROM \"player\" WHERE ?")
        }
    }

    func testFetchingResults() throws {
        let (dbQueue, recorder) = try makeDatabase()
        try dbQueue.read { db in
            let name = Player.Columns.name
            let score = Player.Columns.score
            XCTAssertEqual(try Player.all().fetchAll(db).map(\.id), [1, 2, 3, 4])
            XCTAssertEqual(
                try Player.order(score.desc, name.desc).fetchAll(db).map(\.name),
                ["Diane", "Barbara", "Craig", "Arthur"])
            XCTAssertEqual(
                try Player.order(score.desc, name.desc).reversed().fetchAll(db).map(\.name),
                ["Arthur", "Craig", "Barbara", "Diane"])
            XCTAssertEqual(try Player.order(name).limit(2, offset: 1).fetchAll(db).map(\.name), ["Barbara", "Craig"])
            XCTAssertEqual(try Player.filter(score == 1000).fetchSet(db).count, 2)
            let cursor = try Player.filter(Player.Columns.team == "red").order(name).fetchCursor(db)
            XCTAssertEqual(try cursor.next()?.name, "Arthur")
            XCTAssertEqual(try cursor.next()?.name, "Craig")
            XCTAssertNil(try cursor.next())

            XCTAssertEqual(try Player.order(score.desc).fetchOne(db)?.score, 1000)
            XCTAssertEqual(recorder.last, "SELECT * FROM \"player\" ORDER BY \"score\" DESC LIMIT 1")
            XCTAssertNil(try Player.none().fetchOne(db))
            XCTAssertEqual(recorder.last, "SELECT * FROM \"player\" WHERE 0 LIMIT 1")

            XCTAssertEqual(
                try Player.select(name, as: String.self).order(name).fetchAll(db),
                ["Arthur", "Barbara", "Craig", "Diane"])
            XCTAssertEqual(try Player.select(score).distinct().asRequest(of: Int.self).fetchSet(db), [100, 500, 1000])
            XCTAssertEqual(try Player.select(max(score), as: Int.self).fetchOne(db), 1000)
            XCTAssertEqual(recorder.last, "SELECT MAX(\"score\") FROM \"player\"")
            let rows = try Player.select(Player.Columns.team, count(name).forKey("n")).group(Player.Columns.team)
                .having(count(name) > 1).asRequest(of: Row.self).fetchAll(db)
            XCTAssertEqual(rows.count, 1)
            XCTAssertEqual(rows.first?["team"], "red")
            XCTAssertEqual(rows.first?["n"], 2)
            let annotated = try Player.annotated(with: (score * 2).forKey("double")).asRequest(of: Row.self)
                .filter(key: 1).fetchOne(db)
            XCTAssertEqual(annotated?["double"], 200)
            XCTAssertEqual(recorder.last, "SELECT *, \"score\" * 2 AS \"double\" FROM \"player\" WHERE \"id\" = 1")
        }
    }

    func testFetchCount() throws {
        let (dbQueue, recorder) = try makeDatabase()
        try dbQueue.read { db in
            let name = Player.Columns.name
            let score = Player.Columns.score
            XCTAssertEqual(try Player.fetchCount(db), 4)
            XCTAssertEqual(recorder.last, "SELECT COUNT(*) FROM \"player\"")
            XCTAssertEqual(try Player.filter(score > 200).order(name).fetchCount(db), 3)
            XCTAssertEqual(recorder.last, "SELECT COUNT(*) FROM \"player\" WHERE \"score\" > 200")
            XCTAssertEqual(try Player.select(score).fetchCount(db), 4)
            XCTAssertEqual(recorder.last, "SELECT COUNT(*) FROM \"player\"")
            XCTAssertEqual(try Player.select(score).distinct().fetchCount(db), 3)
            XCTAssertEqual(recorder.last, "SELECT COUNT(DISTINCT \"score\") FROM \"player\"")
            XCTAssertEqual(try Player.select(name, score).fetchCount(db), 4)
            XCTAssertEqual(recorder.last, "SELECT COUNT(*) FROM \"player\"")
            XCTAssertEqual(try Player.all().distinct().fetchCount(db), 4)
            XCTAssertEqual(recorder.last, "SELECT COUNT(*) FROM (SELECT DISTINCT * FROM \"player\")")
            XCTAssertEqual(try Player.limit(2).fetchCount(db), 2)
            XCTAssertEqual(recorder.last, "SELECT COUNT(*) FROM (SELECT * FROM \"player\" LIMIT 2)")
            XCTAssertEqual(try Player.select(Player.Columns.team).group(Player.Columns.team).fetchCount(db), 3)
            XCTAssertEqual(
                recorder.last, "SELECT COUNT(*) FROM (SELECT \"team\" FROM \"player\" GROUP BY \"team\")")
            XCTAssertEqual(try Player.none().fetchCount(db), 0)
            XCTAssertEqual(recorder.last, "SELECT COUNT(*) FROM \"player\" WHERE 0")
        }
    }

    func testIsEmptyAndExists() throws {
        let (dbQueue, recorder) = try makeDatabase()
        try dbQueue.read { db in
            let score = Player.Columns.score
            XCTAssertFalse(try Player.all().isEmpty(db))
            XCTAssertEqual(recorder.last, "SELECT EXISTS (SELECT * FROM \"player\")")
            XCTAssertTrue(try Player.filter(score > 5000).isEmpty(db))
            XCTAssertEqual(recorder.last, "SELECT EXISTS (SELECT * FROM \"player\" WHERE \"score\" > 5000)")
            XCTAssertTrue(try Player.none().isEmpty(db))
            // Subqueries
            let best = Player.select(Player.Columns.id).filter(score == 1000)
            XCTAssertEqual(try Player.filter(best.contains(Player.Columns.id)).fetchCount(db), 2)
            XCTAssertEqual(
                recorder.last,
                "SELECT COUNT(*) FROM \"player\" WHERE \"id\" IN (SELECT \"id\" FROM \"player\" WHERE \"score\" = 1000)"
            )
            XCTAssertEqual(try Player.filter(Player.filter(score > 5000).exists()).fetchCount(db), 0)
            XCTAssertEqual(try Player.filter(Player.filter(score > 5000).notExists()).fetchCount(db), 4)
        }
    }

    func testDeleteAll() throws {
        let (dbQueue, recorder) = try makeDatabase()
        try dbQueue.write { db in
            XCTAssertEqual(try Player.filter(Player.Columns.team == "red").deleteAll(db), 2)
            XCTAssertEqual(recorder.last, "DELETE FROM \"player\" WHERE \"team\" = 'red'")
            XCTAssertEqual(try Player.none().deleteAll(db), 0)
            XCTAssertEqual(try Player.order(Player.Columns.name).limit(1).deleteAll(db), 1)
            XCTAssertEqual(
                recorder.last,
                "DELETE FROM \"player\" WHERE \"id\" IN (SELECT \"id\" FROM \"player\" ORDER BY \"name\" LIMIT 1)")
            XCTAssertEqual(try Player.fetchAll(db).map(\.name), ["Diane"])
            XCTAssertEqual(try Player.deleteAll(db), 1)
            XCTAssertEqual(recorder.last, "DELETE FROM \"player\"")
            XCTAssertEqual(try Player.fetchCount(db), 0)
        }
    }

    func testUpdateAll() throws {
        let (dbQueue, recorder) = try makeDatabase()
        try dbQueue.write { db in
            let score = Player.Columns.score
            XCTAssertEqual(try Player.filter(Player.Columns.team == "red").updateAll(db, score.set(to: 0)), 2)
            XCTAssertEqual(recorder.last, "UPDATE \"player\" SET \"score\" = 0 WHERE \"team\" = 'red'")
            XCTAssertEqual(try Player.updateAll(db, score += 1, Player.Columns.team.set(to: nil)), 4)
            XCTAssertEqual(recorder.last, "UPDATE \"player\" SET \"score\" = \"score\" + 1, \"team\" = NULL")
            XCTAssertEqual(try Player.all().updateAll(db, onConflict: .ignore, score *= 2), 4)
            XCTAssertEqual(recorder.last, "UPDATE OR IGNORE \"player\" SET \"score\" = \"score\" * 2")
            XCTAssertEqual(try Player.updateAll(db) { $0.score -= 2 }, 4)
            XCTAssertEqual(try Player.order(Player.Columns.id).fetchAll(db).map(\.score), [0, 2000, 0, 2000])
            XCTAssertEqual(try Player.all().updateAll(db, []), 0)
            XCTAssertEqual(try Player.filter(key: 1).updateAll(db, Player.Columns.name.set(to: "Art")), 1)
            XCTAssertEqual(try Player.find(db, key: 1).name, "Art")
        }
    }

    func testStaticFetchMethodsAcceptRequests() throws {
        let (dbQueue, _) = try makeDatabase()
        try dbQueue.read { db in
            let request = Player.filter(Player.Columns.team == "red").order(Player.Columns.name)
            XCTAssertEqual(try Row.fetchAll(db, request).map { $0["name"] as String }, ["Arthur", "Craig"])
            XCTAssertEqual(try Row.fetchOne(db, request)?["name"], "Arthur")
            XCTAssertEqual(try Row.fetchSet(db, request).count, 2)
            XCTAssertEqual(try Row.fetchCursor(db, request).next()?["id"], 1)
            let names = request.select(Player.Columns.name)
            XCTAssertEqual(try String.fetchAll(db, names), ["Arthur", "Craig"])
            XCTAssertEqual(try String.fetchOne(db, names), "Arthur")
            XCTAssertEqual(try String.fetchSet(db, names), ["Arthur", "Craig"])
            XCTAssertEqual(try Player.fetchAll(db, request).map(\.id), [1, 3])
        }
    }

    func testDerivableRequestExtensions() throws {
        let (dbQueue, recorder) = try makeDatabase()
        try dbQueue.read { db in
            XCTAssertEqual(try Player.all().best().limit(2).fetchAll(db).map(\.name), ["Barbara", "Diane"])
            XCTAssertEqual(recorder.last, "SELECT * FROM \"player\" ORDER BY \"score\" DESC, \"name\" ASC LIMIT 2")
            XCTAssertEqual(try Player.all().red().best().fetchAll(db).map(\.name), ["Craig", "Arthur"])
            XCTAssertEqual(try Player.all().red().fetchCount(db), 2)
            XCTAssertEqual(
                try Player.all().selectWhenConnected { _ in [Column("name")] }.filter(key: 1).asRequest(of: String.self)
                    .fetchOne(db), "Arthur")
            XCTAssertEqual(recorder.last, "SELECT \"name\" FROM \"player\" WHERE \"id\" = 1")
        }
    }

    func testSQLRequest() throws {
        let (dbQueue, _) = try makeDatabase()
        try dbQueue.read { db in
            let request = SQLRequest<Player>(sql: "SELECT * FROM player WHERE score > ?", arguments: [200])
            XCTAssertEqual(try request.fetchAll(db).map(\.name), ["Barbara", "Craig", "Diane"])
            XCTAssertEqual(try request.fetchCount(db), 3)
            XCTAssertEqual(try request.fetchOne(db)?.name, "Barbara")
            let names: SQLRequest<String> = "SELECT name FROM player WHERE team = \("red") ORDER BY name"
            XCTAssertEqual(try names.fetchAll(db), ["Arthur", "Craig"])
            XCTAssertEqual(try names.fetchSet(db), ["Arthur", "Craig"])
            XCTAssertEqual(
                try SQLRequest<Row>(literal: "SELECT \(Player.Columns.score) FROM player").fetchAll(db).count, 4)
            XCTAssertEqual(
                try SQLRequest<Int>(sql: "SELECT score FROM player", cached: true).fetchCursor(db).next(), 100)
        }
    }

    func testClosureAndKeyPathForms() throws {
        let (dbQueue, recorder) = try makeDatabase()
        try dbQueue.read { db in
            XCTAssertEqual(try Player.filter { $0.name == "Craig" }.fetchOne(db)?.id, 3)
            XCTAssertEqual(recorder.last, "SELECT * FROM \"player\" WHERE \"name\" = 'Craig' LIMIT 1")
            XCTAssertEqual(try Player.order(\.score.desc).limit(1).fetchAll(db).first?.score, 1000)
            XCTAssertEqual(recorder.last, "SELECT * FROM \"player\" ORDER BY \"score\" DESC LIMIT 1")
            XCTAssertEqual(try Player.order { [$0.score.desc, $0.name] }.fetchAll(db).map(\.id), [2, 4, 3, 1])
            XCTAssertEqual(
                try Player.all().filter { $0.score > 200 }.order(\.name.asc).fetchAll(db).map(\.id), [2, 3, 4])
            XCTAssertEqual(
                try Player.select { $0.name }.order(\.name).asRequest(of: String.self).fetchOne(db), "Arthur")
            XCTAssertEqual(try Player.select({ max($0.score) }, as: Int.self).fetchOne(db), 1000)
            XCTAssertEqual(
                try Player.annotated { ($0.score + 1).forKey("next") }.asRequest(of: Row.self).fetchOne(db)?["next"],
                101)
        }
    }
}
