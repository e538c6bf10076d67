import Granite
import XCTest

/// A record of a table without an explicit primary key, keeping the hidden rowid in a hand-written encoding.
private struct Person: FetchableRecord, MutablePersistableRecord, Identifiable, Equatable {
    static let databaseTableName = "persons"
    static var databaseSelection: [any SQLSelectable] { [.allColumns, .rowID] }

    var id: Int64?
    var name: String
    var age: Int?

    init(id: Int64? = nil, name: String, age: Int? = nil) {
        self.id = id
        self.name = name
        self.age = age
    }

    init(row: Row) throws {
        id = row[.rowID]
        name = row["name"]
        age = row["age"]
    }

    func encode(to container: inout PersistenceContainer) throws {
        container[.rowID] = id
        container["name"] = name
        container["age"] = age
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

/// A Codable record of the same table, whose `rowid` property is the hidden rowid.
private struct Item: Codable, FetchableRecord, MutablePersistableRecord, Equatable {
    static let databaseTableName = "persons"
    static var databaseSelection: [any SQLSelectable] { [.allColumns, .rowID] }

    var rowid: Int64?
    var name: String
    var age: Int?

    mutating func didInsert(_ inserted: InsertionSuccess) {
        rowid = inserted.rowID
    }
}

/// Records of a table without an explicit primary key: their primary key is the hidden rowid, as in GRDB.
final class HiddenRowIDRecordTests: XCTestCase {
    private func makeQueue() throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE persons (name TEXT NOT NULL, age INT)")
        }
        return dbQueue
    }

    private func stored(_ db: Database, _ rowid: Int64?) throws -> Row? {
        try Row.fetchOne(db, sql: "SELECT rowid, name, age FROM persons WHERE rowid = ?", arguments: [rowid])
    }

    func testPrimaryKeyIsHiddenRowID() throws {
        try makeQueue().read { db in
            let primaryKey = try db.primaryKey("persons")
            XCTAssertEqual(primaryKey.columns, ["rowid"])
            XCTAssertNil(primaryKey.rowIDColumn)
            XCTAssertTrue(primaryKey.isRowID)
        }
    }

    func testInsertWithoutRowIDSetsIt() throws {
        try makeQueue().write { db in
            var person = Person(name: "Arthur", age: 41)
            try person.insert(db)
            XCTAssertEqual(person.id, 1)
            var other = Person(name: "Barbara")
            try other.insert(db)
            XCTAssertEqual(other.id, 2)
            XCTAssertEqual(try stored(db, 2), ["rowid": 2, "name": "Barbara", "age": nil])
        }
    }

    func testInsertWithRowIDUsesIt() throws {
        try makeQueue().write { db in
            var person = Person(id: 123456, name: "Arthur")
            try person.insert(db)
            XCTAssertEqual(person.id, 123456)
            XCTAssertEqual(db.lastInsertedRowID, 123456)
            XCTAssertEqual(try stored(db, 123456), ["rowid": 123456, "name": "Arthur", "age": nil])
            // Inserting the same rowid again fails like SQLite.
            do {
                try person.insert(db)
                XCTFail("expected a rowid conflict")
            } catch let error as DatabaseError {
                XCTAssertEqual(error.extendedResultCode, .SQLITE_CONSTRAINT_ROWID)
                XCTAssertEqual(error.message, "UNIQUE constraint failed: persons.rowid")
            }
            XCTAssertEqual(try Person.fetchCount(db), 1)
        }
    }

    func testInsertAfterDeleteReusesRowID() throws {
        try makeQueue().write { db in
            var person = Person(name: "Arthur")
            try person.insert(db)
            XCTAssertTrue(try person.delete(db))
            try person.insert(db)
            XCTAssertEqual(try stored(db, person.id)?["name"], "Arthur")
        }
    }

    func testUpdate() throws {
        try makeQueue().write { db in
            do {
                try Person(name: "Nobody").update(db)
                XCTFail("expected recordNotFound")
            } catch let RecordError.recordNotFound(databaseTableName: table, key: key) {
                XCTAssertEqual(table, "persons")
                XCTAssertEqual(key, ["rowid": .null])
            }
            do {
                try Person(id: 123456, name: "Nobody").update(db)
                XCTFail("expected recordNotFound")
            } catch let RecordError.recordNotFound(databaseTableName: table, key: key) {
                XCTAssertEqual(table, "persons")
                XCTAssertEqual(key, ["rowid": 123456.databaseValue])
            }
            var person = Person(name: "Arthur", age: 41)
            try person.insert(db)
            person.age = 42
            try person.update(db)
            XCTAssertEqual(try stored(db, person.id)?["age"], 42)
            person.name = "Art"
            XCTAssertTrue(try person.updateChanges(db) { $0.age = 43 })
            // Only the column changed by the closure is written.
            XCTAssertEqual(try stored(db, person.id), ["rowid": person.id, "name": "Arthur", "age": 43])
        }
    }

