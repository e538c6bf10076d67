import Foundation
import Granite
import GraniteTestSupport
import XCTest

/// Rowid alias primary key, plus a unique email.
private struct Player: TableRecord, FetchableRecord, Identifiable, Hashable {
    var id: Int64
    var email: String
    var name: String
    init(row: Row) {
        id = row["id"]
        email = row["email"]
        name = row["name"]
    }
}

/// Single-column text primary key, and an id computed from it (the README's Country).
private struct Country: Identifiable, FetchableRecord, TableRecord {
    var isoCode: String
    var name: String
    var population: Int
    var id: String { isoCode }
    init(row: Row) {
        isoCode = row["isoCode"]
        name = row["name"]
        population = row["population"]
    }
}

/// Composite primary key.
private struct Citizenship: TableRecord, FetchableRecord {
    var personId: Int64
    var countryCode: String
    var since: Int
    init(row: Row) {
        personId = row["personId"]
        countryCode = row["countryCode"]
        since = row["since"]
    }
}

/// No declared primary key: the hidden rowid.
private struct Note: TableRecord, FetchableRecord {
    var text: String
    init(row: Row) { text = row["text"] }
}

/// A blob primary key.
private struct Document: TableRecord, FetchableRecord, Identifiable {
    var id: Data
    var title: String
    init(row: Row) {
        id = row["id"]
        title = row["title"]
    }
}

