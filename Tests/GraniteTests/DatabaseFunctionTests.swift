import Foundation
import Granite
import GraniteTestSupport
import XCTest

final class DatabaseFunctionTests: XCTestCase {
    func testStandardFunctionsAreOnEveryConnection() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.read { db in
            XCTAssertEqual(DatabaseFunction.capitalize.name, "swiftCapitalizedString")
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT swiftCapitalizedString('jérÔME')"), "Jérôme")
            XCTAssertEqual(
                try String.fetchOne(db, sql: "SELECT \(DatabaseFunction.lowercase.name)('jérÔME')"), "jérôme")
            XCTAssertEqual(
                try String.fetchOne(db, sql: "SELECT \(DatabaseFunction.uppercase.name)('jérÔME')"), "JÉRÔME")
            let localizedCapitalize = DatabaseFunction.localizedCapitalize.name
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT \(localizedCapitalize)('jérÔME')"), "Jérôme")
            let localizedLowercase = DatabaseFunction.localizedLowercase.name
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT \(localizedLowercase)('jérÔME')"), "jérôme")
            let localizedUppercase = DatabaseFunction.localizedUppercase.name
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT \(localizedUppercase)('jérÔME')"), "JÉRÔME")
            XCTAssertNil(try String.fetchOne(db, sql: "SELECT swiftLocalizedUppercaseString(1)"))
        }
    }

    func testStandardFunctionsInQueryInterface() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE player(name TEXT); INSERT INTO player VALUES ('jérÔME')")
            let request = Table("player").select(
                Column("name").localizedCapitalized, Column("name").localizedLowercased,
                Column("name").localizedUppercased)
            XCTAssertEqual(
                try request.makePreparedRequest(db).statement.sql,
                "SELECT swiftLocalizedCapitalizedString(\"name\"), swiftLocalizedLowercaseString(\"name\"), "
                    + "swiftLocalizedUppercaseString(\"name\") FROM \"player\"")
            let row = try XCTUnwrap(try Row.fetchOne(db, request))
            XCTAssertEqual(row[0], "Jérôme")
            XCTAssertEqual(row[1], "jérôme")
            XCTAssertEqual(row[2], "JÉRÔME")
        }
    }

    func testReturnValuesOfEveryStorageClass() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            db.add(function: DatabaseFunction("f_null", argumentCount: 0) { _ in nil })
            db.add(function: DatabaseFunction("f_int", argumentCount: 0) { _ in 1 })
            db.add(function: DatabaseFunction("f_double", argumentCount: 0) { _ in 1e100 })
            db.add(function: DatabaseFunction("f_string", argumentCount: 0) { _ in "foo" })
            db.add(function: DatabaseFunction("f_data", argumentCount: 0) { _ in "foo".data(using: .utf8) })
            let row = try XCTUnwrap(
                try Row.fetchOne(db, sql: "SELECT f_null(), f_int(), f_double(), f_string(), f_data()"))
            XCTAssertTrue(row[0] == nil)
            XCTAssertEqual(row[1] as Int, 1)
            XCTAssertEqual(row[2] as Double, 1e100)
            XCTAssertEqual(row[3] as String, "foo")
            XCTAssertEqual(row[4] as Data, "foo".data(using: .utf8))
        }
    }

    func testArgumentsAreDatabaseValues() throws {
        let dbQueue = try DatabaseQueue()
        let describe = DatabaseFunction("describe", argumentCount: 1) { dbValues -> String in
            switch dbValues[0].storage {
            case .null: return "null"
            case .int64(let i): return "int \(i)"
            case .double(let d): return "double \(d)"
            case .string(let s): return "string \(s)"
            case .blob(let data): return "blob \(data.count)"
            }
        }
        try dbQueue.inDatabase { db in
            db.add(function: describe)
            let row = try XCTUnwrap(
                try Row.fetchOne(
                    db, sql: "SELECT describe(?), describe(?), describe(?), describe(?), describe(?)",
                    arguments: [nil, 1, 1.5, "foo", "foo".data(using: .utf8)]))
            XCTAssertEqual(
                (0..<5).map { row[$0] as String }, ["null", "int 1", "double 1.5", "string foo", "blob 3"])
        }
    }

    func testArgumentCounts() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            db.add(function: DatabaseFunction("f", argumentCount: 0) { _ in "foo" })
            db.add(
                function: DatabaseFunction("g", argumentCount: 2) { dbValues in
                    (Int.fromDatabaseValue(dbValues[0]) ?? 0) + (Int.fromDatabaseValue(dbValues[1]) ?? 0)
                })
            db.add(function: DatabaseFunction("count_args") { dbValues in dbValues.count })
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT f()"), "foo")
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT g(1, 2)"), 3)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count_args()"), 0)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count_args(1, 2, 3)"), 3)
            XCTAssertThrowsError(try Int.fetchOne(db, sql: "SELECT g(1)")) { error in
                let error = error as? DatabaseError
                XCTAssertEqual(error?.resultCode, .SQLITE_ERROR)
                XCTAssertEqual(error?.message, "wrong number of arguments to function g()")
            }
        }
    }

    func testThrownDatabaseErrorKeepsItsCodeAndMessage() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            db.add(
                function: DatabaseFunction("messageOnly") { _ in throw DatabaseError(message: "custom error message") })
            db.add(
                function: DatabaseFunction("codeOnly") { _ in throw DatabaseError(resultCode: ResultCode(rawValue: 123))
                })
            db.add(
                function: DatabaseFunction("both") { _ in
                    throw DatabaseError(resultCode: ResultCode(rawValue: 123), message: "custom error message")
                })
            XCTAssertThrowsError(try db.execute(sql: "SELECT messageOnly()")) { error in
                let error = error as? DatabaseError
                XCTAssertEqual(error?.resultCode, .SQLITE_ERROR)
                XCTAssertEqual(error?.message, "custom error message")
                XCTAssertEqual(error?.sql, "SELECT messageOnly()")
            }
            XCTAssertThrowsError(try db.execute(sql: "SELECT codeOnly()")) { error in
                let error = error as? DatabaseError
                XCTAssertEqual(error?.extendedResultCode.rawValue, 123)
                XCTAssertEqual(error?.message, "unknown error")
            }
            XCTAssertThrowsError(try db.execute(sql: "SELECT both()")) { error in
                let error = error as? DatabaseError
                XCTAssertEqual(error?.extendedResultCode.rawValue, 123)
                XCTAssertEqual(error?.message, "custom error message")
            }
        }
    }

    func testOtherThrownErrorIsSQLiteErrorWithItsDescription() throws {
        struct Failure: Error, CustomStringConvertible {
            var description: String { "custom failure 123" }
        }
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            db.add(function: DatabaseFunction("f") { _ in throw Failure() })
            XCTAssertThrowsError(try db.execute(sql: "SELECT f()")) { error in
                let error = error as? DatabaseError
                XCTAssertEqual(error?.resultCode, .SQLITE_ERROR)
                XCTAssertEqual(error?.message, "custom failure 123")
            }
        }
    }

    func testCallAsFunctionInQueryInterface() throws {
        let square = DatabaseFunction("square", argumentCount: 1, pure: true) { dbValues in
            Int.fromDatabaseValue(dbValues[0]).map { $0 * $0 }
        }
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            db.add(function: square)
            try db.execute(sql: "CREATE TABLE player(score INTEGER); INSERT INTO player VALUES (2), (3)")
            let request = Table("player").select(square(Column("score")), as: Int.self).order(Column("score"))
            XCTAssertEqual(
                try request.makePreparedRequest(db).statement.sql,
                "SELECT square(\"score\") FROM \"player\" ORDER BY \"score\"")
            XCTAssertEqual(try request.fetchAll(db), [4, 9])
            XCTAssertEqual(try Table("player").filter(square(Column("score")) > 5).fetchCount(db), 1)
        }
    }

    func testIdentityAndRemoval() throws {
        let f0 = DatabaseFunction("f", argumentCount: 0) { _ in 0 }
        let fAny = DatabaseFunction("f") { _ in 1 }
        XCTAssertEqual(f0.name, "f")
        XCTAssertNotEqual(f0.id, fAny.id)
        XCTAssertEqual(f0.id, DatabaseFunction("f", argumentCount: 0) { _ in 2 }.id)
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            db.add(function: f0)
            db.add(function: fAny)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT f()"), 0)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT f(1)"), 1)
            db.remove(function: f0)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT f()"), 1)
            db.remove(function: fAny)
            XCTAssertThrowsError(try Int.fetchOne(db, sql: "SELECT f()")) { error in
                XCTAssertEqual((error as? DatabaseError)?.message, "no such function: f")
            }
        }
    }

    func testCustomFunctionOverridesBuiltIn() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            db.add(function: DatabaseFunction("upper", argumentCount: 1) { _ in "overridden" })
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT upper('a')"), "overridden")
        }
    }

    func testImpureFunctionsAreRefusedInIndexes() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            db.add(
                function: DatabaseFunction("pureDouble", argumentCount: 1, pure: true) { dbValues in
                    Int.fromDatabaseValue(dbValues[0]).map { $0 * 2 }
                })
            db.add(
                function: DatabaseFunction("impureDouble", argumentCount: 1) { dbValues in
                    Int.fromDatabaseValue(dbValues[0]).map { $0 * 2 }
                })
            try db.execute(sql: "CREATE TABLE t(a INTEGER); CREATE INDEX t_pure ON t(pureDouble(a))")
            XCTAssertThrowsError(try db.execute(sql: "CREATE INDEX t_impure ON t(impureDouble(a))")) { error in
                let error = error as? DatabaseError
                XCTAssertEqual(error?.resultCode, .SQLITE_ERROR)
                XCTAssertEqual(error?.message, "non-deterministic functions prohibited in index expressions")
            }
            try db.execute(sql: "INSERT INTO t VALUES (1), (2)")
            XCTAssertEqual(try Int.fetchAll(db, sql: "SELECT a FROM t WHERE pureDouble(a) = 4"), [2])
        }
    }

    func testPoolReadersGetFunctionsFromPrepareDatabase() throws {
        let path = try makeTemporaryDatabasePath()
        var config = Configuration()
        config.prepareDatabase { db in
            db.add(
                function: DatabaseFunction("succ", argumentCount: 1, pure: true) { dbValues in
                    Int.fromDatabaseValue(dbValues[0]).map { $0 + 1 }
                })
        }
        let dbPool = try DatabasePool(path: path, configuration: config)
        try dbPool.write { db in
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT succ(1)"), 2)
        }
        try dbPool.read { db in
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT succ(41)"), 42)
        }
    }
}
