import GraniteStorage
import XCTest

@testable import GraniteSQL

final class SuggestionTests: XCTestCase {
    private func connection() throws -> SQLConnection {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        try db.execute(
            """
            CREATE TABLE people(id INTEGER PRIMARY KEY, name TEXT, email TEXT);
            CREATE TABLE orders(id INTEGER PRIMARY KEY, person INTEGER, total REAL);
            CREATE INDEX orders_by_person ON orders(person);
            """)
        return db
    }

    /// Runs `sql`, expecting an error with exactly `message` and `suggestion`.
    private func assertError(
        _ db: SQLConnection, _ sql: String, _ message: String, suggestion: String?, file: StaticString = #filePath,
        line: UInt = #line
    ) {
        do {
            try db.execute(sql)
            XCTFail("expected an error for \(sql)", file: file, line: line)
        } catch {
            let (actualMessage, actualSuggestion): (String, String?)
            switch error {
            case let error as SQLExecutionError: (actualMessage, actualSuggestion) = (error.message, error.suggestion)
            case let error as SQLEvaluationError: (actualMessage, actualSuggestion) = (error.message, error.suggestion)
            case let error as SchemaError: (actualMessage, actualSuggestion) = (error.message, error.suggestion)
            default: return XCTFail("\(sql): unexpected \(type(of: error)) \(error)", file: file, line: line)
            }
            XCTAssertEqual(actualMessage, message, sql, file: file, line: line)
            XCTAssertEqual(actualSuggestion, suggestion, sql, file: file, line: line)
            let expectedDescription = suggestion.map { "\(message) (did you mean '\($0)'?)" } ?? message
            XCTAssertEqual("\(error)", expectedDescription, sql, file: file, line: line)
        }
    }

    func testEditDistance() {
        XCTAssertEqual(NameSuggestions.editDistance("name", "name"), 0)
        XCTAssertEqual(NameSuggestions.editDistance("NAME", "name"), 0)
        XCTAssertEqual(NameSuggestions.editDistance("naem", "name"), 1)
        XCTAssertEqual(NameSuggestions.editDistance("nme", "name"), 1)
        XCTAssertEqual(NameSuggestions.editDistance("kitten", "sitting"), 3)
        XCTAssertEqual(NameSuggestions.editDistance("", "abc"), 3)
        XCTAssertEqual(NameSuggestions.closest(to: "ab", among: ["abc", "xy"]), "abc")
        XCTAssertEqual(NameSuggestions.closest(to: "ab", among: ["ab", "AB"]), nil)
        XCTAssertEqual(NameSuggestions.closest(to: "abcdef", among: ["abcxyz", "abcdxy"]), "abcdxy")
    }

    func testEditDistanceThreshold() throws {
        let db = try connection()
        assertError(db, "SELECT * FROM peple", "no such table: peple", suggestion: "people")
        assertError(db, "SELECT * FROM PEOPEL", "no such table: PEOPEL", suggestion: "people")
        assertError(db, "SELECT * FROM customers", "no such table: customers", suggestion: nil)
        // Short names allow one edit only.
        assertError(db, "SELECT * FROM ab", "no such table: ab", suggestion: nil)
    }

    func testTables() throws {
        let db = try connection()
        assertError(db, "INSERT INTO peeple(name) VALUES ('x')", "no such table: peeple", suggestion: "people")
        assertError(db, "UPDATE ordrs SET total = 1", "no such table: ordrs", suggestion: "orders")
        assertError(db, "DELETE FROM orderss", "no such table: orderss", suggestion: "orders")
        assertError(db, "DROP TABLE poeple", "no such table: poeple", suggestion: "people")
        assertError(db, "CREATE INDEX i ON pople(name)", "no such table: main.pople", suggestion: "people")
    }

