import Granite
import XCTest

private final class CallbackLog: @unchecked Sendable {
    var events: [String] = []
}

/// Logs every persistence callback.
private struct Player: MutablePersistableRecord {
    let log: CallbackLog
    var id: Int64?
    var name: String
    func encode(to container: inout PersistenceContainer) {
        container["id"] = id
        container["name"] = name
    }
    mutating func willInsert(_ db: Database) throws {
        log.events.append("willInsert")
        name = name.uppercased()
    }
    func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws {
        log.events.append("aroundInsertEnter")
        _ = try insert()
        log.events.append("aroundInsertExit")
    }
    mutating func didInsert(_ inserted: InsertionSuccess) {
        log.events.append("didInsert")
        id = inserted.rowID
    }
    func willUpdate(_ db: Database, columns: Set<String>) throws {
        log.events.append("willUpdate \(columns.sorted())")
    }
    func aroundUpdate(_ db: Database, columns: Set<String>, update: () throws -> PersistenceSuccess) throws {
        log.events.append("aroundUpdateEnter")
        _ = try update()
        log.events.append("aroundUpdateExit")
    }
    func didUpdate(_ updated: PersistenceSuccess) { log.events.append("didUpdate") }
    func willSave(_ db: Database) throws { log.events.append("willSave") }
    func aroundSave(_ db: Database, save: () throws -> PersistenceSuccess) throws {
        log.events.append("aroundSaveEnter")
        _ = try save()
        log.events.append("aroundSaveExit")
    }
    func didSave(_ saved: PersistenceSuccess) { log.events.append("didSave") }
    func willDelete(_ db: Database) throws { log.events.append("willDelete") }
    func aroundDelete(_ db: Database, delete: () throws -> Bool) throws {
        log.events.append("aroundDeleteEnter")
        _ = try delete()
        log.events.append("aroundDeleteExit")
    }
    func didDelete(deleted: Bool) { log.events.append("didDelete \(deleted)") }
}

/// An `aroundInsert` that forgets to insert.
private struct Forgetful: MutablePersistableRecord {
    static let databaseTableName = "player"
    func encode(to container: inout PersistenceContainer) { container["name"] = "x" }
    func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws {}
}

/// A `willSave` that refuses to save.
private struct Refusing: MutablePersistableRecord {
    static let databaseTableName = "player"
    struct Refused: Error {}
    func encode(to container: inout PersistenceContainer) { container["name"] = "x" }
    func willSave(_ db: Database) throws { throw Refused() }
}

/// The README's validating link.
private struct Link: PersistableRecord {
    struct ValidationError: Error {}
    var id: Int64
    var url: String
    func encode(to container: inout PersistenceContainer) {
        container["id"] = id
        container["url"] = url
    }
    func willSave(_ db: Database) throws {
        if !url.contains("://") { throw ValidationError() }
    }
}

