import Granite
import GraniteTestSupport
import XCTest

private struct Player: MutablePersistableRecord, FetchableRecord, Identifiable, Hashable {
    enum Columns {
        static let id = Column("id")
        static let name = Column("name")
        static let score = Column("score")
    }
    var id: Int64
    var name: String
    var score: Int
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
}

/// Batch updates use the record's update conflict policy.
private struct IgnoringPlayer: MutablePersistableRecord {
    static let databaseTableName = "player"
    static let persistenceConflictPolicy = PersistenceConflictPolicy(update: .ignore)
    func encode(to container: inout PersistenceContainer) {}
}

final class BatchReturningTests: XCTestCase {
    private func makeDatabase() throws -> (DatabaseQueue, SQLRecorder) {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, score INT NOT NULL);
                    INSERT INTO player VALUES (1, 'Arthur', 10), (2, 'Barbara', 20), (3, 'Craig', 30);
                    """)
        }
        let recorder = SQLRecorder()
        recorder.record(dbQueue)
        return (dbQueue, recorder)
    }

    func testDeleteAndFetch() throws {
        let (dbQueue, recorder) = try makeDatabase()
        try dbQueue.write { db in
            let deleted = try Player.filter { $0.score < 15 }.deleteAndFetchAll(db)
            XCTAssertEqual(recorder.sql.last, "DELETE FROM \"player\" WHERE \"score\" < 15 RETURNING *")
            XCTAssertEqual(deleted.map(\.name), ["Arthur"])
            let statement = try Player.filter(id: 2).deleteAndFetchStatement(db) { [$0.name] }
            XCTAssertEqual(try String.fetchSet(statement), ["Barbara"])
            XCTAssertEqual(try Player.all().deleteAndFetchIds(db), [3])
            XCTAssertEqual(try Player.fetchCount(db), 0)
            XCTAssertEqual(try Player.all().deleteAndFetchSet(db), [])
        }
    }

    func testUpdateAndFetch() throws {
        let (dbQueue, recorder) = try makeDatabase()
        try dbQueue.write { db in
            let players = try Player.order(\.id).updateAndFetchAll(db) { [$0.score += 10] }
            XCTAssertEqual(recorder.sql.last, "UPDATE \"player\" SET \"score\" = \"score\" + 10 RETURNING *")
            XCTAssertEqual(Set(players.map(\.score)), [20, 30, 40])
            let statement = try Player.filter(id: 1).updateAndFetchStatement(db) {
                [$0.score += 10]
            } select: {
                [$0.score]
            }
            XCTAssertEqual(try Int.fetchAll(statement), [30])
            XCTAssertEqual(
                recorder.sql.last,
                "UPDATE \"player\" SET \"score\" = \"score\" + 10 WHERE \"id\" = 1 RETURNING \"score\"")
            XCTAssertEqual(
                try Player.filter(id: 3).updateAndFetchSet(db, [Column("name").set(to: "Z")]).first?.name, "Z")
            XCTAssertThrowsError(try Player.all().updateAndFetchStatement(db, [], selection: [Column("id")])) { error in
                XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_MISUSE)
            }
        }
    }

    func testUpdateAllUsesConflictPolicy() throws {
        let (dbQueue, recorder) = try makeDatabase()
        try dbQueue.write { db in
            try IgnoringPlayer.updateAll(db, Column("name").set(to: "Arthur"))
            XCTAssertEqual(recorder.sql.last, "UPDATE OR IGNORE \"player\" SET \"name\" = 'Arthur'")
            try Player.updateAll(db, Column("score").set(to: 0))
            XCTAssertEqual(recorder.sql.last, "UPDATE \"player\" SET \"score\" = 0")
        }
    }
}
