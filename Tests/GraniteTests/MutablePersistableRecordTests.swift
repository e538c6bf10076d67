import Foundation
import Granite
import GraniteTestSupport
import XCTest

/// Rowid alias primary key, id assigned by `didInsert`.
private struct Player: MutablePersistableRecord, FetchableRecord, Equatable {
    var id: Int64?
    var name: String
    var score: Int
    init(id: Int64? = nil, name: String, score: Int) {
        self.id = id
        self.name = name
        self.score = score
    }
    init(row: Row) {
        id = row["id"]
        name = row["name"]
        score = row["score"]
    }
    func encode(to container: inout PersistenceContainer) {
        container["id"] = id
        container["name"] = name
        container["score"] = score
    }
    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

/// Rowid alias primary key, but `didInsert` is not implemented: the id stays nil.
private struct Anonymous: MutablePersistableRecord {
    static let databaseTableName = "player"
    var id: Int64?
    var name: String
    func encode(to container: inout PersistenceContainer) {
        container["id"] = id
        container["name"] = name
        container["score"] = 0
    }
}

/// Single text primary key.
private struct Country: MutablePersistableRecord, FetchableRecord {
    var isoCode: String
    var name: String
    init(isoCode: String, name: String) {
        self.isoCode = isoCode
        self.name = name
    }
    init(row: Row) {
        isoCode = row["isoCode"]
        name = row["name"]
    }
    func encode(to container: inout PersistenceContainer) {
        container["isoCode"] = isoCode
        container["name"] = name
    }
}

/// Composite primary key.
private struct Citizenship: MutablePersistableRecord {
    var personId: Int64
    var countryCode: String
    var since: Int
    func encode(to container: inout PersistenceContainer) {
        container["personId"] = personId
        container["countryCode"] = countryCode
        container["since"] = since
    }
}

/// No declared primary key: the hidden rowid.
private struct Note: MutablePersistableRecord {
    var rowid: Int64?
    var text: String
    func encode(to container: inout PersistenceContainer) {
        container["text"] = text
    }
    mutating func didInsert(_ inserted: InsertionSuccess) {
        rowid = inserted.rowID
    }
}

/// Hidden rowid exposed to persistence: it is encoded (once known), so updates and deletes can target it.
private struct Item: MutablePersistableRecord {
    var rowid: Int64?
    var text: String
    func encode(to container: inout PersistenceContainer) {
        if let rowid { container["rowid"] = rowid }
        container["text"] = text
    }
    mutating func didInsert(_ inserted: InsertionSuccess) {
        rowid = inserted.rowID
    }
}

/// Inserts replace conflicting rows.
private struct ReplacingPlayer: MutablePersistableRecord {
    static let databaseTableName = "player"
    static let persistenceConflictPolicy = PersistenceConflictPolicy(insert: .replace, update: .ignore)
    var id: Int64
    var name: String
    func encode(to container: inout PersistenceContainer) {
        container["id"] = id
        container["name"] = name
        container["score"] = 0
    }
}

/// Encodes nothing.
private struct Empty: MutablePersistableRecord {
    static let databaseTableName = "player"
    func encode(to container: inout PersistenceContainer) {}
}

final class MutablePersistableRecordTests: XCTestCase {
    private func makeDatabase() throws -> (DatabaseQueue, SQLRecorder) {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, score INT NOT NULL);
                    CREATE TABLE country (isoCode TEXT PRIMARY KEY, name TEXT NOT NULL);
                    CREATE TABLE citizenship (personId INT, countryCode TEXT, since INT NOT NULL,
                                              PRIMARY KEY (personId, countryCode));
                    CREATE TABLE note (text TEXT NOT NULL);
                    CREATE TABLE item (text TEXT NOT NULL);
                    """)
        }
        let recorder = SQLRecorder()
        recorder.record(dbQueue)
        return (dbQueue, recorder)
    }

    func testInsertRowIDPrimaryKey() throws {
        let (dbQueue, recorder) = try makeDatabase()
        try dbQueue.write { db in
            var player = Player(name: "Arthur", score: 100)
            try player.insert(db)
            XCTAssertEqual(
                recorder.last, "INSERT INTO \"player\" (\"id\", \"name\", \"score\") VALUES (NULL,'Arthur',100)")
            XCTAssertEqual(player.id, 1)
            let barbara = try Player(name: "Barbara", score: 200).inserted(db)
            XCTAssertEqual(barbara.id, 2)
            var craig = Player(id: 10, name: "Craig", score: 0)
            try craig.insert(db)
            XCTAssertEqual(craig.id, 10)
            XCTAssertEqual(
                try Player.fetchAll(db, sql: "SELECT * FROM player ORDER BY id").map(\.name),
                ["Arthur", "Barbara", "Craig"])
        }
    }

    func testInsertWithoutDidInsertKeepsNilId() throws {
        let (dbQueue, _) = try makeDatabase()
        try dbQueue.write { db in
            var player = Anonymous(id: nil, name: "Arthur")
            try player.insert(db)
            XCTAssertNil(player.id)
            XCTAssertEqual(db.lastInsertedRowID, 1)
        }
    }

    func testInsertionSuccess() throws {
        struct Probe: MutablePersistableRecord {
            static let databaseTableName = "player"
            var inserted: InsertionSuccess?
            func encode(to container: inout PersistenceContainer) {
                container["name"] = "Arthur"
                container["score"] = 1
            }
            mutating func didInsert(_ inserted: InsertionSuccess) { self.inserted = inserted }
        }
        let (dbQueue, _) = try makeDatabase()
        try dbQueue.write { db in
            var probe = Probe()
            try probe.insert(db)
            let inserted = try XCTUnwrap(probe.inserted)
            XCTAssertEqual(inserted.rowID, 1)
            XCTAssertEqual(inserted.rowIDColumn, "id")
            XCTAssertEqual(inserted.persistenceContainer["id"]?.databaseValue, 1.databaseValue)
            XCTAssertEqual(inserted.persistenceContainer["name"]?.databaseValue, "Arthur".databaseValue)
        }
    }

    func testUpdate() throws {
        let (dbQueue, recorder) = try makeDatabase()
        try dbQueue.write { db in
            var player = Player(name: "Arthur", score: 100)
            try player.insert(db)
            player.score = 200
            try player.update(db)
            XCTAssertEqual(recorder.last, "UPDATE \"player\" SET \"name\"='Arthur', \"score\"=200 WHERE \"id\"=1")
            player.name = "Barbara"
            try player.update(db, columns: ["score"])
            XCTAssertEqual(recorder.last, "UPDATE \"player\" SET \"score\"=200 WHERE \"id\"=1")
            try player.update(db, columns: [Column("NAME")])
            XCTAssertEqual(recorder.last, "UPDATE \"player\" SET \"name\"='Barbara' WHERE \"id\"=1")
            try player.update(db, columns: ["id"])
            XCTAssertEqual(recorder.last, "UPDATE \"player\" SET \"id\"=1 WHERE \"id\"=1", "the key updates itself")
            try player.update(db, columns: [String]())
            XCTAssertEqual(recorder.last, "UPDATE \"player\" SET \"id\"=1 WHERE \"id\"=1")
            XCTAssertEqual(try Player.fetchOne(db, key: 1), player)
        }
    }

    func testUpdateMissingRowThrowsRecordNotFound() throws {
        let (dbQueue, recorder) = try makeDatabase()
        try dbQueue.write { db in
            let player = Player(id: 42, name: "Arthur", score: 0)
            XCTAssertThrowsError(try player.update(db)) { error in
                guard case RecordError.recordNotFound(let table, let key) = error else {
                    return XCTFail("unexpected \(error)")
                }
                XCTAssertEqual(table, "player")
                XCTAssertEqual(key, ["id": 42.databaseValue])
            }
            let count = recorder.sql.count
            XCTAssertThrowsError(try Player(name: "Arthur", score: 0).update(db)) { error in
                guard case RecordError.recordNotFound(_, let key) = error else { return XCTFail("unexpected \(error)") }
                XCTAssertEqual(key, ["id": .null])
            }
            XCTAssertEqual(recorder.sql.count, count, "a nil primary key does not hit the database")
        }
    }

    func testSave() throws {
        let (dbQueue, recorder) = try makeDatabase()
        try dbQueue.write { db in
            var player = Player(name: "Arthur", score: 100)
            try player.save(db)
            XCTAssertEqual(
                recorder.last, "INSERT INTO \"player\" (\"id\", \"name\", \"score\") VALUES (NULL,'Arthur',100)")
            XCTAssertEqual(player.id, 1)
            player.score = 50
            try player.save(db)
            XCTAssertEqual(recorder.last, "UPDATE \"player\" SET \"name\"='Arthur', \"score\"=50 WHERE \"id\"=1")
            // A key that matches no row: update, then insert.
            recorder.sql = []
            let barbara = try Player(id: 7, name: "Barbara", score: 0).saved(db)
            XCTAssertEqual(
                recorder.sql,
                [
                    "UPDATE \"player\" SET \"name\"='Barbara', \"score\"=0 WHERE \"id\"=7",
                    "INSERT INTO \"player\" (\"id\", \"name\", \"score\") VALUES (7,'Barbara',0)",
                ])
            XCTAssertEqual(barbara.id, 7)
            XCTAssertEqual(try Player.fetchCount(db), 2)
        }
    }

    func testDeleteAndExists() throws {
        let (dbQueue, recorder) = try makeDatabase()
        try dbQueue.write { db in
            var player = Player(name: "Arthur", score: 100)
            XCTAssertFalse(try player.exists(db))
            XCTAssertFalse(try player.delete(db))
            try player.insert(db)
            XCTAssertTrue(try player.exists(db))
            XCTAssertEqual(recorder.last, "SELECT EXISTS (SELECT 1 FROM \"player\" WHERE \"id\"=1)")
            XCTAssertTrue(try player.delete(db))
            XCTAssertEqual(recorder.last, "DELETE FROM \"player\" WHERE \"id\"=1")
            XCTAssertFalse(try player.delete(db))
            XCTAssertFalse(try player.exists(db))
        }
    }

    func testSingleColumnPrimaryKey() throws {
        let (dbQueue, recorder) = try makeDatabase()
        try dbQueue.write { db in
            var country = Country(isoCode: "FR", name: "France")
            try country.insert(db)
            XCTAssertEqual(recorder.last, "INSERT INTO \"country\" (\"isoCode\", \"name\") VALUES ('FR','France')")
            country.name = "France Métropolitaine"
            try country.update(db)
            XCTAssertEqual(
                recorder.last, "UPDATE \"country\" SET \"name\"='France Métropolitaine' WHERE \"isoCode\"='FR'")
            XCTAssertTrue(try country.exists(db))
            var germany = Country(isoCode: "DE", name: "Germany")
            try germany.save(db)
            XCTAssertEqual(recorder.last, "INSERT INTO \"country\" (\"isoCode\", \"name\") VALUES ('DE','Germany')")
            germany.name = "Deutschland"
            try germany.save(db)
            XCTAssertEqual(recorder.last, "UPDATE \"country\" SET \"name\"='Deutschland' WHERE \"isoCode\"='DE'")
            XCTAssertTrue(try country.delete(db))
            XCTAssertEqual(recorder.last, "DELETE FROM \"country\" WHERE \"isoCode\"='FR'")
            XCTAssertEqual(try Country.fetchAll(db).map(\.name), ["Deutschland"])
        }
    }

    func testCompositePrimaryKey() throws {
        let (dbQueue, recorder) = try makeDatabase()
        try dbQueue.write { db in
            var citizenship = Citizenship(personId: 1, countryCode: "FR", since: 1990)
            try citizenship.insert(db)
            citizenship.since = 1991
            try citizenship.update(db)
            XCTAssertEqual(
                recorder.last,
                "UPDATE \"citizenship\" SET \"since\"=1991 WHERE \"personId\"=1 AND \"countryCode\"='FR'")
            XCTAssertTrue(try citizenship.exists(db))
            XCTAssertEqual(
                recorder.last,
                "SELECT EXISTS (SELECT 1 FROM \"citizenship\" WHERE \"personId\"=1 AND \"countryCode\"='FR')")
            var other = Citizenship(personId: 1, countryCode: "DE", since: 2000)
            try other.save(db)
            XCTAssertEqual(
                recorder.last,
                "INSERT INTO \"citizenship\" (\"personId\", \"countryCode\", \"since\") VALUES (1,'DE',2000)")
            XCTAssertTrue(try citizenship.delete(db))
            XCTAssertEqual(recorder.last, "DELETE FROM \"citizenship\" WHERE \"personId\"=1 AND \"countryCode\"='FR'")
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT since FROM citizenship"), 2000)
        }
    }

    func testHiddenRowID() throws {
        let (dbQueue, recorder) = try makeDatabase()
        try dbQueue.write { db in
            // The rowid is not encoded: update/delete/exists can't identify a row.
            var note = Note(text: "first")
            try note.insert(db)
            XCTAssertEqual(recorder.last, "INSERT INTO \"note\" (\"text\") VALUES ('first')")
            XCTAssertEqual(note.rowid, 1)
            XCTAssertFalse(try note.exists(db))
            XCTAssertFalse(try note.delete(db))
            XCTAssertThrowsError(try note.update(db)) { error in
                guard case RecordError.recordNotFound(let table, let key) = error else { return XCTFail("\(error)") }
                XCTAssertEqual(table, "note")
                XCTAssertEqual(key, ["rowid": .null])
            }
            // Save always inserts.
            try note.save(db)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM note"), 2)

            // The rowid is encoded.
            var item = Item(text: "first")
            try item.insert(db)
            XCTAssertEqual(recorder.last, "INSERT INTO \"item\" (\"text\") VALUES ('first')")
            XCTAssertEqual(item.rowid, 1)
            item.text = "changed"
            try item.update(db)
            XCTAssertEqual(recorder.last, "UPDATE \"item\" SET \"text\"='changed' WHERE \"rowid\"=1")
            XCTAssertTrue(try item.exists(db))
            XCTAssertEqual(recorder.last, "SELECT EXISTS (SELECT 1 FROM \"item\" WHERE \"rowid\"=1)")
            XCTAssertTrue(try item.delete(db))
            XCTAssertEqual(recorder.last, "DELETE FROM \"item\" WHERE \"rowid\"=1")
        }
    }

    func testConflictResolution() throws {
        let (dbQueue, recorder) = try makeDatabase()
        try dbQueue.write { db in
            var player = Player(name: "Arthur", score: 100)
            try player.insert(db)
            var duplicate = Player(name: "Arthur", score: 0)
            XCTAssertThrowsError(try duplicate.insert(db)) { error in
                XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_CONSTRAINT)
            }
            try duplicate.insert(db, onConflict: .ignore)
            XCTAssertEqual(
                recorder.last, "INSERT OR IGNORE INTO \"player\" (\"id\", \"name\", \"score\") VALUES (NULL,'Arthur',0)"
            )
            XCTAssertEqual(try Player.fetchCount(db), 1)

            var replacing = ReplacingPlayer(id: 1, name: "Barbara")
            try replacing.insert(db)
            XCTAssertEqual(
                recorder.last, "INSERT OR REPLACE INTO \"player\" (\"id\", \"name\", \"score\") VALUES (1,'Barbara',0)")
            XCTAssertEqual(try Player.fetchOne(db, key: 1)?.name, "Barbara")
            try replacing.update(db)
            XCTAssertEqual(
                recorder.last, "UPDATE OR IGNORE \"player\" SET \"name\"='Barbara', \"score\"=0 WHERE \"id\"=1")
            try replacing.update(db, onConflict: .abort)
            XCTAssertEqual(recorder.last, "UPDATE \"player\" SET \"name\"='Barbara', \"score\"=0 WHERE \"id\"=1")
        }
    }

    func testErrors() throws {
        let (dbQueue, _) = try makeDatabase()
        try dbQueue.write { db in
            struct Missing: MutablePersistableRecord {
                func encode(to container: inout PersistenceContainer) { container["a"] = 1 }
            }
            var missing = Missing()
            XCTAssertThrowsError(try missing.insert(db)) { XCTAssertTrue($0 is DatabaseError, "\($0)") }
            struct BadColumn: MutablePersistableRecord {
                static let databaseTableName = "country"
                func encode(to container: inout PersistenceContainer) {
                    container["isoCode"] = "FR"
                    container["nope"] = 1
                }
            }
            var bad = BadColumn()
            XCTAssertThrowsError(try bad.insert(db)) { error in
                XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_ERROR)
            }
            var nullName = Country(isoCode: "FR", name: "France")
            try nullName.insert(db)
            var empty = Empty()
            XCTAssertThrowsError(try empty.insert(db)) { error in
                XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_MISUSE)
            }
        }
    }

    func testRecordNotFoundOfRecord() throws {
        let (dbQueue, _) = try makeDatabase()
        try dbQueue.read { db in
            let error = Country(isoCode: "FR", name: "France").recordNotFound(db)
            guard case RecordError.recordNotFound(let table, let key) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(table, "country")
            XCTAssertEqual(key, ["isoCode": "FR".databaseValue])
        }
    }

    func testUpdateConstraintViolation() throws {
        let (dbQueue, recorder) = try makeDatabase()
        try dbQueue.write { db in
            var arthur = Player(name: "Arthur", score: 1)
            try arthur.insert(db)
            var barbara = Player(name: "Barbara", score: 2)
            try barbara.insert(db)
            barbara.name = "Arthur"
            XCTAssertThrowsError(try barbara.update(db)) { error in
                XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_CONSTRAINT)
            }
            try barbara.update(db, onConflict: .replace)
            XCTAssertEqual(
                recorder.last, "UPDATE OR REPLACE \"player\" SET \"name\"='Arthur', \"score\"=2 WHERE \"id\"=2")
            XCTAssertFalse(try arthur.exists(db), "the conflicting row was replaced")
            XCTAssertEqual(try Player.fetchAll(db), [barbara])
        }
    }
}