final class RecordKeyTests: XCTestCase {
    private func makeDatabase() throws -> (DatabaseQueue, SQLRecorder) {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE player (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, name TEXT NOT NULL);
                    INSERT INTO player VALUES (1, 'arthur@example.com', 'Arthur'), (2, 'barbara@example.com', 'Barbara'),
                                              (3, 'craig@example.com', 'Craig');
                    CREATE TABLE country (isoCode TEXT PRIMARY KEY, name TEXT NOT NULL, population INT NOT NULL);
                    INSERT INTO country VALUES ('FR', 'France', 67000000), ('DE', 'Germany', 83000000);
                    CREATE TABLE citizenship (personId INT, countryCode TEXT, since INT NOT NULL,
                                              PRIMARY KEY (personId, countryCode));
                    INSERT INTO citizenship VALUES (1, 'FR', 1990), (1, 'DE', 2001), (2, 'FR', 1985);
                    CREATE TABLE note (text TEXT NOT NULL);
                    INSERT INTO note VALUES ('first'), ('second'), ('third');
                    CREATE TABLE document (id BLOB PRIMARY KEY, title TEXT NOT NULL);
                    """)
            try db.execute(
                sql: "INSERT INTO document VALUES (?, 'one'), (?, 'two')", arguments: [Data([1]), Data([2])])
        }
        let recorder = SQLRecorder()
        recorder.record(dbQueue)
        return (dbQueue, recorder)
    }

    func testRowIDPrimaryKey() throws {
        let (dbQueue, recorder) = try makeDatabase()
        try dbQueue.read { db in
            XCTAssertEqual(try Player.fetchOne(db, key: 1)?.name, "Arthur")
            XCTAssertEqual(recorder.last, "SELECT * FROM \"player\" WHERE \"id\" = 1")
            XCTAssertEqual(try Player.fetchOne(db, id: 2)?.name, "Barbara")
            XCTAssertNil(try Player.fetchOne(db, key: 42))
            let count = recorder.sql.count
            XCTAssertNil(try Player.fetchOne(db, key: Int?.none))
            XCTAssertEqual(recorder.sql.count, count, "a NULL key does not hit the database")
            XCTAssertEqual(try Player.fetchAll(db, keys: [1, 3]).map(\.name), ["Arthur", "Craig"])
            XCTAssertEqual(recorder.last, "SELECT * FROM \"player\" WHERE \"id\" IN (1, 3)")
            XCTAssertEqual(try Player.fetchAll(db, ids: [3, 42]).map(\.name), ["Craig"])
            XCTAssertEqual(try Player.fetchSet(db, ids: [1, 2]).count, 2)
            XCTAssertEqual(try Player.fetchAll(db, keys: [Int]()), [])
            XCTAssertEqual(try Array(Player.fetchCursor(db, ids: [2])).map(\.name), ["Barbara"])
            XCTAssertTrue(try Player.exists(db, key: 1))
            XCTAssertEqual(recorder.last, "SELECT EXISTS (SELECT * FROM \"player\" WHERE \"id\" = 1)")
            XCTAssertFalse(try Player.exists(db, id: 42))
            XCTAssertEqual(try Player.find(db, id: 3).name, "Craig")
            XCTAssertEqual(
                try Player.filter(key: 2).makePreparedRequest(db).statement.sql,
                "SELECT * FROM \"player\" WHERE \"id\" = ?")
            XCTAssertEqual(
                try Player.filter(ids: [1, 2]).makePreparedRequest(db).statement.sql,
                "SELECT * FROM \"player\" WHERE \"id\" IN (?, ?)")
            XCTAssertEqual(try Player.filter(keys: [Int]()).fetchCount(db), 0)
            // The rowid column itself is a unique key.
            XCTAssertEqual(try Player.filter(Column.rowID == 2).fetchOne(db)?.name, "Barbara")
            XCTAssertEqual(recorder.last, "SELECT * FROM \"player\" WHERE \"rowid\" = 2")
            // A non-unique filter fetches one row with LIMIT 1.
            XCTAssertEqual(try Player.filter(Column("name") == "Craig").fetchOne(db)?.id, 3)
            XCTAssertEqual(recorder.last, "SELECT * FROM \"player\" WHERE \"name\" = 'Craig' LIMIT 1")
        }
    }

    func testUniqueKeys() throws {
        let (dbQueue, recorder) = try makeDatabase()
        try dbQueue.read { db in
            XCTAssertEqual(try Player.fetchOne(db, key: ["email": "barbara@example.com"])?.id, 2)
            XCTAssertEqual(recorder.last, "SELECT * FROM \"player\" WHERE \"email\" = 'barbara@example.com'")
            XCTAssertEqual(try Player.filter(Column("email") == "craig@example.com").fetchOne(db)?.id, 3)
            XCTAssertEqual(recorder.last, "SELECT * FROM \"player\" WHERE \"email\" = 'craig@example.com'")
            XCTAssertEqual(
                try Player.fetchAll(db, keys: [["email": "arthur@example.com"], ["id": 3]]).map(\.id), [1, 3])
            XCTAssertEqual(
                recorder.last, "SELECT * FROM \"player\" WHERE (\"email\" = 'arthur@example.com') OR (\"id\" = 3)")
            XCTAssertTrue(try Player.exists(db, key: ["email": "arthur@example.com"]))
            XCTAssertNil(try Player.fetchOne(db, key: nil))
            XCTAssertEqual(try Player.find(db, key: ["id": 1, "name": "Arthur"]).id, 1)
            XCTAssertEqual(recorder.last, "SELECT * FROM \"player\" WHERE (\"id\" = 1) AND (\"name\" = 'Arthur')")

            // Columns that are not a unique key are an error.
            XCTAssertThrowsError(try Player.fetchOne(db, key: ["name": "Arthur"])) { error in
                let error = error as? DatabaseError
                XCTAssertEqual(error?.resultCode, .SQLITE_MISUSE)
                XCTAssertEqual(error?.message, "table player has no unique key on column(s) name")
            }
            XCTAssertThrowsError(
                try Player.deleteOne(
                    db, key: ["name": "Arthur", "email": nil] as [String: (any DatabaseValueConvertible)?]))
        }
    }

    func testSingleColumnNonIntegerPrimaryKey() throws {
        let (dbQueue, recorder) = try makeDatabase()
        try dbQueue.read { db in
            let france = try Country.fetchOne(db, id: "FR")
            XCTAssertEqual(france?.name, "France")
            XCTAssertEqual(recorder.last, "SELECT * FROM \"country\" WHERE \"isoCode\" = 'FR'")
            XCTAssertEqual(try Country.fetchAll(db, ids: ["DE", "FR"]).count, 2)
            XCTAssertEqual(try Country.find(db, key: "DE").population, 83_000_000)
            XCTAssertThrowsError(try Country.find(db, id: "IT")) { error in
                guard case RecordError.recordNotFound(let table, let key) = error else {
                    return XCTFail("unexpected error \(error)")
                }
                XCTAssertEqual(table, "country")
                XCTAssertEqual(key, ["isoCode": "IT".databaseValue])
                XCTAssertEqual("\(error)", "Key not found in table country: [isoCode:\"IT\"]")
            }
            XCTAssertEqual(try Document.fetchOne(db, id: Data([2]))?.title, "two")
            XCTAssertEqual(try Document.fetchAll(db, ids: [Data([1]), Data([2])]).count, 2)
        }
        // The README's code.
        let france = try dbQueue.read { db in
            try Country.fetchOne(db, id: "FR")
        }
        XCTAssertEqual(france?.population, 67_000_000)
    }

    func testCompositePrimaryKey() throws {
        let (dbQueue, recorder) = try makeDatabase()
        try dbQueue.write { db in
            let key: [String: (any DatabaseValueConvertible)?] = ["countryCode": "FR", "personId": 1]
            XCTAssertEqual(try Citizenship.fetchOne(db, key: key)?.since, 1990)
            XCTAssertEqual(
                recorder.last, "SELECT * FROM \"citizenship\" WHERE (\"personId\" = 1) AND (\"countryCode\" = 'FR')")
            XCTAssertEqual(try Citizenship.fetchAll(db, keys: [key, ["personId": 1, "countryCode": "DE"]]).count, 2)
            XCTAssertThrowsError(try Citizenship.find(db, key: ["personId": 3, "countryCode": "FR"])) { error in
                guard case RecordError.recordNotFound(let table, let key) = error else {
                    return XCTFail("unexpected error \(error)")
                }
                XCTAssertEqual(table, "citizenship")
                XCTAssertEqual(key, ["personId": 3.databaseValue, "countryCode": "FR".databaseValue])
            }
            // A single value can't address a composite primary key.
            XCTAssertThrowsError(try Citizenship.fetchOne(db, key: 1)) { error in
                XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_MISUSE)
            }
            XCTAssertThrowsError(try Citizenship.fetchOne(db, key: ["personId": 1])) { error in
                XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_MISUSE)
            }
            XCTAssertTrue(try Citizenship.deleteOne(db, key: key))
            XCTAssertEqual(
                recorder.last, "DELETE FROM \"citizenship\" WHERE (\"personId\" = 1) AND (\"countryCode\" = 'FR')")
            XCTAssertFalse(try Citizenship.deleteOne(db, key: key))
            XCTAssertEqual(try Citizenship.fetchCount(db), 2)
        }
    }

    func testHiddenRowIDPrimaryKey() throws {
        let (dbQueue, recorder) = try makeDatabase()
        try dbQueue.write { db in
            XCTAssertEqual(try Note.fetchOne(db, key: 2)?.text, "second")
            XCTAssertEqual(recorder.last, "SELECT * FROM \"note\" WHERE \"rowid\" = 2")
            XCTAssertEqual(try Note.fetchAll(db, keys: [1, 3]).map(\.text), ["first", "third"])
            XCTAssertEqual(try Note.fetchOne(db, key: ["rowid": 3])?.text, "third")
            XCTAssertThrowsError(try Note.find(db, key: 9)) { error in
                guard case RecordError.recordNotFound(let table, let key) = error else {
                    return XCTFail("unexpected error \(error)")
                }
                XCTAssertEqual(table, "note")
                XCTAssertEqual(key, ["rowid": 9.databaseValue])
            }
            XCTAssertTrue(try Note.deleteOne(db, key: 1))
            XCTAssertEqual(try Note.deleteAll(db, keys: [2, 3, 4]), 2)
            XCTAssertEqual(try Note.fetchCount(db), 0)
        }
    }

    func testDeletingByKey() throws {
        let (dbQueue, recorder) = try makeDatabase()
        try dbQueue.write { db in
            XCTAssertTrue(try Player.deleteOne(db, key: 1))
            XCTAssertEqual(recorder.last, "DELETE FROM \"player\" WHERE \"id\" = 1")
            XCTAssertFalse(try Player.deleteOne(db, id: 1))
            XCTAssertFalse(try Player.deleteOne(db, key: Int?.none))
            XCTAssertTrue(try Player.delete(db, id: 2))  // seed 3: `try Place.delete(db, id: 1)`
            XCTAssertEqual(try Player.deleteAll(db, ids: [Int64]()), 0)
            XCTAssertTrue(try Player.deleteOne(db, key: ["email": "craig@example.com"]))
            XCTAssertEqual(recorder.last, "DELETE FROM \"player\" WHERE \"email\" = 'craig@example.com'")
            XCTAssertEqual(try Player.fetchCount(db), 0)
            XCTAssertEqual(try Country.deleteAll(db, keys: ["FR", "DE", "IT"]), 2)
            XCTAssertEqual(recorder.last, "DELETE FROM \"country\" WHERE \"isoCode\" IN ('FR', 'DE', 'IT')")
            XCTAssertEqual(
                try Citizenship.deleteAll(
                    db, keys: [["personId": 1, "countryCode": "DE"], ["personId": 2, "countryCode": "FR"]]), 2)
        }
    }

    func testSelectPrimaryKey() throws {
        let (dbQueue, recorder) = try makeDatabase()
        try dbQueue.read { db in
            XCTAssertEqual(try Player.selectID().order(Column("id").desc).fetchAll(db), [3, 2, 1])
            XCTAssertEqual(recorder.last, "SELECT \"id\" FROM \"player\" ORDER BY \"id\" DESC")
            XCTAssertEqual(try Country.selectID().fetchSet(db), ["FR", "DE"])
            XCTAssertEqual(try Note.selectPrimaryKey(as: Int64.self).fetchAll(db), [1, 2, 3])
            XCTAssertEqual(recorder.last, "SELECT \"rowid\" FROM \"note\"")
            let keys = try Citizenship.selectPrimaryKey(as: Row.self).filter(Column("personId") == 1).fetchAll(db)
            XCTAssertEqual(keys.map(\.columnNames), [["personId", "countryCode"], ["personId", "countryCode"]])
        }
    }

    func testMissingTable() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.read { db in
            XCTAssertThrowsError(try Player.fetchOne(db, key: 1)) { error in
                XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_ERROR)
            }
            XCTAssertThrowsError(try Player.find(db, key: 1)) { error in
                XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_ERROR)
            }
        }
    }
}
