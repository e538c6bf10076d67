import Foundation
import Granite
import XCTest

private enum Suit: String, DatabaseValueConvertible {
    case hearts, spades
}

final class StatementBindingTests: XCTestCase {
    private func makeDatabase() throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE card (rank, suit, note)")
        }
        return dbQueue
    }

    func testValuesBindToTheirParameter() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            let statement = try db.makeStatement(sql: "INSERT INTO card VALUES (?, ?, ?)")
            let handle = statement.sqliteStatement
            XCTAssertEqual(12.bind(to: handle, at: 1), ResultCode.SQLITE_OK.rawValue)
            XCTAssertEqual(Suit.spades.bind(to: handle, at: 2), ResultCode.SQLITE_OK.rawValue)
            XCTAssertEqual((nil as String?).bind(to: handle, at: 3), ResultCode.SQLITE_OK.rawValue)
            try statement.execute()
            let row = try XCTUnwrap(Row.fetchOne(db, sql: "SELECT rank, suit, typeof(note) FROM card"))
            XCTAssertEqual(row[0] as Int, 12)
            XCTAssertEqual(row[1] as Suit, .spades)
            XCTAssertEqual(row[2] as String, "null")
        }
    }

    func testEveryKindOfValueBinds() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            let statement = try db.makeStatement(sql: "SELECT typeof(?), ?")
            let handle = statement.sqliteStatement
            let values: [(any StatementBinding, String, DatabaseValue)] = [
                (DatabaseValue.null, "null", .null),
                (Int64(7), "integer", 7),
                (2.5, "real", 2.5),
                ("text", "text", "text"),
                (Data([0xCA, 0xFE]), "blob", Data([0xCA, 0xFE]).databaseValue),
                (Optional(3), "integer", 3),
                (Suit.hearts, "text", "hearts"),
                (
                    DatabaseDateComponents(DateComponents(hour: 10, minute: 30), format: .HM), "text",
                    "10:30"
                ),
            ]
            for (value, typeName, stored) in values {
                XCTAssertEqual(value.bind(to: handle, at: 1), ResultCode.SQLITE_OK.rawValue)
                XCTAssertEqual(value.bind(to: handle, at: 2), ResultCode.SQLITE_OK.rawValue)
                let row = try XCTUnwrap(Row.fetchOne(statement))
                XCTAssertEqual(row[0] as String, typeName)
                XCTAssertEqual(row[1] as DatabaseValue, stored)
            }
        }
    }

    func testBindingAMissingParameterIsARangeError() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            let statement = try db.makeStatement(sql: "SELECT ?")
            XCTAssertEqual(1.bind(to: statement.sqliteStatement, at: 0), ResultCode.SQLITE_RANGE.rawValue)
            XCTAssertEqual(1.bind(to: statement.sqliteStatement, at: 2), ResultCode.SQLITE_RANGE.rawValue)
            XCTAssertEqual(
                DatabaseValue.null.bind(to: statement.sqliteStatement, at: 2), ResultCode.SQLITE_RANGE.rawValue)
        }
    }

    func testStatementBindingValuesAreArguments() throws {
        // Statement arguments hold the values that bind to statements, IndexInfo.Origin included.
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            let indexOrigin = IndexInfo.Origin.uniqueConstraint
            let arguments: StatementArguments = [1, Suit.hearts, indexOrigin]
            try db.execute(sql: "INSERT INTO card VALUES (?, ?, ?)", arguments: arguments)
            let row = try XCTUnwrap(Row.fetchOne(db, sql: "SELECT * FROM card"))
            XCTAssertEqual(row["note"] as String, indexOrigin.rawValue)
            XCTAssertEqual(row["note"] as IndexInfo.Origin, .uniqueConstraint)
        }
    }
}
