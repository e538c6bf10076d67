import Granite
import GraniteTestSupport
import XCTest

/// A Record subclass as GRDB's documentation writes them: auto-incremented id stored by `didInsert`.
private class Player: Record {
    var id: Int64?
    var name: String
    var score: Int

    override class var databaseTableName: String { "player" }

    init(id: Int64? = nil, name: String, score: Int) {
        self.id = id
        self.name = name
        self.score = score
        super.init()
    }

    required init(row: Row) throws {
        id = row["id"]
        name = row["name"]
        score = row["score"]
        try super.init(row: row)
    }

    override func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["name"] = name
        container["score"] = score
    }

    override func didInsert(_ inserted: InsertionSuccess) {
        super.didInsert(inserted)
        id = inserted.rowID
    }
}

/// A subclass of a subclass, with one more column, another table, and its own callbacks.
private final class ProPlayer: Player {
    var team: String?
    var log: [String] = []

    override class var databaseTableName: String { "proPlayer" }

    init(name: String, score: Int, team: String?) {
        self.team = team
        super.init(name: name, score: score)
    }

    required init(row: Row) throws {
        team = row["team"]
        try super.init(row: row)
    }

    override func encode(to container: inout PersistenceContainer) throws {
        try super.encode(to: &container)
        container["team"] = team
    }

    override func willInsert(_ db: Database) throws {
        log.append("willInsert")
        try super.willInsert(db)
    }

    override func didInsert(_ inserted: InsertionSuccess) {
        super.didInsert(inserted)
        log.append("didInsert \(id.map(String.init) ?? "nil")")
    }
}

/// Selects two columns only.
private final class PartialPlayer: Record {
    var id: Int64
    var name: String

    override class var databaseTableName: String { "player" }
    override class var databaseSelection: [any SQLSelectable] { [Column("id"), Column("name")] }

    required init(row: Row) throws {
        id = row["id"]
        name = row["name"]
        try super.init(row: row)
    }

    override func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["name"] = name
    }
}

/// Logs every persistence callback, and calls `super` in each.
private final class LoggedPlayer: Player {
    var log: [String] = []

    override func willSave(_ db: Database) throws {
        log.append("willSave")
        try super.willSave(db)
    }
    override func aroundSave(_ db: Database, save: () throws -> PersistenceSuccess) throws {
        log.append("aroundSave enter")
        try super.aroundSave(db, save: save)
        log.append("aroundSave exit")
    }
    override func didSave(_ saved: PersistenceSuccess) {
        super.didSave(saved)
        log.append("didSave")
    }
    override func willInsert(_ db: Database) throws {
        log.append("willInsert")
        try super.willInsert(db)
    }
    override func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws {
        log.append("aroundInsert enter")
        try super.aroundInsert(db, insert: insert)
        log.append("aroundInsert exit")
    }
    override func didInsert(_ inserted: InsertionSuccess) {
        super.didInsert(inserted)
        log.append("didInsert")
    }
    override func willUpdate(_ db: Database, columns: Set<String>) throws {
        log.append("willUpdate \(columns.sorted())")
        try super.willUpdate(db, columns: columns)
    }
    override func aroundUpdate(_ db: Database, columns: Set<String>, update: () throws -> PersistenceSuccess)
        throws
    {
        log.append("aroundUpdate enter")
        try super.aroundUpdate(db, columns: columns, update: update)
        log.append("aroundUpdate exit")
    }
    override func didUpdate(_ updated: PersistenceSuccess) {
        super.didUpdate(updated)
        log.append("didUpdate")
    }
    override func willDelete(_ db: Database) throws {
        log.append("willDelete")
        try super.willDelete(db)
    }
    override func aroundDelete(_ db: Database, delete: () throws -> Bool) throws {
        log.append("aroundDelete enter")
        try super.aroundDelete(db, delete: delete)
        log.append("aroundDelete exit")
    }
    override func didDelete(deleted: Bool) {
        super.didDelete(deleted: deleted)
        log.append("didDelete \(deleted)")
    }
}

