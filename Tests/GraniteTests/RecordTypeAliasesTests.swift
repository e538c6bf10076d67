import Granite
import XCTest

private struct Player: FetchableRecord {
    var name: String
    init(row: Row) throws { name = row["name"] }
}

/// Keeps the container of its insertion.
private struct InsertedPlayer: MutablePersistableRecord {
    var name: String
    var insertedContainer: PersistenceContainer?
    func encode(to container: inout PersistenceContainer) {
        container["id"] = nil
        container["name"] = name
    }
    mutating func didInsert(_ inserted: InsertionSuccess) { insertedContainer = inserted.persistenceContainer }
}

/// Requires metatypes that can cross isolation domains.
private func typeName<T: GRDBSendableMetatype>(_ type: T.Type) -> String { String(describing: type) }

final class RecordTypeAliasesTests: XCTestCase {
    func testPersistenceContainerIndex() throws {
        let dbQueue = try DatabaseQueue()
        let (index, column, value) = try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE insertedPlayer (id INTEGER PRIMARY KEY, name TEXT)")
            var player = InsertedPlayer(name: "Arthur")
            try player.insert(db)
            let container = try XCTUnwrap(player.insertedContainer)
            let index: PersistenceContainer.Index = container.index(after: container.startIndex)
            return (index, container[index].0, container[index].1)
        }
        XCTAssertEqual(index, 1)
        XCTAssertEqual(column, "name")
        XCTAssertEqual(value, "Arthur".databaseValue)
    }

    func testRecordCursorElement() throws {
        let dbQueue = try DatabaseQueue()
        let names = try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player (name TEXT); INSERT INTO player VALUES ('Arthur'), ('Barbara')")
            let cursor = try Player.fetchCursor(db, sql: "SELECT name FROM player ORDER BY name")
            var names: [String] = []
            while let player: RecordCursor<Player>.Element = try cursor.next() { names.append(player.name) }
            return names
        }
        XCTAssertEqual(names, ["Arthur", "Barbara"])
    }

    func testSendableMetatype() {
        XCTAssertEqual(typeName(Int.self), "Int")
    }
}
