import Foundation
import Granite
import XCTest

// A statement's rows keep how a Decodable record read the first of them (RecordDecodingPlan): these records
// read their columns in ways a plan made from the first row must not get wrong on the following rows.

private enum Mood: String, Codable, DatabaseValueConvertible {
    case calm, busy
}

private struct Visit: Codable, FetchableRecord, PersistableRecord, Equatable {
    var id: Int64
    var name: String
    var mood: Mood
    var at: Date
    var token: UUID
    var payload: Data
    var bonus: Int?
    var tags: [String]
}

/// Decodes its keys in an order that depends on the row, and one key twice, as two types.
private struct Shuffled: Decodable, FetchableRecord {
    var id: Int64
    var text: String
    var number: Int
    var numberText: String?

    enum CodingKeys: String, CodingKey { case id, text, number }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int64.self, forKey: .id)
        if id.isMultiple(of: 2) {
            number = try container.decode(Int.self, forKey: .number)
            text = try container.decode(String.self, forKey: .text)
            numberText = nil
        } else {
            text = try container.decode(String.self, forKey: .text)
            numberText = try container.decodeIfPresent(String.self, forKey: .number)
            number = try container.decode(Int.self, forKey: .number)
        }
    }
}

/// Reads the table through its own key names (snake case columns).
private struct SnakeVisit: Decodable, FetchableRecord {
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    var id: Int64
    var visitorName: String
}

/// Optional values of every primitive type, read with `decodeIfPresent`, and one read from a column the rows
/// do not have.
private struct Optionals: Decodable, FetchableRecord, Equatable {
    var id: Int64?
    var flag: Bool?
    var small: Int8?
    var count: Int?
    var big: UInt64?
    var ratio: Double?
    var weight: Float?
    var label: String?
    var absent: Int?
}

/// Reads `name` only: another record decoded from the same rows.
private struct NameOnly: Decodable, FetchableRecord {
    var name: String
}

final class RecordDecodingPlanTests: XCTestCase {
    private func makeVisits(_ count: Int) -> [Visit] {
        (0..<count).map { i in
            Visit(
                id: Int64(i + 1), name: "visitor \(i)", mood: i.isMultiple(of: 3) ? .busy : .calm,
                at: Date(timeIntervalSince1970: Double(1_700_000_000 + i * 61)),
                token: UUID(uuid: (UInt8(i & 0xFF), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, UInt8(i >> 8))),
                payload: Data([UInt8(i & 0xFF), 0, 0xFF]), bonus: i.isMultiple(of: 4) ? nil : i * 10,
                tags: (0..<(i % 3)).map { "tag\($0)" })
        }
    }

