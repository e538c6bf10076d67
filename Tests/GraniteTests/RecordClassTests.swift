import Granite
import GraniteTestSupport
import XCTest

private typealias Player = RecordClassFixtures.Player
private typealias ProPlayer = RecordClassFixtures.ProPlayer
private typealias PartialPlayer = RecordClassFixtures.PartialPlayer
private typealias Measure = RecordClassFixtures.Measure
private typealias Unencodable = RecordClassFixtures.Unencodable

final class RecordClassTests: XCTestCase {
    // MARK: - Table

    func testTableAndSelection() throws {
        let dbQueue = try RecordClassFixtures.makeDatabase()
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
        let dbQueue = try RecordClassFixtures.makeDatabase()
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
        let dbQueue = try RecordClassFixtures.makeDatabase()
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
        let dbQueue = try RecordClassFixtures.makeDatabase()
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
        let dbQueue = try RecordClassFixtures.makeDatabase()
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
        let dbQueue = try RecordClassFixtures.makeDatabase()
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
        let dbQueue = try RecordClassFixtures.makeDatabase()
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
}
