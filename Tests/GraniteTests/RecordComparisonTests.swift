import Granite
import GraniteTestSupport
import XCTest

private struct Player: MutablePersistableRecord, Equatable {
    var id: Int64?
    var name: String
    var score: Int
    func encode(to container: inout PersistenceContainer) {
        container["id"] = id
        container["name"] = name
        container["score"] = score
    }
}

/// A different type that encodes only some of the player's columns.
private struct PartialPlayer: MutablePersistableRecord {
    static let databaseTableName = "player"
    var id: Int64
    var name: String
    func encode(to container: inout PersistenceContainer) {
        container["id"] = id
        container["name"] = name
    }
}

final class RecordComparisonTests: XCTestCase {
    func testDatabaseEquals() {
        let a = Player(id: 1, name: "Arthur", score: 100)
        XCTAssertTrue(a.databaseEquals(a))
        XCTAssertFalse(a.databaseEquals(Player(id: 1, name: "Arthur", score: 101)))
        XCTAssertFalse(a.databaseEquals(Player(id: nil, name: "Arthur", score: 100)))
    }

    func testDatabaseChanges() throws {
        let old = Player(id: 1, name: "Arthur", score: 100)
        var new = old
        XCTAssertEqual(try new.databaseChanges(from: old), [:])
        XCTAssertFalse(try new.hasDatabaseChanges(from: old))
        new.score = 200
        new.name = "Barbara"
        XCTAssertEqual(
            try new.databaseChanges(from: old), ["name": "Arthur".databaseValue, "score": 100.databaseValue])
        XCTAssertTrue(try new.hasDatabaseChanges(from: old))
        // Columns missing from the other record compare with NULL.
        let partial = PartialPlayer(id: 1, name: "Arthur")
        XCTAssertEqual(try old.databaseChanges(from: partial), ["score": .null])
        XCTAssertEqual(try partial.databaseChanges(from: old), [:])

        var player = old
        let changes = try player.databaseChanges { $0.score = 1 }
        XCTAssertEqual(changes, ["score": 100.databaseValue])
        XCTAssertEqual(player.score, 1)
    }

    func testUpdateChanges() throws {
        let dbQueue = try DatabaseQueue()
        let recorder = SQLRecorder()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INT NOT NULL)")
            var player = Player(id: 1, name: "Arthur", score: 100)
            try player.insert(db)
            try player.update(db)  // loads the schema before tracing
            recorder.record(db)

            XCTAssertFalse(try player.updateChanges(db) { $0.score = 100 })
            XCTAssertEqual(recorder.sql, [], "no change, no UPDATE")

            XCTAssertTrue(try player.updateChanges(db) { $0.score = 200 })
            XCTAssertEqual(recorder.sql, ["UPDATE \"player\" SET \"score\"=200 WHERE \"id\"=1"])
            XCTAssertEqual(player.score, 200)

            recorder.sql = []
            let old = player
            player.name = "Barbara"
            player.score = 300
            XCTAssertTrue(try player.updateChanges(db, from: old))
            XCTAssertEqual(recorder.sql, ["UPDATE \"player\" SET \"name\"='Barbara', \"score\"=300 WHERE \"id\"=1"])
            XCTAssertFalse(try player.updateChanges(db, from: player))

            recorder.sql = []
            XCTAssertTrue(try player.updateChanges(db, from: PartialPlayer(id: 1, name: "Barbara")))
            XCTAssertEqual(recorder.sql, ["UPDATE \"player\" SET \"score\"=300 WHERE \"id\"=1"])

            var missing = Player(id: 42, name: "Nobody", score: 0)
            XCTAssertThrowsError(try missing.updateChanges(db) { $0.score = 1 }) { error in
                guard case RecordError.recordNotFound = error else { return XCTFail("\(error)") }
            }
        }
    }
}
