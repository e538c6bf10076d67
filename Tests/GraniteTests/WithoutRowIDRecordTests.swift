import XCTest

@testable import Granite

/// WITHOUT ROWID tables through the GRDB API: the schema DSL's SQL, the primary key description, and records
/// keyed by their primary key.
final class WithoutRowIDRecordTests: XCTestCase {
    private struct Country: Codable, Equatable, FetchableRecord, PersistableRecord {
        var code: String
        var name: String
    }

    private struct Border: Codable, Equatable, FetchableRecord, PersistableRecord {
        var fromCode: String
        var toCode: String
        var length: Int
    }

    private func makeSchema(_ db: Database) throws {
        try db.create(table: "country", options: .withoutRowID) { t in
            t.primaryKey("code", .text)
            t.column("name", .text).notNull()
        }
        try db.create(table: "border", options: [.strict, .withoutRowID]) { t in
            t.primaryKey {
                t.column("fromCode", .text)
                t.column("toCode", .text)
            }
            t.column("length", .integer).notNull()
        }
        try db.create(table: "counter", options: .withoutRowID) { t in
            t.primaryKey("id", .integer)
            t.column("value", .integer)
        }
    }

    func testSchemaDSLWritesWithoutRowid() throws {
        try DatabaseQueue().inDatabase { db in
            try makeSchema(db)
            let sql = try String.fetchAll(db, sql: "SELECT sql FROM sqlite_schema WHERE type = 'table' ORDER BY name")
            XCTAssertEqual(
                sql,
                [
                    #"CREATE TABLE "border" ("fromCode" TEXT NOT NULL, "toCode" TEXT NOT NULL, "length" INTEGER NOT NULL, PRIMARY KEY ("fromCode", "toCode")) STRICT, WITHOUT ROWID"#,
                    #"CREATE TABLE "counter" ("id" INTEGER PRIMARY KEY, "value" INTEGER) WITHOUT ROWID"#,
                    #"CREATE TABLE "country" ("code" TEXT PRIMARY KEY NOT NULL, "name" TEXT NOT NULL) WITHOUT ROWID"#,
                ])
            // The keyword arguments of the older spelling still create the table.
            try db.create(table: "legacy", temporary: true, ifNotExists: true, withoutRowID: true) { t in
                t.primaryKey("id", .integer)
            }
            XCTAssertTrue(try db.tableExists("legacy"))
        }
    }

    func testPrimaryKeyInfoOfWithoutRowidTables() throws {
        try DatabaseQueue().inDatabase { db in
            try makeSchema(db)
            let country = try db.primaryKey("country")
            XCTAssertEqual(country.columns, ["code"])
            XCTAssertNil(country.rowIDColumn)
            XCTAssertFalse(country.isRowID)
            XCTAssertFalse(country.tableHasRowID)
            let border = try db.primaryKey("border")
            XCTAssertEqual(border.columns, ["fromCode", "toCode"])
            XCTAssertFalse(border.tableHasRowID)
            // Like GRDB, a single INTEGER key column is reported as the rowid, whatever the table's options.
            let counter = try db.primaryKey("counter")
            XCTAssertEqual(counter.rowIDColumn, "id")
            XCTAssertTrue(try db.table("country", hasUniqueKey: ["code"]))
            XCTAssertFalse(try db.table("country", hasUniqueKey: ["name"]))
        }
    }