/// Inserts without calling `super.aroundInsert`: the insertion happens, but the record does not learn
/// that its values are now in the database.
private final class PlayerForgettingSuper: Player {
    override func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws {
        _ = try insert()
    }
}

/// An `aroundInsert` that never inserts.
private final class PlayerSkippingInsert: Player {
    override func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws {}
}

/// Refuses to save an empty name.
private final class ValidatingPlayer: Player {
    struct EmptyName: Error {}
    override func willSave(_ db: Database) throws {
        try super.willSave(db)
        if name.isEmpty { throw EmptyName() }
    }
}

/// Replaces conflicting rows on insertion, ignores conflicts on update.
private final class ReplacingPlayer: Player {
    override class var persistenceConflictPolicy: PersistenceConflictPolicy {
        PersistenceConflictPolicy(insert: .replace, update: .ignore)
    }
}

/// A property of integer type on a REAL column.
private final class Measure: Record {
    var value: Int
    override class var databaseTableName: String { "measure" }
    required init(row: Row) throws {
        value = row["value"]
        try super.init(row: row)
    }
    override func encode(to container: inout PersistenceContainer) throws {
        container["value"] = value
    }
}

/// A record that can't be encoded.
private final class Unencodable: Record {
    struct EncodingFailure: Error {}
    override class var databaseTableName: String { "player" }
    override func encode(to container: inout PersistenceContainer) throws { throw EncodingFailure() }
}

/// A table without primary key: the record stores the hidden rowid, selected with `.rowID`.
private final class Note: Record, Hashable, Identifiable {
    var id: Int64?
    var text: String

    override class var databaseTableName: String { "note" }
    override static var databaseSelection: [any SQLSelectable] { [.allColumns, .rowID] }

    init(text: String) {
        self.text = text
        super.init()
    }

    required init(row: Row) throws {
        id = row[.rowID]
        text = row["text"]
        try super.init(row: row)
    }

    override func encode(to container: inout PersistenceContainer) throws {
        container[.rowID] = id
        container["text"] = text
    }

    override func didInsert(_ inserted: InsertionSuccess) {
        super.didInsert(inserted)
        id = inserted.rowID
    }

    static func == (lhs: Note, rhs: Note) -> Bool { lhs.id == rhs.id && lhs.text == rhs.text }
    func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(text)
    }
}

/// The same table, as a Codable struct.
private struct PlayerStruct: Codable, FetchableRecord, PersistableRecord, Equatable {
    static let databaseTableName = "player"
    var id: Int64
    var name: String
    var score: Int
}

