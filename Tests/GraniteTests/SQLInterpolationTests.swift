import Foundation
import Granite
import XCTest

private struct Player: TableRecord, Encodable {
    static let databaseTableName = "player"
    var id: Int64
    var name: String
}

private struct NamedPlayer: TableRecord {
    static let databaseTableName = "player"
    static var databaseSelection: [any SQLSelectable] { [Column("id"), Column("name")] }
}

private struct PlayerWithoutScore: TableRecord {
    static let databaseTableName = "player"
    static var databaseSelection: [any SQLSelectable] { [.allColumns(excluding: ["score"])] }
}

private enum PlayerKeys: String, CodingKey {
    case name
}

private enum PlayerColumns: String, CodingKey, ColumnExpression {
    case score
}

final class SQLInterpolationTests: XCTestCase {
    private var dbQueue: DatabaseQueue!

    override func setUpWithError() throws {
        dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, score INTEGER)")
            try db.execute(sql: "INSERT INTO player VALUES (1, 'Arthur', 100), (2, 'O''Brien', 50), (3, NULL, 75)")
        }
    }

    /// Builds `literal`, checks its SQL and arguments, and returns the values of its first column when run.
    @discardableResult
    private func assertLiteral(
        _ literal: SQL, _ sql: String, _ arguments: StatementArguments = [],
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> [DatabaseValue] {
        try assertFragment(literal, sql, arguments, file: file, line: line)
        return try dbQueue.read { db in try DatabaseValue.fetchAll(db, literal: literal) }
    }

    /// Builds `literal`, a fragment that is not a statement, and checks its SQL and arguments.
    private func assertFragment(
        _ literal: SQL, _ sql: String, _ arguments: StatementArguments = [],
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        try dbQueue.read { db in
            let (builtSQL, builtArguments) = try literal.build(db)
            XCTAssertEqual(builtSQL, sql, file: file, line: line)
            XCTAssertEqual(builtArguments, arguments, file: file, line: line)
        }
    }

    func testValuesAreArguments() throws {
        let name = "O'Brien"
        let ids = try assertLiteral(
            "SELECT id FROM player WHERE name = \(name)", "SELECT id FROM player WHERE name = ?", [name])
        XCTAssertEqual(ids, [2])
        let bonus = 100
        let points = try assertLiteral(
            "SELECT (score + \(bonus)) AS points FROM player WHERE id = \(1)",
            "SELECT (score + ?) AS points FROM player WHERE id = ?", [100, 1])
        XCTAssertEqual(points, [200])
        let date = DatabaseDateComponents(DateComponents(year: 2020, month: 1, day: 23), format: .YMD)
        let dates = try assertLiteral("SELECT \(date)", "SELECT ?", ["2020-01-23"])
        XCTAssertEqual(dates, ["2020-01-23"])
        // Data is a sequence of bytes, but it is one value.
        let data = Data([1, 2, 3])
        let blobs = try assertLiteral("SELECT \(data)", "SELECT ?", [data])
        XCTAssertEqual(blobs, [data.databaseValue])
    }

    func testNilIsNULL() throws {
        let missing: Int? = nil
        let present: Int? = 3
        let names = try assertLiteral(
            "SELECT \(missing) IS NULL, \(present)", "SELECT NULL IS NULL, ?", [3])
        XCTAssertEqual(names, [1])
        try assertLiteral("SELECT \(DatabaseValue.null)", "SELECT NULL")
        let selection: (any SQLSelectable)? = nil
        try assertLiteral("SELECT \(selection)", "SELECT NULL")
    }

    func testExpressionsSelectionsAndOrderings() throws {
        let names = try assertLiteral(
            "SELECT \(Column("name")) FROM player ORDER BY \(Column("name").desc)",
            #"SELECT "name" FROM player ORDER BY "name" DESC"#)
        XCTAssertEqual(names, ["O'Brien", "Arthur", nil])
        let points = try assertLiteral(
            "SELECT \(Column("score") + 100) AS points FROM player WHERE id = 1",
            #"SELECT "score" + ? AS points FROM player WHERE id = 1"#, [100])
        XCTAssertEqual(points, [200])
        let all = try assertLiteral(
            "SELECT \(AllColumns()) FROM player WHERE id = 3", "SELECT * FROM player WHERE id = 3")
        XCTAssertEqual(all, [3])
        let aliased = Column("score").forKey("points")
        try dbQueue.read { db in
            let row = try XCTUnwrap(Row.fetchOne(db, literal: "SELECT \(aliased) FROM player WHERE id = 2"))
            XCTAssertEqual(row["points"] as Int, 50)
        }
        let ordering: any SQLOrderingTerm = Column("score").asc
        let ids = try assertLiteral(
            "SELECT id FROM player ORDER BY \(ordering)", #"SELECT id FROM player ORDER BY "score" ASC"#)
        XCTAssertEqual(ids, [2, 3, 1])
        let collated = try assertLiteral(
            "SELECT name FROM player WHERE name = 'arthur' COLLATE \(Database.CollationName.nocase)",
            "SELECT name FROM player WHERE name = 'arthur' COLLATE NOCASE")
        XCTAssertEqual(collated, ["Arthur"])
    }

    func testOptionalSelectionsAndOrderingsAreNULLWhenNil() throws {
        let missing: Column? = nil
        let name: Column? = Column("name")
        try dbQueue.read { db in
            let request = Table<Row>("player").select(name, missing).filter(name != nil).order(missing, name)
            let statement = try request.makePreparedRequest(db).statement
            XCTAssertEqual(
                statement.sql, #"SELECT "name", NULL FROM "player" WHERE "name" IS NOT NULL ORDER BY NULL, "name""#)
            XCTAssertEqual(try String.fetchAll(db, request), ["Arthur", "O'Brien"])
            let ordering: SQLOrdering? = nil
            XCTAssertEqual(try SQL("ORDER BY \(ordering)").build(db).sql, "ORDER BY NULL")
        }
    }

    func testTables() throws {
        let player = Player(id: 1, name: "Arthur")
        let existential: any TableRecord = player
        let recordType: any TableRecord.Type = Player.self
        try assertLiteral("SELECT id FROM \(Player.self) WHERE id = 1", #"SELECT id FROM "player" WHERE id = 1"#)
        try assertLiteral("SELECT id FROM \(tableOf: player) WHERE id = 1", #"SELECT id FROM "player" WHERE id = 1"#)
        try assertLiteral(
            "SELECT id FROM \(tableOf: existential) WHERE id = 1", #"SELECT id FROM "player" WHERE id = 1"#)
        try assertLiteral("SELECT id FROM \(recordType) WHERE id = 1", #"SELECT id FROM "player" WHERE id = 1"#)
        let ids = try assertLiteral(
            "SELECT id FROM \(Table("player")) WHERE id = 1", #"SELECT id FROM "player" WHERE id = 1"#)
        XCTAssertEqual(ids, [1])
    }

    func testColumnsOfRecords() throws {
        try assertLiteral(
            "SELECT \(columnsOf: Player.self) FROM player WHERE id = 1", #"SELECT "player".* FROM player WHERE id = 1"#)
        try assertLiteral(
            "SELECT \(columnsOf: Player.self, tableAlias: "p") FROM player p WHERE id = 1",
            #"SELECT "p".* FROM player p WHERE id = 1"#)
        let names = try assertLiteral(
            "SELECT \(columnsOf: NamedPlayer.self) FROM player WHERE id = 1",
            #"SELECT "player"."id", "player"."name" FROM player WHERE id = 1"#)
        XCTAssertEqual(names, [1])
        try dbQueue.read { db in
            let row = try XCTUnwrap(
                Row.fetchOne(db, literal: "SELECT \(columnsOf: PlayerWithoutScore.self, tableAlias: "p") FROM player p")
            )
            XCTAssertEqual(Array(row.columnNames), ["id", "name"])
            let (sql, _) = try SQL("SELECT \(columnsOf: PlayerWithoutScore.self) FROM player").build(db)
            XCTAssertEqual(sql, #"SELECT "player"."id", "player"."name" FROM player"#)
        }
    }

    func testCodingKeys() throws {
        let names = try assertLiteral(
            "SELECT \(PlayerKeys.name) FROM player WHERE id = 1", #"SELECT "name" FROM player WHERE id = 1"#)
        XCTAssertEqual(names, ["Arthur"])
        let key: any CodingKey = PlayerKeys.name
        try assertLiteral("SELECT \(key) FROM player WHERE id = 1", #"SELECT "name" FROM player WHERE id = 1"#)
        let scores = try assertLiteral(
            "SELECT \(PlayerColumns.score) FROM player WHERE id = 1", #"SELECT "score" FROM player WHERE id = 1"#)
        XCTAssertEqual(scores, [100])
    }

    func testSequences() throws {
        let ids = [1, 3]
        let names = try assertLiteral(
            "SELECT name FROM player WHERE id IN \(ids) ORDER BY id",
            "SELECT name FROM player WHERE id IN (?,?) ORDER BY id",
            [1, 3])
        XCTAssertEqual(names, ["Arthur", nil])
        let columns = [Column("id"), Column("score")]
        let matches = try assertLiteral(
            "SELECT id FROM player WHERE 100 IN \(columns)", #"SELECT id FROM player WHERE 100 IN ("id","score")"#)
        XCTAssertEqual(matches, [1])
        let mixed: [any SQLExpressible] = [Column("id"), 50]
        let mixedMatches = try assertLiteral(
            "SELECT id FROM player WHERE score IN \(mixed)", #"SELECT id FROM player WHERE score IN ("id",?)"#, [50])
        XCTAssertEqual(mixedMatches, [2])
        let none: [Int] = []
        let empty = try assertLiteral(
            "SELECT id FROM player WHERE id IN \(none)", "SELECT id FROM player WHERE id IN (SELECT NULL WHERE NULL)")
        XCTAssertEqual(empty, [])
    }

    func testLiteralsAndRawSQL() throws {
        let condition: SQL = "name = \("O'Brien")"
        let ids = try assertLiteral(
            "SELECT id FROM player WHERE \(literal: condition)", "SELECT id FROM player WHERE name = ?", ["O'Brien"])
        XCTAssertEqual(ids, [2])
        try assertLiteral(
            "SELECT id FROM player WHERE \(condition)", "SELECT id FROM player WHERE name = ?", ["O'Brien"])
        try assertLiteral("SELECT id FROM \(sql: "player") WHERE id = 1", "SELECT id FROM player WHERE id = 1")
        let raw = try assertLiteral(
            "SELECT id FROM player WHERE \(sql: "name = ?", arguments: ["Arthur"])",
            "SELECT id FROM player WHERE name = ?", ["Arthur"])
        XCTAssertEqual(raw, [1])
        try assertFragment(SQL(Column("score") * 2), #""score" * ?"#, [2])
    }

    func testJoinedLiterals() throws {
        let conditions: [SQL] = ["score > \(60)", "name LIKE \("A%")"]
        let joined = conditions.joined(separator: " AND ")
        let ids = try assertLiteral(
            "SELECT id FROM player WHERE \(joined)", "SELECT id FROM player WHERE score > ? AND name LIKE ?",
            [60, "A%"])
        XCTAssertEqual(ids, [1])
        try assertFragment(conditions.joined(), "score > ?name LIKE ?", [60, "A%"])
        let lazy = conditions.lazy.filter { _ in true }.joined(separator: " OR ")
        try assertFragment(lazy, "score > ? OR name LIKE ?", [60, "A%"])
    }

    func testSingleCharacterLiterals() throws {
        let star: SQL = "*"
        try assertLiteral("SELECT COUNT(\(star)) FROM player", "SELECT COUNT(*) FROM player")
        try assertLiteral("SELECT \(SQL(unicodeScalarLiteral: "1"))", "SELECT 1")
        try assertLiteral("SELECT \(SQL(extendedGraphemeClusterLiteral: "2"))", "SELECT 2")
        try dbQueue.read { db in
            // A one-character request is raw SQL, run as is.
            let requests = [
                SQLRequest<Int>(unicodeScalarLiteral: "?"), SQLRequest<Int>(extendedGraphemeClusterLiteral: "?"),
            ]
            for request in requests {
                XCTAssertThrowsError(try request.fetchOne(db)) { error in
                    XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_ERROR)
                    XCTAssertEqual((error as? DatabaseError)?.sql, "?")
                }
            }
        }
    }
}
