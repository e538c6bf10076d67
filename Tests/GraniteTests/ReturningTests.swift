import Granite
import GraniteTestSupport
import XCTest

private struct Player: MutablePersistableRecord, FetchableRecord, Equatable {
    enum Columns {
        static let score = Column("score")
    }
    var id: Int64?
    var name: String
    var score: Int?
    init(id: Int64? = nil, name: String, score: Int? = nil) {
        self.id = id
        self.name = name
        self.score = score
    }
    init(row: Row) {
        id = row["id"]
        name = row["name"]
        score = row["score"]
    }
    /// The score is left to its default value when nil.
    func encode(to container: inout PersistenceContainer) {
        container["id"] = id
        container["name"] = name
        if let score { container["score"] = score }
    }
    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

/// The README's partial player.
private struct PartialPlayer: PersistableRecord {
    static let databaseTableName = "player"
    typealias Columns = Player.Columns
    var name: String
    func encode(to container: inout PersistenceContainer) {
        container["name"] = name
    }
}

final class ReturningTests: XCTestCase {
    private func makeDatabase() throws -> (DatabaseQueue, SQLRecorder) {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, score INT DEFAULT 1000)")
        }
        let recorder = SQLRecorder()
        recorder.record(dbQueue)
        return (dbQueue, recorder)
    }

    func testInsertAndFetch() throws {
        let (dbQueue, recorder) = try makeDatabase()
        try dbQueue.write { db in
            let player = try Player(name: "Arthur").insertAndFetch(db)
            XCTAssertEqual(
                recorder.sql.last, "INSERT INTO \"player\" (\"id\", \"name\") VALUES (NULL,'Arthur') RETURNING *")
            XCTAssertEqual(player, Player(id: 1, name: "Arthur", score: 1000))

            var barbara = Player(name: "Barbara")
            let score = try barbara.insertAndFetch(db, selection: [Column("score")]) { try Int.fetchOne($0) }
            XCTAssertEqual(
                recorder.sql.last,
                "INSERT INTO \"player\" (\"id\", \"name\") VALUES (NULL,'Barbara') RETURNING \"score\"")
            XCTAssertEqual(score, 1000)
            XCTAssertEqual(barbara.id, 2, "didInsert runs")

            var craig = Player(name: "Craig", score: 5)
            let doubled = try craig.insertAndFetch(db, fetch: { try Int.fetchOne($0) }, select: { [$0.score * 2] })
            XCTAssertEqual(doubled, 10)
            XCTAssertEqual(
                recorder.sql.last,
                "INSERT INTO \"player\" (\"id\", \"name\", \"score\") VALUES (NULL,'Craig',5) RETURNING \"score\" * 2")

            var ignored = Player(id: 1, name: "Arthur")
            let nothing = try ignored.insertAndFetch(db, onConflict: .ignore, selection: [Column("score")]) {
                try Int.fetchOne($0)
            }
            XCTAssertNil(nothing)
            XCTAssertThrowsError(try Player(id: 1, name: "Arthur").insertAndFetch(db, onConflict: .ignore)) { error in
                guard case RecordError.recordNotFound(let table, let key) = error else { return XCTFail("\(error)") }
                XCTAssertEqual(table, "player")
                XCTAssertEqual(key, ["id": 1.databaseValue])
            }
        }
    }

    func testUpdateAndFetch() throws {
        let (dbQueue, recorder) = try makeDatabase()
        try dbQueue.write { db in
            var player = Player(name: "Arthur")
            try player.insert(db)
            player.name = "Barbara"
            let updated = try player.updateAndFetch(db)
            XCTAssertEqual(recorder.sql.last, "UPDATE \"player\" SET \"name\"='Barbara' WHERE \"id\"=1 RETURNING *")
            XCTAssertEqual(updated, Player(id: 1, name: "Barbara", score: 1000))
            let score = try player.updateAndFetch(db, columns: [Column("name")], selection: [Column("score")]) {
                try Int.fetchOne($0)
            }
            XCTAssertEqual(score, 1000)
            let changed = try player.updateChangesAndFetch(db) { $0.score = 7 }
            XCTAssertEqual(recorder.sql.last, "UPDATE \"player\" SET \"score\"=7 WHERE \"id\"=1 RETURNING *")
            XCTAssertEqual(changed?.score, 7)
            let count = recorder.sql.count
            XCTAssertNil(try player.updateChangesAndFetch(db) { $0.score = 7 })
            XCTAssertEqual(recorder.sql.count, count, "no change, no statement")
            XCTAssertThrowsError(try Player(id: 42, name: "Nobody").updateAndFetch(db)) { error in
                guard case RecordError.recordNotFound = error else { return XCTFail("\(error)") }
            }
        }
    }

    func testSaveAndFetch() throws {
        let (dbQueue, recorder) = try makeDatabase()
        try dbQueue.write { db in
            let inserted = try Player(name: "Arthur").saveAndFetch(db)
            XCTAssertEqual(inserted, Player(id: 1, name: "Arthur", score: 1000))
            let updated = try Player(id: 1, name: "Barbara").saveAndFetch(db)
            XCTAssertEqual(recorder.sql.last, "UPDATE \"player\" SET \"name\"='Barbara' WHERE \"id\"=1 RETURNING *")
            XCTAssertEqual(updated, Player(id: 1, name: "Barbara", score: 1000))
            var craig = Player(id: 5, name: "Craig")
            let name = try craig.saveAndFetch(db, selection: [Column("name")]) { try String.fetchOne($0) }
            XCTAssertEqual(name, "Craig")
            XCTAssertEqual(
                recorder.sql.last, "INSERT INTO \"player\" (\"id\", \"name\") VALUES (5,'Craig') RETURNING \"name\"")
        }
    }

    func testReadmePartialPlayer() throws {
        let (dbQueue, recorder) = try makeDatabase()
        try dbQueue.write { db in
            let partialPlayer = PartialPlayer(name: "Alice")
            let player = try partialPlayer.insertAndFetch(db, as: Player.self)
            XCTAssertEqual(recorder.sql.last, "INSERT INTO \"player\" (\"name\") VALUES ('Alice') RETURNING *")
            XCTAssertEqual(player, Player(id: 1, name: "Alice", score: 1000))

            let score = try PartialPlayer(name: "Bob").insertAndFetch(db) { statement in
                try Int.fetchOne(statement)
            } select: {
                [$0.score]
            }
            XCTAssertEqual(recorder.sql.last, "INSERT INTO \"player\" (\"name\") VALUES ('Bob') RETURNING \"score\"")
            XCTAssertEqual(score, 1000)
        }
    }
}
