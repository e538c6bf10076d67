import Foundation
import Granite
import XCTest

private struct Player: EncodableRecord {
    var id: Int64?
    var name: String
    func encode(to container: inout PersistenceContainer) {
        container["id"] = id
        container[Column("name")] = name
    }
}

private struct Failing: EncodableRecord {
    struct Failure: Error {}
    func encode(to container: inout PersistenceContainer) throws { throw Failure() }
}

private struct Custom: EncodableRecord {
    static let key = CodingUserInfoKey(rawValue: "key")!
    static var databaseEncodingUserInfo: [CodingUserInfoKey: Any] { [key: "value"] }
    func encode(to container: inout PersistenceContainer) {}
}

final class PersistenceContainerTests: XCTestCase {
    func testEncodingOrderAndCaseInsensitivity() throws {
        struct Record: EncodableRecord {
            func encode(to container: inout PersistenceContainer) {
                XCTAssertTrue(container.isEmpty)
                container["b"] = 1
                container["a"] = "x"
                container["B"] = 2
                container[Column("c")] = nil as Int?
                XCTAssertEqual(container.count, 3)
                XCTAssertEqual(container["A"]?.databaseValue, "x".databaseValue)
                XCTAssertEqual(container[Column("b")]?.databaseValue, 2.databaseValue)
                XCTAssertEqual(container["c"]?.databaseValue, .null)
                XCTAssertNil(container["missing"])
            }
        }
        let dictionary = try Record().databaseDictionary
        XCTAssertEqual(dictionary, ["b": 2.databaseValue, "a": "x".databaseValue, "c": .null])
    }

    func testContainerIsACollection() throws {
        struct Probe: MutablePersistableRecord {
            static let databaseTableName = "t"
            var container: PersistenceContainer?
            func encode(to container: inout PersistenceContainer) {
                container["name"] = "Arthur"
                container["id"] = 3
            }
            mutating func didInsert(_ inserted: InsertionSuccess) { container = inserted.persistenceContainer }
        }
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)")
            var probe = Probe()
            try probe.insert(db)
            let container = try XCTUnwrap(probe.container)
            XCTAssertEqual(container.map(\.0), ["name", "id"])
            XCTAssertEqual(container.map(\.1), ["Arthur".databaseValue, 3.databaseValue])
            XCTAssertEqual(container[1].0, "id")
        }
    }

    func testDatabaseDictionary() throws {
        XCTAssertEqual(
            try Player(id: 1, name: "Arthur").databaseDictionary,
            ["id": 1.databaseValue, "name": "Arthur".databaseValue])
        XCTAssertEqual(try Player(id: nil, name: "Arthur").databaseDictionary["id"], .null)
        XCTAssertThrowsError(try Failing().databaseDictionary) { XCTAssertTrue($0 is Failing.Failure) }
        XCTAssertFalse(Failing().databaseEquals(Failing()), "records that can't be encoded are never equal")
    }

    func testDefaultJSONEncoder() throws {
        let encoder = Player.databaseJSONEncoder(for: "column")
        let json = try encoder.encode(["b": 1, "a": 2])
        XCTAssertEqual(String(decoding: json, as: UTF8.self), "{\"a\":2,\"b\":1}")
        let date = try encoder.encode([Date(timeIntervalSince1970: 1)])
        XCTAssertEqual(String(decoding: date, as: UTF8.self), "[1000]")
        let data = try encoder.encode([Data([1, 2, 3])])
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "[\"AQID\"]")
        XCTAssertThrowsError(try encoder.encode([Double.nan]))
        XCTAssertTrue(Player.databaseEncodingUserInfo.isEmpty)
        let customEncoder = Custom.databaseJSONEncoder(for: "column")
        XCTAssertEqual(customEncoder.userInfo[Custom.key] as? String, "value")
    }
}
