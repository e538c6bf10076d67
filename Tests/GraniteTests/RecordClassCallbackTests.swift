import Granite
import GraniteTestSupport
import XCTest

private typealias Player = RecordClassFixtures.Player
private typealias ProPlayer = RecordClassFixtures.ProPlayer
private typealias LoggedPlayer = RecordClassFixtures.LoggedPlayer
private typealias PlayerForgettingSuper = RecordClassFixtures.PlayerForgettingSuper
private typealias PlayerSkippingInsert = RecordClassFixtures.PlayerSkippingInsert
private typealias ValidatingPlayer = RecordClassFixtures.ValidatingPlayer
private typealias ReplacingPlayer = RecordClassFixtures.ReplacingPlayer
private typealias Note = RecordClassFixtures.Note
private typealias PlayerStruct = RecordClassFixtures.PlayerStruct

final class RecordClassCallbackTests: XCTestCase {
    // MARK: - Callbacks

    func testCallbacksCallingSuper() throws {
        let dbQueue = try RecordClassFixtures.makeDatabase()
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
        let dbQueue = try RecordClassFixtures.makeDatabase()
        try dbQueue.write { db in
            let player = PlayerForgettingSuper(name: "Arthur", score: 10)
            try player.insert(db)
            XCTAssertEqual(player.id, 1)
            XCTAssertEqual(try Player.fetchCount(db), 1)
            XCTAssertTrue(player.hasDatabaseChanges, "only Record.aroundInsert remembers the inserted values")
        }
    }

    func testAroundCallbackThatDoesNotPersist() throws {
        let dbQueue = try RecordClassFixtures.makeDatabase()
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
        let dbQueue = try RecordClassFixtures.makeDatabase()
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
        let dbQueue = try RecordClassFixtures.makeDatabase()
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
        let dbQueue = try RecordClassFixtures.makeDatabase()
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
        let dbQueue = try RecordClassFixtures.makeDatabase()
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
        let dbQueue = try RecordClassFixtures.makeDatabase()
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
