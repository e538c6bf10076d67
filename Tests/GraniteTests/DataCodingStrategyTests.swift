import Foundation
import Granite
import XCTest

/// A record whose data strategies are switched by the tests.
private struct Blob: Codable, FetchableRecord, PersistableRecord {
    var data: Data
    var optionalData: Data?

    nonisolated(unsafe) static var encoding: DatabaseDataEncodingStrategy = .deferredToData
    nonisolated(unsafe) static var decoding: DatabaseDataDecodingStrategy = .deferredToData

    static func databaseDataEncodingStrategy(for column: String) -> DatabaseDataEncodingStrategy { encoding }
    static func databaseDataDecodingStrategy(for column: String) -> DatabaseDataDecodingStrategy { decoding }
}

final class DataCodingStrategyTests: XCTestCase {
    override func tearDown() {
        Blob.encoding = .deferredToData
        Blob.decoding = .deferredToData
    }

    private func decode(_ sqlValue: String) throws -> Blob? {
        try DatabaseQueue().read { db in
            try Blob.fetchOne(db, sql: "SELECT \(sqlValue) AS data, NULL AS optionalData")
        }
    }

    func testEncodeDeferredToDataIsBlob() throws {
        XCTAssertEqual(try Blob(data: Data([0, 1, 2])).databaseDictionary["data"], Data([0, 1, 2]).databaseValue)
        XCTAssertEqual(try Blob(data: Data()).databaseDictionary["optionalData"], .null)
    }

    func testEncodeText() throws {
        Blob.encoding = .text
        XCTAssertEqual(try Blob(data: Data("héllo".utf8)).databaseDictionary["data"], "héllo".databaseValue)
        XCTAssertThrowsError(try Blob(data: Data([0xFF, 0xFE])).databaseDictionary) { error in
            XCTAssertTrue(error is EncodingError, "\(error)")
        }
    }

    func testEncodeCustom() throws {
        Blob.encoding = .custom { $0.count }
        XCTAssertEqual(try Blob(data: Data([1, 2, 3])).databaseDictionary["data"], 3.databaseValue)
        Blob.encoding = .custom { _ in nil }
        XCTAssertEqual(try Blob(data: Data([1])).databaseDictionary["data"], .null)
    }

    func testDecodeDeferredToData() throws {
        XCTAssertEqual(try decode("x'000102'")?.data, Data([0, 1, 2]))
        XCTAssertEqual(try decode("'abc'")?.data, Data("abc".utf8))
        XCTAssertNil(try decode("x'00'")?.optionalData)
        XCTAssertThrowsError(try decode("NULL")) { error in
            XCTAssertTrue(error is RowDecodingError, "\(error)")
        }
    }

    func testDecodeCustom() throws {
        Blob.decoding = .custom { dbValue in Int.fromDatabaseValue(dbValue).map { Data(repeating: 7, count: $0) } }
        XCTAssertEqual(try decode("3")?.data, Data([7, 7, 7]))
        XCTAssertThrowsError(try decode("'three'")) { error in
            XCTAssertTrue("\(error)".contains("could not decode Data"), "\(error)")
        }
    }

    func testTextRoundTrip() throws {
        Blob.encoding = .text
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE blob (data, optionalData)")
            try Blob(data: Data("text".utf8), optionalData: Data("more".utf8)).insert(db)
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT typeof(data) FROM blob"), "text")
            let blob = try XCTUnwrap(Blob.fetchOne(db))
            XCTAssertEqual(blob.data, Data("text".utf8))
            XCTAssertEqual(blob.optionalData, Data("more".utf8))
        }
    }

    func testDataStrategyAppliesToDataPrimaryKey() throws {
        struct Token: Codable, FetchableRecord, PersistableRecord, Identifiable {
            var id: Data
            static func databaseDataEncodingStrategy(for column: String) -> DatabaseDataEncodingStrategy { .text }
        }
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE token (id PRIMARY KEY)")
            try Token(id: Data("abc".utf8)).insert(db)
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT typeof(id) FROM token"), "text")
            XCTAssertNotNil(try Token.fetchOne(db, id: Data("abc".utf8)))
            XCTAssertEqual(try Token.filter(ids: [Data("abc".utf8)]).fetchCount(db), 1)
            XCTAssertThrowsError(try Token.fetchOne(db, id: Data([0xFF])))
        }
    }
}