    private func makeQueue() throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE visit (id INTEGER PRIMARY KEY, name TEXT NOT NULL, mood TEXT NOT NULL,
                      at DATETIME NOT NULL, token BLOB NOT NULL, payload BLOB NOT NULL, bonus INTEGER,
                      tags TEXT NOT NULL)
                    """)
        }
        return dbQueue
    }

    func testEveryRowOfAStatementDecodesItsOwnValues() throws {
        let dbQueue = try makeQueue()
        let visits = makeVisits(300)
        try dbQueue.write { db in for visit in visits { try visit.insert(db) } }
        try dbQueue.read { db in
            XCTAssertEqual(try Visit.order(Column("id")).fetchAll(db), visits)
            var iterated: [Visit] = []
            let cursor = try Visit.order(Column("id")).fetchCursor(db)
            while let visit = try cursor.next() { iterated.append(visit) }
            XCTAssertEqual(iterated, visits)
            // The same statement again (cached), with other rows.
            for visit in visits.prefix(20) {
                XCTAssertEqual(try Visit.fetchOne(db, key: visit.id), visit)
            }
            // Columns in another order than the keys: each key still finds its column.
            let reordered = try Visit.fetchAll(
                db, sql: "SELECT tags, bonus, payload, token, at, mood, name, id FROM visit ORDER BY id")
            XCTAssertEqual(reordered, visits)
        }
    }

    func testKeysDecodedInAnotherOrderOrAsAnotherType() throws {
        let dbQueue = try DatabaseQueue()
        let rows = try dbQueue.read { db in
            try Shuffled.fetchAll(
                db,
                sql: """
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50)
                    SELECT i AS id, 'text ' || i AS text, i * 7 AS number FROM n
                    """)
        }
        XCTAssertEqual(rows.count, 50)
        for (offset, row) in rows.enumerated() {
            let id = offset + 1
            XCTAssertEqual(row.id, Int64(id))
            XCTAssertEqual(row.text, "text \(id)")
            XCTAssertEqual(row.number, id * 7)
            // An integer column decoded as a String converts as GRDB converts it (not through the Int entry).
            XCTAssertEqual(row.numberText, id.isMultiple(of: 2) ? nil : String(id * 7))
        }
    }

    func testTwoRecordTypesFromTheSameRows() throws {
        let dbQueue = try makeQueue()
        let visits = makeVisits(10)
        try dbQueue.write { db in for visit in visits { try visit.insert(db) } }
        try dbQueue.read { db in
            let cursor = try Row.fetchCursor(db, sql: "SELECT * FROM visit ORDER BY id")
            var index = 0
            while let row = try cursor.next() {
                // The first rows give Visit a plan; the following ones switch plans between the two records
                // (a record gets a plan on its second decoding in a row).
                if index >= 3 {
                    XCTAssertEqual(try NameOnly(row: row).name, visits[index].name)
                    XCTAssertEqual(try NameOnly(row: row).name, visits[index].name)
                }
                XCTAssertEqual(try Visit(row: row), visits[index])
                XCTAssertEqual(try Visit(row: row), visits[index])
                index += 1
            }
            XCTAssertEqual(index, visits.count)
        }
    }

    func testColumnStrategyAndMissingColumnsStayCorrectAfterTheFirstRow() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE v (id INTEGER PRIMARY KEY, visitor_name TEXT)")
            try db.execute(sql: "INSERT INTO v VALUES (1, 'a'), (2, 'b'), (3, NULL)")
        }
        try dbQueue.read { db in
            let cursor = try SnakeVisit.fetchCursor(db, sql: "SELECT * FROM v ORDER BY id")
            XCTAssertEqual(try cursor.next()?.visitorName, "a")
            XCTAssertEqual(try cursor.next()?.visitorName, "b")
            // The third row's NULL is an error naming the column, as without a plan.
            XCTAssertThrowsError(try cursor.next()) { error in
                XCTAssertTrue(String(describing: error).contains("visitor_name"), "\(error)")
            }
            // A key without a column fails on every row.
            let missing = try NameOnly.fetchCursor(db, sql: "SELECT id FROM v ORDER BY id")
            XCTAssertThrowsError(try missing.next())
            XCTAssertThrowsError(try missing.next())
        }
    }

    func testOptionalPrimitivesDecodeValuesNullsAndMissingColumnsOnEveryRow() throws {
        let dbQueue = try DatabaseQueue()
        let expected = (0..<6).map { i -> Optionals in
            let present = !i.isMultiple(of: 2)
            return Optionals(
                id: Int64(i + 1), flag: present ? i % 3 == 0 : nil, small: present ? Int8(-i) : nil,
                count: present ? i * 1_000 : nil, big: present ? UInt64(i) << 40 : nil,
                ratio: present ? Double(i) / 4 : nil, weight: present ? Float(i) * 1.5 : nil,
                label: present ? "label \(i)" : nil, absent: nil)
        }
        let fetched = try dbQueue.write { db -> [Optionals] in
            try db.execute(
                sql: """
                    CREATE TABLE t (id INTEGER PRIMARY KEY, flag BOOLEAN, small INTEGER, count INTEGER,
                      big INTEGER, ratio REAL, weight REAL, label TEXT)
                    """)
            for record in expected {
                try db.execute(
                    sql: "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    arguments: [
                        record.id, record.flag, record.small, record.count, record.big, record.ratio,
                        record.weight, record.label,
                    ])
            }
            return try Optionals.fetchAll(db, sql: "SELECT * FROM t ORDER BY id")
        }
        XCTAssertEqual(fetched, expected)
        // Text read as a number converts as SQLite's column functions do (GRDB reads it so), the same as for a
        // non-optional property.
        try dbQueue.write { db in
            try db.execute(sql: "UPDATE t SET count = 'many', small = '12' WHERE id = 2")
            let record = try XCTUnwrap(Optionals.fetchOne(db, sql: "SELECT * FROM t WHERE id = 2"))
            XCTAssertEqual(record.count, try Int.fetchOne(db, sql: "SELECT count FROM t WHERE id = 2"))
            XCTAssertEqual(record.count, 0)
            XCTAssertEqual(record.small, 12)
        }
    }

    func testCopiedRowsDecodeTheSame() throws {
        let dbQueue = try makeQueue()
        let visits = makeVisits(5)
        try dbQueue.write { db in for visit in visits { try visit.insert(db) } }
        let rows = try dbQueue.read { db in try Row.fetchAll(db, sql: "SELECT * FROM visit ORDER BY id") }
        // Rows that outlive their statement decode without the statement's plan.
        XCTAssertEqual(try rows.map { try Visit(row: $0) }, visits)
        XCTAssertEqual(try rows.reversed().map { try Visit(row: $0) }, visits.reversed())
    }
}
