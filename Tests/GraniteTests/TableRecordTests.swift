import Granite
import XCTest

private struct Place: TableRecord {}
private struct Country: TableRecord {}
private struct PostalAddress: TableRecord {}
private struct HTTPRequest: TableRecord {}
private struct TOEFL: TableRecord {}
private struct TOEFL2: TableRecord {}
private struct A: TableRecord {}
private struct lowercaseStart: TableRecord {}
private struct Under_score: TableRecord {}
private struct Generic<T>: TableRecord {}
private enum Outer {
    struct Inner: TableRecord {}
    struct URLInfo: TableRecord {}
}
private struct CustomPlace: TableRecord {
    static let databaseTableName = "location"
}

private struct PartialPlayer: TableRecord, FetchableRecord {
    static let databaseTableName = "player"
    static var databaseSelection: [any SQLSelectable] { [Columns.id, Columns.name] }
    enum Columns {
        static let id = Column("id")
        static let name = Column("name")
    }
    var id: Int64
    var name: String
    var row: Row
    init(row: Row) {
        id = row["id"]
        name = row["name"]
        self.row = row.copy()
    }
}

private struct TrimmedPlayer: TableRecord, FetchableRecord {
    static let databaseTableName = "player"
    static var databaseSelection: [any SQLSelectable] { [.allColumns(excluding: ["SCORE"])] }
    var row: Row
    init(row: Row) { self.row = row.copy() }
}

final class TableRecordTests: XCTestCase {
    func testDefaultDatabaseTableName() {
        XCTAssertEqual(Place.databaseTableName, "place")
        XCTAssertEqual(Country.databaseTableName, "country")
        XCTAssertEqual(PostalAddress.databaseTableName, "postalAddress")
        XCTAssertEqual(HTTPRequest.databaseTableName, "httpRequest")
        XCTAssertEqual(TOEFL.databaseTableName, "toefl")
        XCTAssertEqual(TOEFL2.databaseTableName, "toefL2")
        XCTAssertEqual(A.databaseTableName, "a")
        XCTAssertEqual(lowercaseStart.databaseTableName, "lowercaseStart")
        XCTAssertEqual(Under_score.databaseTableName, "under_score")
        XCTAssertEqual(Generic<Int>.databaseTableName, "generic")
        XCTAssertEqual(Generic<HTTPRequest>.databaseTableName, "generic")
        XCTAssertEqual(Outer.Inner.databaseTableName, "inner")
        XCTAssertEqual(Outer.URLInfo.databaseTableName, "urlInfo")
        struct LocalType: TableRecord {}
        XCTAssertEqual(LocalType.databaseTableName, "localType")
    }

