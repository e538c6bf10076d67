import Granite
import XCTest

final class SmokeTests: XCTestCase {
    func testBasics() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, score INT)")
            try db.execute(sql: "INSERT INTO player (name, score) VALUES (?, ?)", arguments: ["Arthur", 1000])
        }
        let names = try dbQueue.read { db in try String.fetchAll(db, sql: "SELECT name FROM player") }
        XCTAssertEqual(names, ["Arthur"])
    }
}