    func testColumns() throws {
        let db = try connection()
        assertError(db, "SELECT nme FROM people", "no such column: nme", suggestion: "name")
        assertError(db, "SELECT people.emial FROM people", "no such column: people.emial", suggestion: "people.email")
        assertError(db, "SELECT * FROM people WHERE naem = 1", "no such column: naem", suggestion: "name")
        assertError(db, "SELECT totl FROM orders", "no such column: totl", suggestion: "total")
        assertError(db, "SELECT address FROM people", "no such column: address", suggestion: nil)
        assertError(db, "SELECT p.nmae FROM people p", "no such column: p.nmae", suggestion: "p.name")
        assertError(
            db, "INSERT INTO people(nmae) VALUES (1)", "table people has no column named nmae", suggestion: "name")
        assertError(db, "UPDATE people SET emali = 1", "no such column: emali", suggestion: "email")
        assertError(
            db, "ALTER TABLE people RENAME COLUMN nmae TO x", "no such column: \"nmae\"", suggestion: "name")
        assertError(db, "CREATE INDEX i ON people(emal)", "no such column: emal", suggestion: "email")
    }

    func testFunctionsIndexesAndCollations() throws {
        let db = try connection()
        assertError(db, "SELECT lenght(name) FROM people", "no such function: lenght", suggestion: "length")
        assertError(db, "SELECT UPER('a')", "no such function: UPER", suggestion: "upper")
        assertError(db, "SELECT frobnicate(1)", "no such function: frobnicate", suggestion: nil)
        assertError(db, "SELECT coutn(*) FROM people", "no such function: coutn", suggestion: "count")
        assertError(db, "DROP INDEX orders_by_persn", "no such index: orders_by_persn", suggestion: "orders_by_person")
        assertError(
            db, "SELECT 'a' = 'A' COLLATE NOCAS", "no such collation sequence: NOCAS", suggestion: "NOCASE")
    }

    func testOtherErrorsHaveNoSuggestion() throws {
        let db = try connection()
        try db.execute("CREATE TABLE u(a UNIQUE); INSERT INTO u VALUES (1)")
        assertError(db, "INSERT INTO u VALUES (1)", "UNIQUE constraint failed: u.a", suggestion: nil)
    }
    /// Errors about names carry the name as typed data; the suggestion and the message both come from it.
    func testErrorsCarryTheirSubject() throws {
        let db = try connection()
        func subject(_ sql: String) -> SQLErrorSubject? {
            do {
                try db.execute(sql)
                return nil
            } catch let error as SQLExecutionError {
                return error.subject
            } catch let error as SQLEvaluationError {
                return error.subject
            } catch let error as SchemaError {
                return error.subject
            } catch {
                return nil
            }
        }
        XCTAssertEqual(subject("SELECT nmae FROM people"), .noSuchColumn(ColumnReference(column: "nmae")))
        XCTAssertEqual(
            subject("SELECT people.emial FROM people"), .noSuchColumn(ColumnReference(table: "people", column: "emial")))
        XCTAssertEqual(subject("SELECT * FROM peple"), .noSuchTable("peple"))
        XCTAssertEqual(subject("DROP INDEX orders_by_persn"), .noSuchIndex("orders_by_persn"))
        XCTAssertEqual(subject("SELECT lenght(name) FROM people"), .noSuchFunction("lenght"))
        XCTAssertEqual(
            subject("INSERT INTO people(id, nam) VALUES (1, 'a')"), .noColumnNamed(table: "people", column: "nam"))
        XCTAssertEqual(subject("ALTER TABLE people RENAME COLUMN nme TO n"), .noSuchColumnToRename("nme"))
        // The GROUP BY rewording is chosen by the subject of the error it replaces.
        XCTAssertThrowsError(try db.execute("SELECT name FROM people GROUP BY count(*)")) { error in
            XCTAssertEqual("\(error)", "aggregate functions are not allowed in the GROUP BY clause")
        }
        XCTAssertEqual(subject("SELECT 1 FROM people WHERE sum(id) > 1"), .misuseOfAggregate(function: "sum"))
        XCTAssertEqual(
            SQLErrorSubject.noSuchColumn(ColumnReference(schema: "main", table: "t", column: "c")).message,
            "no such column: main.t.c")
        XCTAssertEqual(SQLErrorSubject.misuseOfAggregate(function: nil).message, "misuse of aggregate")
    }
}
