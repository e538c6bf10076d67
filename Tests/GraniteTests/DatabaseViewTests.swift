import Foundation
import Granite
import GraniteTestSupport
import XCTest

/// Views through the GRDB API: the schema DSL creates and drops them, schema introspection sees them as GRDB does
/// with SQLite, records read them, and they survive reopening the file.
final class DatabaseViewTests: XCTestCase {
    private struct Player: Codable, FetchableRecord, PersistableRecord {
        var id: Int64
        var name: String
        var score: Int
    }

    /// A record read from the `bestPlayer` view.
    private struct BestPlayer: Codable, FetchableRecord, TableRecord, Equatable {
        static let databaseTableName = "bestPlayer"
        var id: Int64
        var name: String
    }

    private struct IDSource: DatabaseSchemaSource {
        func columnsForPrimaryKey(_ db: Database, inView view: DatabaseObjectID) throws -> [String]? {
            view.name == "bestPlayer" ? ["id"] : nil
        }
    }

    private func makeDatabase(_ queue: DatabaseQueue) throws {
        try queue.write { db in
            try db.create(table: "player") { t in
                t.primaryKey("id", .integer)
                t.column("name", .text).notNull()
                t.column("score", .integer)
            }
            for (id, name, score) in [(1, "Arthur", 1500), (2, "Barbara", 800), (3, "Craig", 2000)] {
                try Player(id: Int64(id), name: name, score: score).insert(db)
            }
            try db.create(
                view: "bestPlayer",
                as: Player.select(Column("id"), Column("name")).filter(Column("score") > 1000).order(Column("name")))
        }
    }

    private func databaseError(_ body: () throws -> Void) -> DatabaseError? {
        do {
            try body()
        } catch let error as DatabaseError {
            return error
        } catch {
            XCTFail("unexpected error \(error)")
        }
        return nil
    }

    func testRecordsReadAView() throws {
        let queue = try DatabaseQueue()
        try makeDatabase(queue)
        try queue.read { db in
            XCTAssertEqual(
                try BestPlayer.fetchAll(db), [BestPlayer(id: 1, name: "Arthur"), BestPlayer(id: 3, name: "Craig")])
            XCTAssertEqual(try BestPlayer.filter(Column("name") == "Craig").fetchCount(db), 1)
            XCTAssertEqual(try BestPlayer.fetchCount(db), 2)
        }
        try queue.write { db in
            let error = databaseError { try db.execute(sql: "DELETE FROM bestPlayer") }
            XCTAssertEqual(error?.message, "cannot modify bestPlayer because it is a view")
            XCTAssertEqual(error?.resultCode, .SQLITE_ERROR)
        }
    }

    func testIntrospection() throws {
        let queue = try DatabaseQueue()
        try makeDatabase(queue)
        try queue.read { db in
            XCTAssertTrue(try db.viewExists("bestPlayer"))
            XCTAssertTrue(try db.viewExists("BESTPLAYER"))
            XCTAssertFalse(try db.viewExists("player"))
            XCTAssertFalse(try db.tableExists("bestPlayer"))
            XCTAssertFalse(try db.viewExists("bestPlayer", in: "temp"))

            let columns = try db.columns(in: "bestPlayer")
            XCTAssertEqual(columns.map(\.name), ["id", "name"])
            XCTAssertEqual(columns.map(\.type), ["INTEGER", "TEXT"])
            XCTAssertEqual(columns.map(\.isNotNull), [false, false])
            XCTAssertEqual(columns.map(\.primaryKeyIndex), [0, 0])

            let noKey = databaseError { _ = try db.primaryKey("bestPlayer") }
            XCTAssertEqual(noKey?.message, "database view bestPlayer has no primary key")
            let missing = databaseError { _ = try db.columns(in: "nosuch") }
            XCTAssertEqual(missing?.message, "no such table: nosuch")
        }
    }

    func testSchemaSourceGivesAViewAPrimaryKey() throws {
        var configuration = Configuration()
        configuration.schemaSource = IDSource()
        let queue = try DatabaseQueue(configuration: configuration)
        try makeDatabase(queue)
        try queue.read { db in
            let key = try db.primaryKey("bestPlayer")
            XCTAssertEqual(key.columns, ["id"])
            XCTAssertNil(key.rowIDColumn)
            XCTAssertFalse(key.isRowID)
            XCTAssertEqual(try BestPlayer.fetchOne(db, key: 3), BestPlayer(id: 3, name: "Craig"))
            XCTAssertNil(try BestPlayer.fetchOne(db, key: 2))
        }
    }

    func testViewSurvivesReopeningTheFile() throws {
        let directory = try makeTemporaryDirectory(prefix: "granite-views")
        let path = directory.path("views.granite")
        try makeDatabase(try DatabaseQueue(path: path))
        let reopened = try DatabaseQueue(path: path)
        try reopened.read { db in
            XCTAssertTrue(try db.viewExists("bestPlayer"))
            XCTAssertEqual(try String.fetchAll(db, sql: "SELECT name FROM bestPlayer"), ["Arthur", "Craig"])
        }
        try reopened.write { db in try db.drop(view: "bestPlayer") }
        try DatabaseQueue(path: path).read { db in
            XCTAssertFalse(try db.viewExists("bestPlayer"))
        }
    }
}