    func testSave() throws {
        try makeQueue().write { db in
            var person = Person(name: "Arthur", age: 41)
            try person.save(db)
            XCTAssertEqual(person.id, 1)
            // A second save updates: an insert would fail on the rowid.
            try person.save(db)
            person.age = 42
            try person.save(db)
            XCTAssertEqual(try stored(db, 1)?["age"], 42)
            XCTAssertEqual(try Person.fetchCount(db), 1)
            var other = Person(id: 50, name: "Barbara")
            try other.save(db)
            XCTAssertEqual(try stored(db, 50)?["name"], "Barbara")
            XCTAssertTrue(try other.delete(db))
            try other.save(db)
            XCTAssertEqual(try stored(db, 50)?["name"], "Barbara")
        }
    }

    func testUpsert() throws {
        try makeQueue().write { db in
            var person = Person(name: "Arthur", age: 41)
            try person.upsert(db)
            XCTAssertEqual(person.id, 1)
            var changed = Person(id: 1, name: "Arthur", age: 50)
            try changed.upsert(db)
            XCTAssertEqual(changed.id, 1)
            XCTAssertEqual(try Person.fetchCount(db), 1)
            XCTAssertEqual(try stored(db, 1)?["age"], 50)
            var fresh = Person(id: 7, name: "Craig")
            let returned = try fresh.upsertAndFetch(db)
            XCTAssertEqual(returned, Person(id: 7, name: "Craig"))
            XCTAssertEqual(fresh.id, 7)
        }
    }

    func testDeleteAndExists() throws {
        try makeQueue().write { db in
            XCTAssertFalse(try Person(name: "Nobody").delete(db))
            XCTAssertFalse(try Person(id: 123456, name: "Nobody").delete(db))
            XCTAssertFalse(try Person(name: "Nobody").exists(db))
            var person = Person(name: "Arthur")
            try person.insert(db)
            XCTAssertTrue(try person.exists(db))
            XCTAssertTrue(try person.delete(db))
            XCTAssertFalse(try person.exists(db))
            XCTAssertFalse(try person.delete(db))
            try person.insert(db)
            XCTAssertTrue(try Person.deleteOne(db, key: person.id))
            XCTAssertEqual(try Person.fetchCount(db), 0)
        }
    }

    func testFetchByKeyAndID() throws {
        try makeQueue().write { db in
            var arthur = Person(name: "Arthur")
            try arthur.insert(db)
            var barbara = Person(id: 10, name: "Barbara")
            try barbara.insert(db)
            XCTAssertEqual(try Person.fetchOne(db, key: 10), barbara)
            XCTAssertEqual(try Person.fetchOne(db, key: ["rowid": 1]), arthur)
            XCTAssertEqual(try Person.fetchOne(db, id: 10), barbara)
            XCTAssertNil(try Person.fetchOne(db, id: 99))
            XCTAssertEqual(try Person.find(db, id: 1), arthur)
            let both = try Person.fetchAll(db, keys: [["rowid": 1], ["rowid": 10], ["rowid": nil]])
            XCTAssertEqual(both.sorted { $0.id! < $1.id! }, [arthur, barbara])
            XCTAssertEqual(try Person.fetchAll(db, ids: [10]), [barbara])
            XCTAssertEqual(try Person.filter(key: 1).fetchOne(db), arthur)
        }
    }

    func testCodableRecordWithRowIDProperty() throws {
        try makeQueue().write { db in
            var item = Item(rowid: nil, name: "Arthur", age: 41)
            try item.insert(db)
            XCTAssertEqual(item.rowid, 1)
            var explicit = Item(rowid: 20, name: "Barbara", age: nil)
            try explicit.insert(db)
            XCTAssertEqual(try Item.fetchOne(db, key: 20), explicit)
            explicit.age = 30
            try explicit.update(db)
            try explicit.save(db)
            XCTAssertEqual(try Item.fetchAll(db), [item, explicit])
            var replaced = Item(rowid: 1, name: "Arthur II", age: nil)
            try replaced.upsert(db)
            XCTAssertEqual(try Item.fetchOne(db, key: 1), replaced)
            XCTAssertTrue(try replaced.delete(db))
            XCTAssertEqual(try Item.fetchAll(db), [explicit])
        }
    }
}
