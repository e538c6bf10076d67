import Granite
import GraniteTestSupport
import XCTest

private struct Player: TableRecord, FetchableRecord, Identifiable {
    enum Columns {
        static let id = Column("id")
        static let name = Column("name")
        static let score = Column("score")
    }

    var id: Int64
    var name: String
    var score: Int

    init(row: Row) {
        id = row["id"]
        name = row["name"]
        score = row["score"]
    }
}

final class TableLeftoversTests: XCTestCase {
    private func makeDatabase() throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INT NOT NULL);
                    INSERT INTO player VALUES (1, 'Arthur', 100), (2, 'Barbara', 300), (3, 'Craig', 100);
                    CREATE TABLE tag (name TEXT NOT NULL PRIMARY KEY, weight INT);
                    INSERT INTO tag VALUES ('b', 2), ('a', 1), ('c', 2);
                    CREATE TABLE event (kind TEXT, at INT);
                    INSERT INTO event VALUES ('x', 1), ('y', 2);
                    """)
        }
        return dbQueue
    }

    private func sql(_ db: Database, _ request: some FetchRequest) throws -> String {
        try request.makePreparedRequest(db, forSingleResult: false).statement.sql
    }

    private let players = Table<Player>("player")

    func testIdentifiableTable() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            XCTAssertEqual(try sql(db, players.filter(id: 2)), #"SELECT * FROM "player" WHERE "id" = ?"#)
            XCTAssertEqual(try players.filter(id: 2).fetchOne(db)?.name, "Barbara")
            XCTAssertEqual(try sql(db, players.filter(ids: [1, 3])), #"SELECT * FROM "player" WHERE "id" IN (?, ?)"#)
            XCTAssertEqual(try players.filter(ids: [1, 3]).fetchAll(db).map(\.name), ["Arthur", "Craig"])
            XCTAssertEqual(try players.filter(ids: []).fetchAll(db).count, 0)

            XCTAssertEqual(try sql(db, players.selectID()), #"SELECT "id" FROM "player""#)
            XCTAssertEqual(try players.selectID().fetchAll(db), [1, 2, 3])

            XCTAssertTrue(try players.exists(db, id: 3))
            XCTAssertFalse(try players.exists(db, id: 4))

            XCTAssertFalse(try players.deleteOne(db, id: 4))
            XCTAssertTrue(try players.deleteOne(db, id: 3))
            XCTAssertEqual(try players.deleteAll(db, ids: []), 0)
            XCTAssertEqual(try players.deleteAll(db, ids: [1, 2, 5]), 2)
            XCTAssertEqual(try players.fetchCount(db), 0)
        }
    }

    func testTypedSelections() throws {
        try makeDatabase().read { db in
            let maxScore = Table("player").select(sql: "MAX(score) + ?", arguments: [1], as: Int.self)
            XCTAssertEqual(try sql(db, maxScore), #"SELECT MAX(score) + ? FROM "player""#)
            XCTAssertEqual(try maxScore.fetchOne(db), 301)

            let suffix = "!"
            let names = Table("player").select(literal: "name || \(suffix)", as: String.self).order(Column("id"))
            XCTAssertEqual(try sql(db, names), #"SELECT name || ? FROM "player" ORDER BY "id""#)
            XCTAssertEqual(try names.fetchAll(db), ["Arthur!", "Barbara!", "Craig!"])
        }
    }

    func testUpdateAllWithRecordColumns() throws {
        let dbQueue = try makeDatabase()
        let recorder = SQLRecorder()
        recorder.record(dbQueue)
        try dbQueue.write { db in
            XCTAssertEqual(try players.updateAll(db) { $0.score += 1 }, 3)
            XCTAssertEqual(recorder.last, #"UPDATE "player" SET "score" = "score" + 1"#)

            XCTAssertEqual(
                try players.updateAll(db, onConflict: .ignore) { [$0.score.set(to: 0), $0.name.set(to: "X")] }, 3)
            XCTAssertEqual(recorder.last, #"UPDATE OR IGNORE "player" SET "score" = 0, "name" = 'X'"#)

            let request = Player.filter { $0.id > 1 }
            XCTAssertEqual(try request.updateAll(db) { $0.score.set(to: 7) }, 2)
            XCTAssertEqual(recorder.last, #"UPDATE "player" SET "score" = 7 WHERE "id" > 1"#)
            XCTAssertEqual(try Int.fetchAll(db, sql: "SELECT score FROM player ORDER BY id"), [0, 7, 7])
        }
    }

    private func orderedByPrimaryKey<R: TableRequest & OrderedRequest>(_ request: R) -> R {
        request.orderByPrimaryKey()
    }

    private func groupedByPrimaryKey<R: TableRequest & AggregatingRequest>(_ request: R) -> R {
        request.groupByPrimaryKey()
    }

    func testPrimaryKeyOrderingAndGrouping() throws {
        try makeDatabase().read { db in
            let byID = orderedByPrimaryKey(Table("player").order(Column("name").desc))
            XCTAssertEqual(try sql(db, byID), #"SELECT * FROM "player" ORDER BY "id""#)
            XCTAssertEqual(try byID.fetchAll(db).map { $0["id"] as Int }, [1, 2, 3])

            let byName = orderedByPrimaryKey(Table("tag").all())
            XCTAssertEqual(try sql(db, byName), #"SELECT * FROM "tag" ORDER BY "name""#)
            XCTAssertEqual(try byName.fetchAll(db).map { $0["name"] as String }, ["a", "b", "c"])

            let byRowID = orderedByPrimaryKey(Table("event").all()).reversed()
            XCTAssertEqual(try sql(db, byRowID), #"SELECT * FROM "event" ORDER BY "rowid" DESC"#)
            XCTAssertEqual(try byRowID.fetchAll(db).map { $0["kind"] as String }, ["y", "x"])

            let groupedByID = groupedByPrimaryKey(Table("player").select(Column("name")))
            XCTAssertEqual(try sql(db, groupedByID), #"SELECT "name" FROM "player" GROUP BY "id""#)
            XCTAssertEqual(try groupedByID.fetchCount(db), 3)

            let groupedByRowID = groupedByPrimaryKey(Table("tag").select(Column("weight")))
            XCTAssertEqual(try sql(db, groupedByRowID), #"SELECT "weight" FROM "tag" GROUP BY "rowid""#)
            XCTAssertEqual(try groupedByRowID.fetchCount(db), 3)

            XCTAssertThrowsError(try Table("missing").all().groupByPrimaryKey().fetchAll(db)) { error in
                XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_ERROR)
            }
        }
    }

    func testWithStableOrder() throws {
        try makeDatabase().read { db in
            let byScore = Player.order(\.score).withStableOrder()
            XCTAssertEqual(try sql(db, byScore), #"SELECT * FROM "player" ORDER BY "score", "id""#)
            XCTAssertEqual(try byScore.fetchAll(db).map(\.id), [1, 3, 2])
            XCTAssertEqual(try byScore.reversed().fetchAll(db).map(\.id), [2, 3, 1])

            XCTAssertEqual(try sql(db, Player.all().withStableOrder()), #"SELECT * FROM "player" ORDER BY "id""#)
            XCTAssertEqual(
                try sql(db, Table("tag").order(Column("weight")).withStableOrder()),
                #"SELECT * FROM "tag" ORDER BY "weight", "name""#)
            XCTAssertEqual(
                try sql(db, Table("event").all().withStableOrder()), #"SELECT * FROM "event" ORDER BY "rowid""#)
        }
    }

    func testQueryInterfaceInterpolation() throws {
        try makeDatabase().read { db in
            let player = try XCTUnwrap(Player.fetchOne(db, sql: "SELECT * FROM player WHERE id = 2"))
            let anyPlayer: any TableRecord = player
            XCTAssertEqual(try SQL("SELECT * FROM \(tableOf: player)").build(db).sql, #"SELECT * FROM "player""#)
            XCTAssertEqual(try SQL("SELECT * FROM \(tableOf: anyPlayer)").build(db).sql, #"SELECT * FROM "player""#)
            let anyType: any TableRecord.Type = Player.self
            XCTAssertEqual(try SQL("SELECT * FROM \(anyType)").build(db).sql, #"SELECT * FROM "player""#)
            XCTAssertEqual(try SQL("SELECT * FROM \(Table("tag"))").build(db).sql, #"SELECT * FROM "tag""#)
            XCTAssertEqual(
                try SQL("SELECT \(AllColumns()), \(count(Column("id")).forKey("n")) FROM tag").build(db).sql,
                #"SELECT *, COUNT("id") AS "n" FROM tag"#)

            func expression(_ expressible: some SQLExpressible) -> SQLExpression { expressible.sqlExpression }
            let rowIDs = Table("event").select(.rowID, as: Int64.self).filter(expression(.rowID) > 1)
            XCTAssertEqual(
                try sql(db, rowIDs), #"SELECT "rowid" FROM "event" WHERE "rowid" > ?"#)
            XCTAssertEqual(try rowIDs.fetchAll(db), [2])
        }
    }

    func testColumnsOfInterpolation() throws {
        struct Named: TableRecord {
            static let databaseTableName = "player"
            static var databaseSelection: [any SQLSelectable] { [Column("id"), Column("name")] }
        }
        struct Excluding: TableRecord {
            static let databaseTableName = "player"
            static var databaseSelection: [any SQLSelectable] { [.allColumns(excluding: ["score"])] }
        }
        try makeDatabase().read { db in
            XCTAssertEqual(
                try SQL("SELECT \(columnsOf: Player.self) FROM player").build(db).sql,
                #"SELECT "player".* FROM player"#)
            XCTAssertEqual(
                try SQL("SELECT \(columnsOf: Named.self, tableAlias: "p") FROM player p").build(db).sql,
                #"SELECT "p"."id", "p"."name" FROM player p"#)
            let request: SQLRequest<Row> = """
                SELECT \(columnsOf: Excluding.self, tableAlias: "p"), o.name AS other
                FROM player p JOIN player o ON o.score = p.score AND o.id <> p.id
                ORDER BY p.id
                """
            XCTAssertEqual(
                try request.makePreparedRequest(db).statement.sql,
                """
                SELECT "p"."id", "p"."name", o.name AS other
                FROM player p JOIN player o ON o.score = p.score AND o.id <> p.id
                ORDER BY p.id
                """)
            let rows = try request.fetchAll(db)
            XCTAssertEqual(rows.map { $0["name"] as String }, ["Arthur", "Craig"])
            XCTAssertEqual(rows.map { $0["other"] as String }, ["Craig", "Arthur"])
        }
    }

    func testDatabaseComponentsTypealiases() {
        let tableColumns: Table<Player>.DatabaseComponents = Player.Columns.self
        let requestColumns: QueryInterfaceRequest<Player>.DatabaseComponents = Player.Columns.self
        XCTAssertEqual(tableColumns.score.name, "score")
        XCTAssertEqual(requestColumns.name.name, "name")
    }

    func testForeignKey() {
        XCTAssertEqual(ForeignKey(["authorId"]), ForeignKey([Column("authorId")]))
        XCTAssertEqual(ForeignKey(["a", "b"], to: ["x", "y"]), ForeignKey([Column("a"), Column("b")], to: [Column("x"), Column("y")]))
        XCTAssertNotEqual(ForeignKey(["authorId"]), ForeignKey(["authorId"], to: ["id"]))
        XCTAssertNotEqual(ForeignKey(["authorId"]), ForeignKey(["translatorId"]))
    }
}
