import Foundation
import Granite
import XCTest

// A connection keeps the SQL text of record UPDATEs it built (PersistenceSQLKey): the text must follow the
// columns asked for, the conflict policy and the table's columns when the schema changes.

private struct Gadget: Codable, FetchableRecord, PersistableRecord, Equatable {
    var id: Int64
    var name: String
    var price: Int
    var color: String
}

final class UpdateStatementCacheTests: XCTestCase {
    private func updates(_ dbQueue: DatabaseQueue, _ body: (Database) throws -> Void) throws -> [String] {
        let log = EventLog()
        try dbQueue.write { db in
            db.trace { log.append($0.expandedDescription, $0.description) }
            defer { db.trace(nil) }
            try body(db)
        }
        return log.plain.filter { $0.hasPrefix("UPDATE") }
    }

    func testTextFollowsColumnsAndConflictPolicy() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE gadget (id INTEGER PRIMARY KEY, name TEXT, price INTEGER, color TEXT)")
            try Gadget(id: 1, name: "lamp", price: 10, color: "red").insert(db)
        }
        var gadget = Gadget(id: 1, name: "lamp", price: 12, color: "blue")
        let sql = try updates(dbQueue) { db in
            try gadget.update(db)
            try gadget.update(db, columns: ["price"])
            try gadget.update(db, columns: ["color", "NAME"])
            try gadget.update(db, onConflict: .replace)
            try gadget.update(db)
            gadget.price = 15
            try gadget.update(db, columns: ["price"])
        }
        XCTAssertEqual(
            sql,
            [
                #"UPDATE "gadget" SET "name"=?, "price"=?, "color"=? WHERE "id"=?"#,
                #"UPDATE "gadget" SET "price"=? WHERE "id"=?"#,
                #"UPDATE "gadget" SET "name"=?, "color"=? WHERE "id"=?"#,
                #"UPDATE OR REPLACE "gadget" SET "name"=?, "price"=?, "color"=? WHERE "id"=?"#,
                #"UPDATE "gadget" SET "name"=?, "price"=?, "color"=? WHERE "id"=?"#,
                #"UPDATE "gadget" SET "price"=? WHERE "id"=?"#,
            ])
        // The arguments of the reused text are the record's current values.
        XCTAssertEqual(try dbQueue.read { db in try Gadget.fetchOne(db, key: 1) }, gadget)
    }

    func testTextFollowsTheTableAfterASchemaChange() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE gadget (id INTEGER PRIMARY KEY, name TEXT, price INTEGER)")
            try db.execute(sql: "INSERT INTO gadget VALUES (1, 'lamp', 10)")
        }
        let gadget = Gadget(id: 1, name: "desk lamp", price: 11, color: "green")
        // The table has no color column yet: the update leaves it out.
        let before = try updates(dbQueue) { db in try gadget.update(db) }
        XCTAssertEqual(before, [#"UPDATE "gadget" SET "name"=?, "price"=? WHERE "id"=?"#])
        let after = try updates(dbQueue) { db in
            try db.execute(sql: "ALTER TABLE gadget ADD COLUMN color TEXT")
            try gadget.update(db)
        }
        XCTAssertEqual(after, [#"UPDATE "gadget" SET "name"=?, "price"=?, "color"=? WHERE "id"=?"#])
        XCTAssertEqual(try dbQueue.read { db in try Gadget.fetchOne(db, key: 1) }, gadget)
        // A table dropped and created again with other columns.
        let recreated = try updates(dbQueue) { db in
            try db.execute(sql: "DROP TABLE gadget")
            try db.execute(sql: "CREATE TABLE gadget (id INTEGER PRIMARY KEY, color TEXT, name TEXT, price INTEGER)")
            try db.execute(sql: "INSERT INTO gadget VALUES (1, 'red', 'lamp', 10)")
            try gadget.update(db)
        }
        XCTAssertEqual(recreated, [#"UPDATE "gadget" SET "color"=?, "name"=?, "price"=? WHERE "id"=?"#])
    }
}
