import Granite
import XCTest

private struct Measure: TableRecord {
    static let databaseTableName = "measure"
}

final class StorageClassTests: XCTestCase {
    func testStorageClassesAreSpelledAsInSQL() {
        XCTAssertEqual(Database.StorageClass.integer.rawValue, "INTEGER")
        XCTAssertEqual(Database.StorageClass.real.rawValue, "REAL")
        XCTAssertEqual(Database.StorageClass.text.rawValue, "TEXT")
        XCTAssertEqual(Database.StorageClass.blob.rawValue, "BLOB")
        XCTAssertEqual(Database.StorageClass(rawValue: "INTEGER"), .integer)
        XCTAssertNotEqual(Database.StorageClass.integer, .real)
        let classes: Set<Database.StorageClass> = [.integer, .real, .text, .blob, .integer]
        XCTAssertEqual(classes.count, 4)
    }

    private func makeDatabase() throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE measure (value)")
            try db.execute(sql: "INSERT INTO measure VALUES ('12.7abc'), (3.9), (-3.9), (42), (NULL)")
        }
        return dbQueue
    }

    func testCastGeneratesSQL() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.read { db in
            let value = Column("value")
            let request = Measure.select(cast(value, as: .integer), cast(value + 1, as: .text))
            let statement = try request.makePreparedRequest(db).statement
            XCTAssertEqual(
                statement.sql, #"SELECT CAST("value" AS INTEGER), CAST("value" + ? AS TEXT) FROM "measure""#)
            XCTAssertEqual(statement.arguments, [1])
            let nested = Measure.filter(cast(cast(value, as: .real), as: .blob) != nil)
            XCTAssertEqual(
                try nested.makePreparedRequest(db).statement.sql,
                #"SELECT * FROM "measure" WHERE CAST(CAST("value" AS REAL) AS BLOB) IS NOT NULL"#)
        }
    }

    func testCastConvertsWithSQLiteRules() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.read { db in
            let value = Column("value")
            // Text casts to its leading number; REAL to INTEGER truncates toward zero.
            let integers = try DatabaseValue.fetchAll(db, Measure.select(cast(value, as: .integer)))
            XCTAssertEqual(integers.map(\.storage), [.int64(12), .int64(3), .int64(-3), .int64(42), .null])
            let reals = try DatabaseValue.fetchAll(db, Measure.select(cast(value, as: .real)))
            XCTAssertEqual(reals.map(\.storage), [.double(12.7), .double(3.9), .double(-3.9), .double(42), .null])
            let texts = try DatabaseValue.fetchAll(db, Measure.select(cast(value, as: .text)))
            XCTAssertEqual(
                texts.map(\.storage), [.string("12.7abc"), .string("3.9"), .string("-3.9"), .string("42"), .null])
            let blobs = try DatabaseValue.fetchAll(db, Measure.select(cast(value, as: .blob)))
            XCTAssertEqual(blobs.first?.storage, .blob(Data("12.7abc".utf8)))
            let typeNames = try String.fetchAll(db, Measure.select(SQL("typeof(\(cast(value, as: .blob)))")))
            XCTAssertEqual(typeNames, ["blob", "blob", "blob", "blob", "null"])
        }
    }

    func testCastToACustomTypeNameUsesItsAffinity() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.read { db in
            // NUMERIC affinity: "12.7abc" is not a well-formed number, so it casts to its prefix 12.7.
            let numeric = Database.StorageClass(rawValue: "NUMERIC")
            let request = Measure.select(cast(Column("value"), as: numeric)).filter(Column("value") == 42)
            XCTAssertEqual(
                try request.makePreparedRequest(db).statement.sql,
                #"SELECT CAST("value" AS NUMERIC) FROM "measure" WHERE "value" = ?"#)
            XCTAssertEqual(try Int.fetchOne(db, request), 42)
        }
    }
}
