import Granite
import GraniteTestSupport
import XCTest

private struct Player: MutablePersistableRecord, FetchableRecord, Equatable {
    enum Columns {
        static let score = Column("score")
    }
    var id: Int64?
    var name: String
    var score: Int
    init(id: Int64?, name: String, score: Int) {
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
    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

/// A table keyed by a unique word, with a hidden rowid.
private struct Vocabulary: PersistableRecord, FetchableRecord {
    var word: String
    var count: Int
    init(word: String, count: Int) {
        self.word = word
        self.count = count
    }
    init(row: Row) {
        word = row["word"]
        count = row["count"]
    }
    func encode(to container: inout PersistenceContainer) {
        container["word"] = word
        container["count"] = count
    }
}

/// The README's vocabulary, whose `count` and `isTainted` columns have defaults.
private struct Word: PersistableRecord, FetchableRecord {
    static let databaseTableName = "word"
    var word: String
    var kind: String
    var isTainted: Bool
    var count: Int = 1
    init(word: String, kind: String, isTainted: Bool) {
        self.word = word
        self.kind = kind
        self.isTainted = isTainted
    }
    init(row: Row) {
        word = row["word"]
        kind = row["kind"]
        isTainted = row["isTainted"]
        count = row["count"]
    }
    func encode(to container: inout PersistenceContainer) {
        container["word"] = word
        container["kind"] = kind
        container["isTainted"] = isTainted
    }
}

final class UpsertTests: XCTestCase {
    private func makeDatabase() throws -> (DatabaseQueue, SQLRecorder) {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INT NOT NULL);
                    CREATE TABLE vocabulary (word TEXT NOT NULL UNIQUE, count INT NOT NULL);
                    CREATE TABLE word (word TEXT NOT NULL PRIMARY KEY, kind TEXT NOT NULL,
                                       isTainted BOOLEAN DEFAULT 0, count INT DEFAULT 1);
                    """)
        }
        let recorder = SQLRecorder()
        recorder.record(dbQueue)
        return (dbQueue, recorder)
    }

    func testUpsert() throws {
        let (dbQueue, recorder) = try makeDatabase()
        try dbQueue.write { db in
            var player = Player(id: nil, name: "Arthur", score: 100)
            try player.upsert(db)
            XCTAssertEqual(
                recorder.sql.last,
                "INSERT INTO \"player\" (\"id\", \"name\", \"score\") VALUES (NULL,'Arthur',100) "
                    + "ON CONFLICT DO UPDATE SET \"name\" = \"excluded\".\"name\", \"score\" = \"excluded\".\"score\" "
                    + "RETURNING \"rowid\"")
            XCTAssertEqual(player.id, 1)
            var update = Player(id: 1, name: "Barbara", score: 200)
            try update.upsert(db)
            XCTAssertEqual(update.id, 1)
            XCTAssertEqual(try Player.fetchAll(db), [Player(id: 1, name: "Barbara", score: 200)])
        }
    }

    func testUpsertAndFetch() throws {
        let (dbQueue, recorder) = try makeDatabase()
        try dbQueue.write { db in
            var player = Player(id: 1, name: "Arthur", score: 100)
            let inserted = try player.upsertAndFetch(db)
            XCTAssertEqual(inserted, Player(id: 1, name: "Arthur", score: 100))
            XCTAssertTrue(recorder.sql.last!.hasSuffix("RETURNING *, \"rowid\""), recorder.sql.last!)
            var again = Player(id: 1, name: "Arthur", score: 50)
            let upserted = try again.upsertAndFetch(db) { excluded in
                [Column("score") += excluded["score"]]
            }
            XCTAssertEqual(
                recorder.sql.last,
                "INSERT INTO \"player\" (\"id\", \"name\", \"score\") VALUES (1,'Arthur',50) "
                    + "ON CONFLICT DO UPDATE SET \"score\" = \"score\" + \"excluded\".\"score\", "
                    + "\"name\" = \"excluded\".\"name\" RETURNING *, \"rowid\"")
            XCTAssertEqual(upserted.score, 150)
        }
    }

    func testConflictTargetAndStrategy() throws {
        let (dbQueue, recorder) = try makeDatabase()
        try dbQueue.write { db in
            try Vocabulary(word: "hello", count: 1).insert(db)
            let word = Vocabulary(word: "hello", count: 1)
            let fetched = try word.upsertAndFetch(
                db, onConflict: ["word"],
                doUpdate: { excluded in
                    [Column("count") += excluded["count"]]
                })
            XCTAssertEqual(fetched.count, 2)
            XCTAssertEqual(
                recorder.sql.last,
                "INSERT INTO \"vocabulary\" (\"word\", \"count\") VALUES ('hello',1) "
                    + "ON CONFLICT(\"word\") DO UPDATE SET \"count\" = \"count\" + \"excluded\".\"count\" "
                    + "RETURNING *, \"rowid\"")
            // Nothing to update: the row is still returned.
            var zed = Player(id: nil, name: "Zed", score: 1)
            try zed.insert(db)
            var unchanged = Player(id: zed.id, name: "Other", score: 10)
            let fetchedPlayer = try unchanged.upsertAndFetch(db, updating: .noColumnUnlessSpecified)
            XCTAssertEqual(fetchedPlayer, zed)
            XCTAssertEqual(
                recorder.sql.last,
                "INSERT INTO \"player\" (\"id\", \"name\", \"score\") VALUES (1,'Other',10) "
                    + "ON CONFLICT DO UPDATE SET \"id\" = \"id\" RETURNING *, \"rowid\"")
            try Vocabulary(word: "world", count: 3).upsert(db)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT SUM(count) FROM vocabulary"), 5)
        }
    }

    func testReadmeVocabulary() throws {
        let (dbQueue, recorder) = try makeDatabase()
        try dbQueue.write { db in
            try db.execute(sql: "INSERT INTO word VALUES ('jovial', 'noun', 1, 3)")
            let vocabulary = Word(word: "jovial", kind: "adjective", isTainted: false)
            let upserted = try vocabulary.upsertAndFetch(
                db, onConflict: ["word"],
                doUpdate: { _ in
                    [
                        Column("count") += 1,
                        Column("isTainted").noOverwrite,
                    ]
                })
            XCTAssertEqual(
                recorder.sql.last,
                "INSERT INTO \"word\" (\"word\", \"kind\", \"isTainted\") VALUES ('jovial','adjective',0) "
                    + "ON CONFLICT(\"word\") DO UPDATE SET \"count\" = \"count\" + 1, \"kind\" = \"excluded\".\"kind\" "
                    + "RETURNING *, \"rowid\"")
            XCTAssertEqual(upserted.count, 4)
            XCTAssertEqual(upserted.kind, "adjective")
            XCTAssertTrue(upserted.isTainted)
            let fresh = try Word(word: "ebullient", kind: "adjective", isTainted: false).upsertAndFetch(db)
            XCTAssertEqual(fresh.count, 1)
        }
    }

    func testExcludedDynamicMember() throws {
        let (dbQueue, recorder) = try makeDatabase()
        try dbQueue.write { db in
            var player = Player(id: 1, name: "Arthur", score: 10)
            try player.insert(db)
            var other = Player(id: 1, name: "Arthur", score: 5)
            let upserted = try other.upsertAndFetch(db) { excluded in
                [Player.Columns.score.set(to: Player.Columns.score * excluded.score)]
            }
            XCTAssertEqual(upserted.score, 50)
            XCTAssertTrue(
                recorder.sql.last!.contains("DO UPDATE SET \"score\" = \"score\" * \"excluded\".\"score\""),
                recorder.sql.last!)
        }
    }
}