final class RecordClassTests: XCTestCase {
    private func makeDatabase() throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, score INTEGER NOT NULL);
                    CREATE TABLE proPlayer (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL,
                        team TEXT);
                    CREATE TABLE measure (value REAL);
                    """)
        }
        return dbQueue
    }

    // MARK: - Table

    func testTableAndSelection() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            XCTAssertEqual(Player.databaseTableName, "player")
            XCTAssertEqual(ProPlayer.databaseTableName, "proPlayer")
            XCTAssertEqual(Player.persistenceConflictPolicy.conflictResolutionForInsert, .abort)
            XCTAssertEqual(Player.persistenceConflictPolicy.conflictResolutionForUpdate, .abort)
            XCTAssertEqual(try Player.all().makePreparedRequest(db).statement.sql, "SELECT * FROM \"player\"")
            XCTAssertEqual(
                try PartialPlayer.all().makePreparedRequest(db).statement.sql,
                "SELECT \"id\", \"name\" FROM \"player\"")
            XCTAssertEqual(try Player.numberOfSelectedColumns(db), 3)
            XCTAssertEqual(try PartialPlayer.numberOfSelectedColumns(db), 2)
        }
    }

    // MARK: - Persistence

    func testInsertFetchUpdateSaveDeleteExists() throws {
        let dbQueue = try makeDatabase()
        let recorder = SQLRecorder()
        recorder.record(dbQueue)
        try dbQueue.write { db in
            let player = Player(name: "Arthur", score: 10)
            XCTAssertFalse(try player.exists(db), "a nil primary key matches no row")
            try player.insert(db)
            XCTAssertEqual(
                recorder.last, "INSERT INTO \"player\" (\"id\", \"name\", \"score\") VALUES (NULL,'Arthur',10)")
            XCTAssertEqual(player.id, 1, "didInsert stored the rowid")
            XCTAssertTrue(try player.exists(db))

            let fetched = try XCTUnwrap(Player.fetchOne(db, key: 1))
            XCTAssertEqual(fetched.name, "Arthur")
            XCTAssertEqual(fetched.score, 10)

            fetched.score = 20
            try fetched.update(db)
            XCTAssertEqual(recorder.last, "UPDATE \"player\" SET \"name\"='Arthur', \"score\"=20 WHERE \"id\"=1")

            let barbara = Player(name: "Barbara", score: 5)
            try barbara.save(db)
            XCTAssertEqual(
                recorder.last, "INSERT INTO \"player\" (\"id\", \"name\", \"score\") VALUES (NULL,'Barbara',5)")
            XCTAssertEqual(barbara.id, 2)
            barbara.score = 6
            try barbara.save(db)
            XCTAssertEqual(recorder.last, "UPDATE \"player\" SET \"name\"='Barbara', \"score\"=6 WHERE \"id\"=2")

            XCTAssertEqual(try Player.order(Column("id")).fetchAll(db).map(\.score), [20, 6])
            XCTAssertEqual(try Player.filter(Column("name") == "Barbara").fetchOne(db)?.id, 2)
            XCTAssertEqual(try Player.fetchCount(db), 2)

            XCTAssertTrue(try barbara.delete(db))
            XCTAssertEqual(recorder.last, "DELETE FROM \"player\" WHERE \"id\"=2")
            XCTAssertFalse(try barbara.delete(db), "no row left to delete")
            XCTAssertFalse(try barbara.exists(db))

            let ghost = Player(id: 42, name: "Ghost", score: 0)
            XCTAssertThrowsError(try ghost.update(db)) { error in
                guard case RecordError.recordNotFound(databaseTableName: "player", key: ["id": 42]) = error else {
                    return XCTFail("unexpected error \(error)")
                }
            }
        }
    }

    func testInsertAndFetchReturnsAFreshRecordWithoutChanges() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            let player = Player(name: "Arthur", score: 10)
            let inserted = try player.insertAndFetch(db)
            XCTAssertEqual(inserted.id, 1)
            XCTAssertEqual(inserted.name, "Arthur")
            XCTAssertFalse(inserted.hasDatabaseChanges)
            XCTAssertFalse(player.hasDatabaseChanges)
        }
    }

    // MARK: - Changes tracking

    func testChangesOfNewRecords() throws {
        let player = Player(name: "Arthur", score: 10)
        XCTAssertTrue(player.hasDatabaseChanges, "a new record may differ from the database")
        let changes = try player.databaseChanges
        XCTAssertEqual(Set(changes.keys), ["id", "name", "score"])
        XCTAssertTrue(changes.values.allSatisfy { $0 == nil }, "no former values are known")

        let fromMemoryRow = try Player(row: ["id": 1, "name": "Arthur", "score": 10])
        XCTAssertTrue(fromMemoryRow.hasDatabaseChanges, "a row built in memory does not come from the database")
        XCTAssertEqual(try fromMemoryRow.databaseChanges.count, 3)
    }

    func testChangesAfterFetch() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            try Player(name: "Arthur", score: 10).insert(db)

            let full = try XCTUnwrap(Player.fetchOne(db, sql: "SELECT * FROM player"))
            XCTAssertFalse(full.hasDatabaseChanges)
            XCTAssertEqual(try full.databaseChanges.count, 0)

            let wider = try XCTUnwrap(Player.fetchOne(db, sql: "SELECT *, 1 AS extra FROM player"))
            XCTAssertFalse(wider.hasDatabaseChanges, "extra columns do not count")

            let copiedRow = try XCTUnwrap(Row.fetchOne(db, sql: "SELECT * FROM player"))
            XCTAssertFalse(try Player(row: copiedRow).hasDatabaseChanges, "a fetched row keeps its origin")

            let reordered = try XCTUnwrap(
                Player.fetchOne(db, sql: "SELECT name, 10 AS score, NULL AS other, 1 AS ID FROM player"))
            XCTAssertFalse(reordered.hasDatabaseChanges, "values are matched by case-insensitive column name")

            // The team column is not fetched: its former value is unknown (nil).
            try ProPlayer(name: "Barbara", score: 20, team: "Reds").insert(db)
            let partial = try XCTUnwrap(ProPlayer.fetchOne(db, sql: "SELECT id, name, score FROM proPlayer"))
            XCTAssertNil(partial.team)
            XCTAssertTrue(partial.hasDatabaseChanges)
            let changes = try partial.databaseChanges
            XCTAssertEqual(Array(changes.keys), ["team"])
            XCTAssertEqual(changes["team"], .some(nil), "the fetched row had no team")

            try db.execute(sql: "INSERT INTO measure VALUES (1)")
            let measure = try XCTUnwrap(Measure.fetchOne(db, sql: "SELECT * FROM measure"))
            XCTAssertFalse(measure.hasDatabaseChanges, "the integer 1 equals the real 1.0")
        }
    }

    func testCursorRecordsKeepTheirOwnReferenceRow() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            try Player(name: "Arthur", score: 10).insert(db)
            try Player(name: "Barbara", score: 20).insert(db)
            let cursor = try Player.fetchCursor(db, sql: "SELECT * FROM player ORDER BY id")
            let first = try XCTUnwrap(cursor.next())
            let second = try XCTUnwrap(cursor.next())
            XCTAssertNil(try cursor.next())
            XCTAssertFalse(first.hasDatabaseChanges, "the cursor's row moved on, the record kept its values")
            XCTAssertFalse(second.hasDatabaseChanges)
            first.score = 20
            XCTAssertEqual(try first.databaseChanges, ["score": .some(10)])
        }
    }

    func testChangesAfterModificationsAndWrites() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            let player = Player(name: "Arthur", score: 10)
            try player.insert(db)
            XCTAssertFalse(player.hasDatabaseChanges, "insertion stores the values, rowid included")
            XCTAssertEqual(try player.databaseChanges.count, 0)

            player.score = 10
            XCTAssertFalse(player.hasDatabaseChanges, "values are compared, not property assignments")

            player.score = 11
            player.name = "Barbara"
            XCTAssertTrue(player.hasDatabaseChanges)
            XCTAssertEqual(try player.databaseChanges, ["score": .some(10), "name": .some("Arthur")])

            try player.update(db)
            XCTAssertFalse(player.hasDatabaseChanges, "update stores the values")

            player.score = 12
            try player.save(db)
            XCTAssertFalse(player.hasDatabaseChanges, "save stores the values")

            player.id = 7
            XCTAssertEqual(try player.databaseChanges, ["id": .some(1)], "a changed primary key is a change")
            player.id = 1

            try player.delete(db)
            XCTAssertTrue(player.hasDatabaseChanges, "a deleted record no longer matches a row")
            XCTAssertEqual(Set(try player.databaseChanges.keys), ["id", "name", "score"])
            XCTAssertTrue(try player.databaseChanges.values.allSatisfy { $0 == nil })

            try player.insert(db)
            XCTAssertFalse(player.hasDatabaseChanges)

            player.score = 13
            try player.update(db, columns: ["name"])
            XCTAssertFalse(player.hasDatabaseChanges, "GRDB remembers all encoded values after any update")
        }
    }

    func testUnencodableRecordHasChanges() throws {
        let record = Unencodable()
        XCTAssertTrue(record.hasDatabaseChanges)
        XCTAssertThrowsError(try record.databaseChanges) { error in
            XCTAssertTrue(error is Unencodable.EncodingFailure)
        }
    }

    func testUpdateChanges() throws {
        let dbQueue = try makeDatabase()
        let recorder = SQLRecorder()
        recorder.record(dbQueue)
        try dbQueue.write { db in
            let player = Player(name: "Arthur", score: 10)
            XCTAssertThrowsError(try player.updateChanges(db)) { error in
                guard case RecordError.recordNotFound(databaseTableName: "player", key: ["id": .null]) = error
                else { return XCTFail("unexpected error \(error)") }
            }

            try player.insert(db)
            let changesCount = db.totalChangesCount
            XCTAssertFalse(try player.updateChanges(db), "nothing to update")
            player.score = 10
            XCTAssertFalse(try player.updateChanges(db), "same value: nothing to update")
            XCTAssertEqual(db.totalChangesCount, changesCount)

            player.score = 11
            XCTAssertTrue(try player.updateChanges(db))
            XCTAssertEqual(recorder.last, "UPDATE \"player\" SET \"score\"=11 WHERE \"id\"=1")
            XCTAssertFalse(player.hasDatabaseChanges)

            player.name = "Barbara"
            player.score = 12
            XCTAssertTrue(try player.updateChanges(db))
            XCTAssertEqual(db.totalChangesCount, changesCount + 2)
            let stored = try XCTUnwrap(Player.fetchOne(db, key: 1))
            XCTAssertEqual(stored.name, "Barbara")
            XCTAssertEqual(stored.score, 12)

            let fetched = try XCTUnwrap(Player.fetchOne(db, key: 1))
            fetched.name = "Craig"
            XCTAssertTrue(try fetched.updateChanges(db))
            XCTAssertEqual(recorder.last, "UPDATE \"player\" SET \"name\"='Craig' WHERE \"id\"=1")
        }
    }

    // MARK: - Callbacks

    func testCallbacksCallingSuper() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            let player = LoggedPlayer(name: "Arthur", score: 10)
            try player.insert(db)
            XCTAssertEqual(
                player.log,
                [
                    "willSave", "aroundSave enter", "willInsert", "aroundInsert enter", "aroundInsert exit",
                    "didInsert", "aroundSave exit", "didSave",
                ])
            XCTAssertEqual(player.id, 1)
            XCTAssertFalse(player.hasDatabaseChanges)

            player.log = []
            player.score = 20
            try player.updateChanges(db)
            XCTAssertEqual(
                player.log,
                [
                    "willSave", "aroundSave enter", "willUpdate [\"score\"]", "aroundUpdate enter",
                    "aroundUpdate exit", "didUpdate", "aroundSave exit", "didSave",
                ])
            XCTAssertFalse(player.hasDatabaseChanges)

            player.log = []
            try player.save(db)
            XCTAssertEqual(
                player.log,
                [
                    "willSave", "aroundSave enter", "willUpdate [\"id\", \"name\", \"score\"]", "aroundUpdate enter",
                    "aroundUpdate exit", "didUpdate", "aroundSave exit", "didSave",
                ])

            player.log = []
            XCTAssertTrue(try player.delete(db))
            XCTAssertEqual(player.log, ["willDelete", "aroundDelete enter", "aroundDelete exit", "didDelete true"])
            XCTAssertTrue(player.hasDatabaseChanges)

            player.log = []
            try player.save(db)
            XCTAssertEqual(
                player.log,
                [
                    "willSave", "aroundSave enter", "willUpdate [\"id\", \"name\", \"score\"]", "aroundUpdate enter",
                    "willInsert", "aroundInsert enter", "aroundInsert exit", "didInsert", "aroundSave exit",
                    "didSave",
                ], "save tries to update the deleted row, then inserts it")
            XCTAssertFalse(player.hasDatabaseChanges)
            XCTAssertEqual(try Player.fetchCount(db), 1)
        }
    }

    func testChangesTrackingNeedsSuperAroundInsert() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            let player = PlayerForgettingSuper(name: "Arthur", score: 10)
            try player.insert(db)
            XCTAssertEqual(player.id, 1)
            XCTAssertEqual(try Player.fetchCount(db), 1)
            XCTAssertTrue(player.hasDatabaseChanges, "only Record.aroundInsert remembers the inserted values")
        }
    }

    func testAroundCallbackThatDoesNotPersist() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            let player = PlayerSkippingInsert(name: "Arthur", score: 10)
            XCTAssertThrowsError(try player.insert(db)) { error in
                guard let error = error as? DatabaseError else { return XCTFail("unexpected error \(error)") }
                XCTAssertEqual(error.resultCode, .SQLITE_MISUSE)
            }
            XCTAssertEqual(try Player.fetchCount(db), 0)
        }
    }

    func testFailedWritesKeepTheChanges() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            let player = ValidatingPlayer(name: "", score: 10)
            XCTAssertThrowsError(try player.insert(db)) { XCTAssertTrue($0 is ValidatingPlayer.EmptyName) }
            XCTAssertTrue(player.hasDatabaseChanges)
            XCTAssertEqual(try Player.fetchCount(db), 0)

            player.name = "Arthur"
            try player.insert(db)
            player.name = ""
            XCTAssertThrowsError(try player.updateChanges(db)) { XCTAssertTrue($0 is ValidatingPlayer.EmptyName) }
            XCTAssertEqual(try player.databaseChanges, ["name": .some("Arthur")], "the refused change is kept")

            let ghost = Player(id: 42, name: "Ghost", score: 0)
            XCTAssertThrowsError(try ghost.update(db))
            XCTAssertTrue(ghost.hasDatabaseChanges, "a failed update does not remember values")
        }
    }

    // MARK: - Conflict policy

    func testConflictPolicy() throws {
        let dbQueue = try makeDatabase()
        let recorder = SQLRecorder()
        recorder.record(dbQueue)
        try dbQueue.write { db in
            XCTAssertEqual(ReplacingPlayer.persistenceConflictPolicy.conflictResolutionForInsert, .replace)
            try Player(name: "Arthur", score: 10).insert(db)
            let replacing = ReplacingPlayer(name: "Arthur", score: 20)
            try replacing.insert(db)
            XCTAssertEqual(
                recorder.last,
                "INSERT OR REPLACE INTO \"player\" (\"id\", \"name\", \"score\") VALUES (NULL,'Arthur',20)")
            XCTAssertEqual(try Player.fetchAll(db).map(\.score), [20])

            replacing.score = 30
            try replacing.updateChanges(db)
            XCTAssertEqual(recorder.last, "UPDATE OR IGNORE \"player\" SET \"score\"=30 WHERE \"id\"=2")

            let plain = Player(name: "Arthur", score: 40)
            XCTAssertThrowsError(try plain.insert(db)) { error in
                XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_CONSTRAINT)
            }
        }
    }

    // MARK: - Subclass of a subclass

    func testSubclassOfSubclass() throws {
        let dbQueue = try makeDatabase()
        let recorder = SQLRecorder()
        recorder.record(dbQueue)
        try dbQueue.write { db in
            let pro = ProPlayer(name: "Arthur", score: 10, team: "Reds")
            try pro.insert(db)
            XCTAssertEqual(
                recorder.last,
                "INSERT INTO \"proPlayer\" (\"id\", \"name\", \"score\", \"team\") VALUES (NULL,'Arthur',10,'Reds')")
            XCTAssertEqual(pro.log, ["willInsert", "didInsert 1"], "both levels' didInsert ran")
            XCTAssertFalse(pro.hasDatabaseChanges)
            XCTAssertEqual(try Player.fetchCount(db), 0)

            let fetched = try XCTUnwrap(ProPlayer.fetchOne(db, key: 1))
            XCTAssertEqual(fetched.team, "Reds")
            XCTAssertEqual(fetched.name, "Arthur")
            XCTAssertFalse(fetched.hasDatabaseChanges)
            fetched.team = nil
            XCTAssertEqual(try fetched.databaseChanges, ["team": .some("Reds")])
            XCTAssertTrue(try fetched.updateChanges(db))
            XCTAssertEqual(recorder.last, "UPDATE \"proPlayer\" SET \"team\"=NULL WHERE \"id\"=1")

            // Through a base class reference, calls still reach the subclass and its table.
            let base: Player = fetched
            base.score = 11
            XCTAssertEqual(try base.databaseChanges, ["score": .some(10)])
            XCTAssertTrue(try base.updateChanges(db))
            XCTAssertEqual(recorder.last, "UPDATE \"proPlayer\" SET \"score\"=11 WHERE \"id\"=1")
            let other: Player = ProPlayer(name: "Barbara", score: 20, team: nil)
            try other.insert(db)
            XCTAssertEqual(
                recorder.last,
                "INSERT INTO \"proPlayer\" (\"id\", \"name\", \"score\", \"team\") VALUES (NULL,'Barbara',20,NULL)")
            XCTAssertTrue(try other.delete(db))
            XCTAssertEqual(recorder.last, "DELETE FROM \"proPlayer\" WHERE \"id\"=2")
        }
    }

    // MARK: - Hidden rowid

    func testHiddenRowID() throws {
        let dbQueue = try makeDatabase()
        let recorder = SQLRecorder()
        recorder.record(dbQueue)
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE note (text TEXT NOT NULL)")
            let note = Note(text: "Hello")
            try note.insert(db)
            XCTAssertEqual(recorder.last, "INSERT INTO \"note\" (\"rowid\", \"text\") VALUES (NULL,'Hello')")
            XCTAssertEqual(note.id, 1)
            // As in GRDB, only an INTEGER PRIMARY KEY column receives the inserted rowid in the remembered
            // values: the hidden rowid stays NULL there, and differs from the id set by didInsert.
            XCTAssertEqual(try note.databaseChanges, ["rowid": .some(.null)])

            let fetched = try XCTUnwrap(Note.fetchOne(db, id: 1))
            XCTAssertEqual(fetched, note)
            XCTAssertFalse(fetched.hasDatabaseChanges, "the selected rowid is remembered")
            XCTAssertEqual(try Note.fetchSet(db), [note])

            fetched.text = "Bye"
            XCTAssertTrue(try fetched.updateChanges(db))
            XCTAssertEqual(recorder.last, "UPDATE \"note\" SET \"text\"='Bye' WHERE \"rowid\"=1")
            XCTAssertTrue(try fetched.delete(db))
            XCTAssertEqual(recorder.last, "DELETE FROM \"note\" WHERE \"rowid\"=1")
            XCTAssertTrue(fetched.hasDatabaseChanges)
        }
    }

    // MARK: - Records and Codable records

    func testRecordClassAndCodableStructShareATable() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            let player = Player(name: "Arthur", score: 10)
            try player.insert(db)
            let decoded = try XCTUnwrap(PlayerStruct.fetchOne(db, key: 1))
            XCTAssertEqual(decoded, PlayerStruct(id: 1, name: "Arthur", score: 10))

            var codable = decoded
            try codable.updateChanges(db) { $0.score = 15 }
            try PlayerStruct(id: 2, name: "Barbara", score: 20).insert(db)

            let players = try Player.order(Column("id")).fetchAll(db)
            XCTAssertEqual(players.map(\.score), [15, 20])
            XCTAssertTrue(players.allSatisfy { !$0.hasDatabaseChanges })

            XCTAssertFalse(player.hasDatabaseChanges, "the record does not see changes made by others")
            XCTAssertTrue(try player.hasDatabaseChanges(from: codable))
            XCTAssertEqual(try player.databaseChanges(from: codable), ["score": 15])
            XCTAssertTrue(try player.updateChanges(db, from: codable))
            XCTAssertEqual(try PlayerStruct.fetchOne(db, key: 1)?.score, 10)
        }
    }
}
