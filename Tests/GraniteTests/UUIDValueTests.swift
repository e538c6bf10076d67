import Foundation
import Granite
import XCTest

final class UUIDValueTests: XCTestCase {
    private let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    private let bytes: [UInt8] = [
        0xE6, 0x21, 0xE1, 0xF8, 0xC3, 0x6C, 0x49, 0x5A, 0x93, 0xFC, 0x0C, 0x24, 0x7A, 0x3E, 0x6E, 0x5F,
    ]

    func testStoredAsSixteenByteBlob() throws {
        XCTAssertEqual(uuid.databaseValue, Data(bytes).databaseValue)
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            try db.execute(sql: "CREATE TABLE t (id)")
            try db.execute(sql: "INSERT INTO t (id) VALUES (?)", arguments: [uuid])
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT typeof(id) FROM t"), "blob")
            XCTAssertEqual(try Data.fetchOne(db, sql: "SELECT id FROM t"), Data(bytes))
            XCTAssertEqual(try UUID.fetchOne(db, sql: "SELECT id FROM t"), uuid)
            let row = try XCTUnwrap(try Row.fetchOne(db, sql: "SELECT id FROM t"))
            XCTAssertEqual(row["id"] as UUID, uuid)
            XCTAssertEqual(UUID.fromDatabaseValue(row["id"] as DatabaseValue), uuid)
        }
    }

    func testDecodesTextInEitherCase() throws {
        let texts = [
            "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "e621e1f8-c36c-495a-93fc-0c247a3e6e5f",
            "e621E1F8-c36C-495a-93Fc-0c247A3E6e5f",
        ]
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            for text in texts {
                XCTAssertEqual(UUID.fromDatabaseValue(text.databaseValue), uuid, text)
                XCTAssertEqual(try UUID.fetchOne(db, sql: "SELECT ?", arguments: [text]), uuid, text)
                let row = try XCTUnwrap(try Row.fetchOne(db, sql: "SELECT ? AS id", arguments: [text]))
                XCTAssertEqual(try row.decode(UUID.self, forColumn: "id"), uuid, text)
            }
        }
    }

    func testRejectsOtherValues() throws {
        let invalid: [DatabaseValue] = [
            Data(bytes.prefix(15)).databaseValue, Data(bytes + [0]).databaseValue, Data().databaseValue,
            "E621E1F8C36C495A93FC0C247A3E6E5F".databaseValue, "E621E1F8-C36C-495A-93FC-0C247A3E6E5".databaseValue,
            "not a uuid".databaseValue, "".databaseValue, 1.databaseValue, 1.5.databaseValue,
        ]
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            for value in invalid {
                XCTAssertNil(UUID.fromDatabaseValue(value), "\(value)")
                XCTAssertThrowsError(try UUID.fetchOne(db, sql: "SELECT ?", arguments: [value]), "\(value)") { error in
                    XCTAssertTrue(error is RowDecodingError)
                }
                let row = try XCTUnwrap(try Row.fetchOne(db, sql: "SELECT ? AS id", arguments: [value]))
                XCTAssertThrowsError(try row.decode(UUID.self, forColumn: "id"), "\(value)")
            }
            XCTAssertNil(try UUID.fetchOne(db, sql: "SELECT NULL"))
        }
    }

    func testRandomUUIDsRoundTrip() throws {
        let uuids = (0..<20).map { _ in UUID() }
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            try db.execute(sql: "CREATE TABLE t (id BLOB PRIMARY KEY)")
            for uuid in uuids { try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [uuid]) }
            XCTAssertEqual(Set(try UUID.fetchAll(db, sql: "SELECT id FROM t")), Set(uuids))
            XCTAssertEqual(try UUID.fetchOne(db, sql: "SELECT id FROM t WHERE id = ?", arguments: [uuids[7]]), uuids[7])
        }
    }

    func testNSUUID() throws {
        let nsUUID = NSUUID(uuidString: uuid.uuidString)!
        XCTAssertEqual(nsUUID.databaseValue, Data(bytes).databaseValue)
        XCTAssertEqual(NSUUID.fromDatabaseValue(Data(bytes).databaseValue)?.uuidString, uuid.uuidString)
        XCTAssertEqual(
            NSUUID.fromDatabaseValue(uuid.uuidString.lowercased().databaseValue)?.uuidString, uuid.uuidString)
        XCTAssertNil(NSUUID.fromDatabaseValue("foo".databaseValue))
        XCTAssertNil(NSUUID.fromDatabaseValue(Data([1, 2, 3]).databaseValue))
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            XCTAssertEqual(try NSUUID.fetchOne(db, sql: "SELECT ?", arguments: [nsUUID])?.uuidString, uuid.uuidString)
        }
    }
}