final class PersistenceCallbacksTests: XCTestCase {
    private func makeDatabase() throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        }
        return dbQueue
    }

    func testInsert() throws {
        try makeDatabase().write { db in
            let log = CallbackLog()
            var player = Player(log: log, name: "arthur")
            try player.insert(db)
            XCTAssertEqual(
                log.events,
                [
                    "willSave", "aroundSaveEnter", "willInsert", "aroundInsertEnter", "aroundInsertExit", "didInsert",
                    "aroundSaveExit", "didSave",
                ])
            XCTAssertEqual(player.id, 1)
            XCTAssertEqual(player.name, "ARTHUR", "willInsert modifies the inserted record")
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT name FROM player"), "ARTHUR")
        }
    }

    func testUpdate() throws {
        try makeDatabase().write { db in
            let log = CallbackLog()
            var player = Player(log: log, name: "arthur")
            try player.insert(db)
            log.events = []
            try player.update(db)
            XCTAssertEqual(
                log.events,
                [
                    "willSave", "aroundSaveEnter", "willUpdate [\"id\", \"name\"]", "aroundUpdateEnter",
                    "aroundUpdateExit", "didUpdate", "aroundSaveExit", "didSave",
                ])
            log.events = []
            try player.update(db, columns: ["name"])
            XCTAssertEqual(log.events[2], "willUpdate [\"name\"]")
        }
    }

    func testSave() throws {
        try makeDatabase().write { db in
            let log = CallbackLog()
            var player = Player(log: log, id: 1, name: "arthur")
            try player.save(db)
            XCTAssertEqual(
                log.events,
                [
                    "willSave", "aroundSaveEnter", "willUpdate [\"id\", \"name\"]", "aroundUpdateEnter", "willInsert",
                    "aroundInsertEnter", "aroundInsertExit", "didInsert", "aroundSaveExit", "didSave",
                ])
            log.events = []
            try player.save(db)
            XCTAssertEqual(
                log.events,
                [
                    "willSave", "aroundSaveEnter", "willUpdate [\"id\", \"name\"]", "aroundUpdateEnter",
                    "aroundUpdateExit", "didUpdate", "aroundSaveExit", "didSave",
                ])
            log.events = []
            var other = Player(log: log, name: "barbara")
            try other.save(db)
            XCTAssertEqual(
                log.events,
                [
                    "willSave", "aroundSaveEnter", "willInsert", "aroundInsertEnter", "aroundInsertExit", "didInsert",
                    "aroundSaveExit", "didSave",
                ], "a nil key inserts without trying to update")
        }
    }

    func testUpsert() throws {
        try makeDatabase().write { db in
            let log = CallbackLog()
            var player = Player(log: log, id: 1, name: "arthur")
            try player.upsert(db)
            XCTAssertEqual(
                log.events,
                [
                    "willSave", "aroundSaveEnter", "willInsert", "aroundInsertEnter", "aroundInsertExit", "didInsert",
                    "aroundSaveExit", "didSave",
                ])
        }
    }

    func testDelete() throws {
        try makeDatabase().write { db in
            let log = CallbackLog()
            var player = Player(log: log, name: "arthur")
            try player.insert(db)
            log.events = []
            XCTAssertTrue(try player.delete(db))
            XCTAssertFalse(try player.delete(db))
            XCTAssertEqual(
                log.events,
                [
                    "willDelete", "aroundDeleteEnter", "aroundDeleteExit", "didDelete true",
                    "willDelete", "aroundDeleteEnter", "aroundDeleteExit", "didDelete false",
                ])
        }
    }

    func testFailingUpdateSkipsDidCallbacks() throws {
        try makeDatabase().write { db in
            let log = CallbackLog()
            let player = Player(log: log, id: 42, name: "arthur")
            XCTAssertThrowsError(try player.update(db)) { error in
                guard case RecordError.recordNotFound = error else { return XCTFail("\(error)") }
            }
            XCTAssertEqual(
                log.events, ["willSave", "aroundSaveEnter", "willUpdate [\"id\", \"name\"]", "aroundUpdateEnter"])
        }
    }

    func testMisuseAndErrors() throws {
        try makeDatabase().write { db in
            var forgetful = Forgetful()
            XCTAssertThrowsError(try forgetful.insert(db)) { error in
                XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_MISUSE)
            }
            var refusing = Refusing()
            XCTAssertThrowsError(try refusing.insert(db)) { XCTAssertTrue($0 is Refusing.Refused) }
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM player"), 0)
        }
    }

    func testValidationInWillSave() throws {
        try makeDatabase().write { db in
            try db.execute(sql: "CREATE TABLE link (id INTEGER PRIMARY KEY, url TEXT NOT NULL)")
            let link = Link(id: 1, url: "relative/path")
            XCTAssertThrowsError(try link.insert(db)) { XCTAssertTrue($0 is Link.ValidationError) }
            XCTAssertThrowsError(try link.update(db)) { XCTAssertTrue($0 is Link.ValidationError) }
            XCTAssertThrowsError(try link.save(db)) { XCTAssertTrue($0 is Link.ValidationError) }
            XCTAssertThrowsError(try link.upsert(db)) { XCTAssertTrue($0 is Link.ValidationError) }
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM link"), 0)
            try Link(id: 1, url: "https://example.com").insert(db)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM link"), 1)
        }
    }
}