    func testRecordsPersistByPrimaryKey() throws {
        try DatabaseQueue().inDatabase { db in
            try makeSchema(db)
            try Country(code: "FR", name: "France").insert(db)
            try Country(code: "BE", name: "Belgium").insert(db)
            try Country(code: "DE", name: "Germany").insert(db)
            XCTAssertThrowsError(try Country(code: "FR", name: "Again").insert(db)) { error in
                XCTAssertEqual((error as? DatabaseError)?.extendedResultCode, .SQLITE_CONSTRAINT_PRIMARYKEY)
                XCTAssertEqual((error as? DatabaseError)?.message, "UNIQUE constraint failed: country.code")
            }
            // Unordered requests read the table in key order.
            XCTAssertEqual(try Country.fetchAll(db).map(\.code), ["BE", "DE", "FR"])
            XCTAssertEqual(try Country.fetchOne(db, key: "DE")?.name, "Germany")
            XCTAssertEqual(try Country.fetchAll(db, keys: ["FR", "XX", "BE"]).map(\.code).sorted(), ["BE", "FR"])

            try Country(code: "DE", name: "Deutschland").update(db)
            XCTAssertEqual(try Country.fetchOne(db, key: "DE")?.name, "Deutschland")
            XCTAssertThrowsError(try Country(code: "IT", name: "Italy").update(db)) { error in
                XCTAssertTrue(error is RecordError)
            }
            try Country(code: "IT", name: "Italy").save(db)
            try Country(code: "IT", name: "Italia").save(db)
            XCTAssertEqual(try Country.fetchOne(db, key: "IT")?.name, "Italia")
            // GRDB's upsert reads the rowid back (`RETURNING "rowid"`), which such a table does not have.
            XCTAssertThrowsError(try Country(code: "BE", name: "België").upsert(db)) { error in
                XCTAssertEqual((error as? DatabaseError)?.message, "no such column: rowid")
            }
            try Country(code: "BE", name: "België").save(db)
            XCTAssertEqual(try Country.fetchOne(db, key: "BE")?.name, "België")
            XCTAssertTrue(try Country(code: "FR", name: "").exists(db))
            XCTAssertTrue(try Country.deleteOne(db, key: "FR"))
            XCTAssertFalse(try Country.exists(db, key: "FR"))
            XCTAssertEqual(try Country.filter(key: "IT").updateAll(db, Column("name").set(to: "Italy")), 1)
            XCTAssertEqual(try Country.fetchAll(db).map(\.name), ["België", "Deutschland", "Italy"])

            try Border(fromCode: "FR", toCode: "BE", length: 620).insert(db)
            try Border(fromCode: "BE", toCode: "FR", length: 620).insert(db)
            try Border(fromCode: "BE", toCode: "DE", length: 133).insert(db)
            XCTAssertEqual(
                try Border.fetchOne(db, key: ["fromCode": "BE", "toCode": "DE"]),
                Border(fromCode: "BE", toCode: "DE", length: 133))
            XCTAssertEqual(try Border.fetchAll(db).map { $0.fromCode + $0.toCode }, ["BEDE", "BEFR", "FRBE"])
            try Border(fromCode: "BE", toCode: "DE", length: 134).update(db)
            XCTAssertEqual(try Border.deleteAll(db, keys: [["fromCode": "FR", "toCode": "BE"]]), 1)
            XCTAssertEqual(try Border.fetchAll(db).map(\.length), [134, 620])
        }
    }

    func testInsertingLeavesLastInsertedRowIDAlone() throws {
        try DatabaseQueue().inDatabase { db in
            try makeSchema(db)
            try db.execute(sql: "CREATE TABLE plain(x)")
            try db.execute(sql: "INSERT INTO plain VALUES (1), (2)")
            try Country(code: "FR", name: "France").insert(db)
            XCTAssertEqual(db.lastInsertedRowID, 2)
            XCTAssertThrowsError(try db.execute(sql: "SELECT rowid FROM country")) { error in
                XCTAssertEqual((error as? DatabaseError)?.message, "no such column: rowid")
            }
            XCTAssertThrowsError(try db.execute(sql: "INSERT INTO counter(value) VALUES (1)")) { error in
                XCTAssertEqual((error as? DatabaseError)?.extendedResultCode, .SQLITE_CONSTRAINT_NOTNULL)
                XCTAssertEqual((error as? DatabaseError)?.message, "NOT NULL constraint failed: counter.id")
            }
        }
    }
}
