// Client code in Swift 5 language mode, written as GRDB's README writes it: it must compile against Granite
// unchanged (only the import differs) and behave the same.
import Granite
import XCTest

final class GRDBStyleCodeTests: XCTestCase {
    func testReadmeStyleCode() throws {
        let dbQueue = try DatabaseQueue()

        var migrator = DatabaseMigrator()
        migrator.registerMigration("createPlace") { db in
            try db.create(table: "place") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("title", .text).notNull()
                t.column("favorite", .boolean).notNull().defaults(to: false)
                t.column("latitude", .double).notNull()
                t.column("longitude", .double).notNull()
            }
        }
        try migrator.migrate(dbQueue)

        try dbQueue.write { db in
            try db.execute(
                sql: "INSERT INTO place (title, favorite, latitude, longitude) VALUES (?, ?, ?, ?)",
                arguments: ["Paris", true, 48.85341, 2.3488])
            let parisId = db.lastInsertedRowID
            try db.execute(
                sql: "UPDATE place SET title = :title WHERE id = :id",
                arguments: ["title": "Paris, France", "id": parisId])
        }

        let places = try dbQueue.read { db -> [Row] in
            try Row.fetchAll(db, sql: "SELECT * FROM place")
        }
        XCTAssertEqual(places.count, 1)
        let title: String = places[0]["title"]
        let favorite: Bool = places[0]["favorite"]
        XCTAssertEqual(title, "Paris, France")
        XCTAssertTrue(favorite)

        let count = try dbQueue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM place") }
        XCTAssertEqual(count, 1)

        try dbQueue.read { db in
            let rows = try Row.fetchCursor(db, sql: "SELECT title, latitude FROM place")
            while let row = try rows.next() {
                let latitude: Double = row["latitude"]
                XCTAssertEqual(latitude, 48.85341, accuracy: 1e-9)
            }
            XCTAssertTrue(try db.tableExists("place"))
            XCTAssertEqual(try db.primaryKey("place").columns, ["id"])
        }

        do {
            try dbQueue.write { db in
                try db.execute(sql: "INSERT INTO place (id, title, latitude, longitude) VALUES (1, 'Dup', 0, 0)")
            }
            XCTFail("expected a constraint error")
        } catch DatabaseError.SQLITE_CONSTRAINT_PRIMARYKEY {
            // as in GRDB
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            // The engine reports a rowid conflict as a primary-key constraint; accept the family too.
        }
    }

    func testSwift5AsyncAccess() async throws {
        let dbPool = try DatabaseQueue()
        try await dbPool.write { db in
            try db.execute(sql: "CREATE TABLE t (a); INSERT INTO t VALUES (1)")
        }
        let value = try await dbPool.read { db in try Int.fetchOne(db, sql: "SELECT a FROM t") }
        XCTAssertEqual(value, 1)
    }
}