    func testCustomDatabaseTableName() throws {
        XCTAssertEqual(CustomPlace.databaseTableName, "location")
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE location (id INTEGER PRIMARY KEY)")
            XCTAssertEqual(try CustomPlace.all().makePreparedRequest(db).statement.sql, "SELECT * FROM \"location\"")
            XCTAssertEqual(try CustomPlace.fetchCount(db), 0)
        }
    }

    func testDatabaseSelectionIsHonoured() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, score INT);
                    INSERT INTO player VALUES (1, 'Arthur', 100), (2, 'Barbara', 200);
                    """)
            func sql(_ request: QueryInterfaceRequest<PartialPlayer>) throws -> String {
                try request.makePreparedRequest(db).statement.sql
            }
            XCTAssertEqual(try sql(PartialPlayer.all()), "SELECT \"id\", \"name\" FROM \"player\"")
            XCTAssertEqual(
                try sql(PartialPlayer.filter(Column("score") > 150)),
                "SELECT \"id\", \"name\" FROM \"player\" WHERE \"score\" > ?")
            XCTAssertEqual(
                try sql(PartialPlayer.order(\.name).limit(1)),
                "SELECT \"id\", \"name\" FROM \"player\" ORDER BY \"name\" LIMIT 1")
            XCTAssertEqual(
                try sql(PartialPlayer.filter(key: 1)), "SELECT \"id\", \"name\" FROM \"player\" WHERE \"id\" = ?")
            XCTAssertEqual(
                try sql(PartialPlayer.annotated(with: Column("score"))),
                "SELECT \"id\", \"name\", \"score\" FROM \"player\"")
            let players = try PartialPlayer.fetchAll(db)
            XCTAssertEqual(players.map(\.name), ["Arthur", "Barbara"])
            XCTAssertEqual(players[0].row.columnNames, ["id", "name"])
            XCTAssertEqual(try PartialPlayer.fetchOne(db, key: 2)?.row.columnNames, ["id", "name"])
            XCTAssertEqual(try PartialPlayer.fetchCount(db), 2)
            XCTAssertEqual(try PartialPlayer.fetchAll(db, sql: "SELECT * FROM player").first?.row.count, 3)

            XCTAssertEqual(
                try TrimmedPlayer.all().makePreparedRequest(db).statement.sql, "SELECT \"id\", \"name\" FROM \"player\""
            )
            XCTAssertEqual(try TrimmedPlayer.fetchOne(db)?.row.columnNames, ["id", "name"])
            XCTAssertEqual(try TrimmedPlayer.fetchCount(db), 2)
            XCTAssertEqual(
                try TrimmedPlayer.select(.allColumns(excluding: [Column("nothing")])).makePreparedRequest(db).statement
                    .sql,
                "SELECT * FROM \"player\"")
        }
    }

    func testStaticRequestBuilders() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE place (id INTEGER PRIMARY KEY, name TEXT);
                    INSERT INTO place VALUES (1, 'Paris'), (2, 'London'), (3, 'Rome');
                    """)
            func sql(_ request: QueryInterfaceRequest<Place>) throws -> String {
                try request.makePreparedRequest(db).statement.sql
            }
            XCTAssertEqual(try sql(Place.none()), "SELECT * FROM \"place\" WHERE ?")
            XCTAssertEqual(try sql(Place.select(Column("name"))), "SELECT \"name\" FROM \"place\"")
            XCTAssertEqual(try sql(Place.filter(Column("id") > 1)), "SELECT * FROM \"place\" WHERE \"id\" > ?")
            XCTAssertEqual(try sql(Place.order(Column("name"))), "SELECT * FROM \"place\" ORDER BY \"name\"")
            XCTAssertEqual(try sql(Place.limit(1, offset: 2)), "SELECT * FROM \"place\" LIMIT 1 OFFSET 2")
            XCTAssertEqual(
                try Place.select(Column("name"), as: String.self).order(Column("name")).fetchAll(db),
                ["London", "Paris", "Rome"])
            XCTAssertEqual(try Place.fetchCount(db), 3)
            XCTAssertEqual(try Place.none().fetchCount(db), 0)
            XCTAssertEqual(try Place.deleteAll(db), 3)
        }
    }

    func testSeedClosureFilter() throws {
        // The README's TableRecord example: `Place.filter { $0.name == "Paris" }`.
        struct Place: TableRecord, FetchableRecord {
            var id: Int64
            var name: String
            enum Columns {
                static let id = Column("id")
                static let name = Column("name")
            }
            init(row: Row) {
                id = row[Columns.id]
                name = row[Columns.name]
            }
        }
        let dbQueue = try DatabaseQueue()
        let sqls = try dbQueue.write { db in
            try db.execute(
                sql:
                    "CREATE TABLE place (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO place (name) VALUES ('London'), ('Paris')"
            )
            _ = try Place.filter { $0.name == "Paris" }.fetchOne(db)  // loads the schema information
            var sqls: [String] = []
            db.trace { sqls.append($0.expandedDescription) }
            // SELECT * FROM place WHERE name = 'Paris'
            let paris = try Place.filter { $0.name == "Paris" }.fetchOne(db)
            XCTAssertEqual(paris?.id, 2)
            return sqls
        }
        // Schema information is cached: only the query runs.
        XCTAssertEqual(sqls, ["SELECT * FROM \"place\" WHERE \"name\" = 'Paris' LIMIT 1"])
    }

    func testSchemaChangesAreNoticed() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE place (id INTEGER PRIMARY KEY, name TEXT)")
            let request = Place.filter(Column("name") == "Paris")
            XCTAssertEqual(
                try request.makePreparedRequest(db, forSingleResult: true).statement.sql,
                "SELECT * FROM \"place\" WHERE \"name\" = ? LIMIT 1")
            try db.execute(sql: "CREATE UNIQUE INDEX place_name ON place(name)")
            XCTAssertEqual(
                try request.makePreparedRequest(db, forSingleResult: true).statement.sql,
                "SELECT * FROM \"place\" WHERE \"name\" = ?")
            try db.execute(sql: "DROP TABLE place; CREATE TABLE place (code TEXT PRIMARY KEY, name TEXT)")
            XCTAssertEqual(
                try Place.filter(key: "FR").makePreparedRequest(db).statement.sql,
                "SELECT * FROM \"place\" WHERE \"code\" = ?")
        }
    }

    func testMissingTableIsAnError() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.read { db in
            XCTAssertThrowsError(try Place.fetchCount(db)) { error in
                XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_ERROR)
            }
            XCTAssertThrowsError(try Place.filter(Column("nope") == 1).isEmpty(db)) { error in
                XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_ERROR)
            }
        }
    }
}
