import GraniteSQL
import GraniteStorage
import XCTest

/// Foreign key enforcement (expected outcomes checked against SQLite 3.40 with `PRAGMA foreign_keys=ON`).
final class ForeignKeyTests: XCTestCase {
    let failure = "FOREIGN KEY constraint failed"

    func open(_ schema: String) throws -> SQLConnection {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        try db.execute(schema)
        return db
    }

    func rows(_ db: SQLConnection, _ sql: String) throws -> [[Value]] { try db.query(sql).rows }

    func expectError(_ message: String, _ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) {
        do {
            try body()
            XCTFail("expected error '\(message)'", file: file, line: line)
        } catch let error as SQLExecutionError {
            XCTAssertEqual(error.message, message, file: file, line: line)
            if message == failure {
                XCTAssertEqual(error.extendedResultCode, 787, file: file, line: line)
                XCTAssertEqual(error.resultCode, 19, file: file, line: line)
            }
        } catch {
            XCTAssertEqual("\(error)", message, file: file, line: line)
        }
    }

    func testActions() throws {
        let db = try open(
            """
            CREATE TABLE p(id INTEGER PRIMARY KEY, code TEXT COLLATE NOCASE UNIQUE, name);
            CREATE TABLE c(x INTEGER REFERENCES p ON DELETE CASCADE ON UPDATE CASCADE,
                y TEXT REFERENCES p(code) ON DELETE SET NULL,
                z INTEGER DEFAULT 1 REFERENCES p(id) ON DELETE SET DEFAULT ON UPDATE RESTRICT);
            INSERT INTO p VALUES (1, 'a', 'one'), (2, 'b', 'two');
            """)
        expectError(failure) { try db.execute("INSERT INTO c VALUES (3, NULL, NULL)") }
        try db.execute("INSERT INTO c VALUES (1, 'A', 2)")  // NOCASE parent key
        try db.execute("INSERT INTO c VALUES ('1', 'b', NULL)")  // affinity of the parent key
        expectError(failure) { try db.execute("INSERT INTO c VALUES (NULL, 'zz', NULL)") }
        XCTAssertEqual(db.totalChanges, 4)
        try db.execute("UPDATE p SET id = 10 WHERE id = 1")  // ON UPDATE CASCADE
        XCTAssertEqual(db.changes, 1)
        XCTAssertEqual(db.totalChanges, 7)
        XCTAssertEqual(
            try rows(db, "SELECT * FROM c"),
            [[.integer(10), .text("A"), .integer(2)], [.integer(10), .text("b"), .null]])
        expectError(failure) { try db.execute("UPDATE p SET id = 20 WHERE id = 2") }  // ON UPDATE RESTRICT
        // SET DEFAULT points at the missing parent 1 ...
        expectError(failure) { try db.execute("DELETE FROM p WHERE code = 'b'") }
        XCTAssertEqual(db.totalChanges, 9)
        // ... until it exists.
        try db.execute("INSERT INTO p VALUES (1, 'c', 'uno')")
        try db.execute("DELETE FROM p WHERE code = 'b'")
        XCTAssertEqual(
            try rows(db, "SELECT * FROM c"),
            [[.integer(10), .text("A"), .integer(1)], [.integer(10), .null, .null]])
        try db.execute("DELETE FROM p WHERE id = 10")  // ON DELETE CASCADE
        XCTAssertEqual(try rows(db, "SELECT count(*) FROM c"), [[.integer(0)]])
        XCTAssertEqual(db.totalChanges, 17)
    }

    func testChildIndexLookup() throws {
        let db = try open(
            """
            CREATE TABLE p(id INTEGER PRIMARY KEY, code TEXT COLLATE NOCASE UNIQUE);
            CREATE TABLE c(pid INTEGER REFERENCES p ON DELETE CASCADE,
                code TEXT COLLATE NOCASE REFERENCES p(code) ON UPDATE CASCADE);
            CREATE INDEX c_pid ON c(pid);
            CREATE INDEX c_code ON c(code);
            INSERT INTO p VALUES (1, 'a'), (2, 'b');
            INSERT INTO c VALUES (1, 'A'), (1, 'b'), (2, 'B'), ('2', NULL);
            """)
        try db.execute("UPDATE p SET code = 'z' WHERE id = 2")
        XCTAssertEqual(db.totalChanges, 9)
        try db.execute("DELETE FROM p WHERE id = 1")
        XCTAssertEqual(db.totalChanges, 12)
        XCTAssertEqual(
            try rows(db, "SELECT rowid, * FROM c"),
            [[.integer(3), .integer(2), .text("z")], [.integer(4), .integer(2), .null]])
    }

    func testSelfReference() throws {
        let db = try open("CREATE TABLE tree(id INTEGER PRIMARY KEY, parent REFERENCES tree(id) ON DELETE CASCADE)")
        try db.execute("INSERT INTO tree VALUES (1, NULL), (2, 1), (3, 2), (4, 4)")
        expectError(failure) { try db.execute("INSERT INTO tree VALUES (5, 6)") }
        // Violations are counted over the whole statement.
        try db.execute("INSERT INTO tree VALUES (5, 6), (6, 5)")
        try db.execute("DELETE FROM tree WHERE id = 1")
        XCTAssertEqual(db.changes, 1)
        XCTAssertEqual(db.totalChanges, 9)
        XCTAssertEqual(try rows(db, "SELECT id FROM tree").map { $0[0] }, [4, 5, 6].map(Value.integer))
        expectError(failure) { try db.execute("UPDATE tree SET id = 40 WHERE id = 4") }
    }

    func testCompositeKeysAndMismatch() throws {
        let db = try open(
            """
            CREATE TABLE p(a, b, PRIMARY KEY (a, b));
            CREATE TABLE c(x, y, FOREIGN KEY (x, y) REFERENCES p);
            CREATE TABLE d(x, y, FOREIGN KEY (x, y) REFERENCES p(b, a) ON DELETE CASCADE);
            CREATE TABLE q(v);
            CREATE TABLE bad(v REFERENCES q(v));
            INSERT INTO p VALUES (1, 2);
            """)
        try db.execute("INSERT INTO c VALUES (1, 2)")
        expectError(failure) { try db.execute("INSERT INTO c VALUES (2, 1)") }
        try db.execute("INSERT INTO d VALUES (2, 1)")
        expectError(failure) { try db.execute("INSERT INTO d VALUES (1, 2)") }
        expectError(failure) { try db.execute("DELETE FROM p") }
        try db.execute("DELETE FROM c")
        try db.execute("DELETE FROM p")
        XCTAssertEqual(try rows(db, "SELECT count(*) FROM d"), [[.integer(0)]])
        let mismatch = "foreign key mismatch - \"bad\" referencing \"q\""
        expectError(mismatch) { try db.execute("INSERT INTO bad VALUES (NULL)") }
        expectError(mismatch) { try db.execute("DELETE FROM q") }
        try db.execute("INSERT INTO q VALUES (1)")  // a single-row insert into the parent checks nothing
        expectError(mismatch) { try db.execute("INSERT INTO q VALUES (1), (2)") }
        expectError("no such table: main.nope") {
            try db.execute("CREATE TABLE e(v REFERENCES nope); INSERT INTO e VALUES (NULL)")
        }
    }

    func testDropTable() throws {
        let db = try open(
            """
            CREATE TABLE p(id INTEGER PRIMARY KEY);
            CREATE TABLE c(x REFERENCES p ON DELETE CASCADE);
            CREATE TABLE d(y REFERENCES p);
            INSERT INTO p VALUES (1), (2); INSERT INTO c VALUES (1); INSERT INTO d VALUES (2);
            """)
        expectError(failure) { try db.execute("DROP TABLE p") }
        XCTAssertEqual(try rows(db, "SELECT count(*) FROM p"), [[.integer(2)]])
        XCTAssertEqual(try rows(db, "SELECT count(*) FROM c"), [[.integer(1)]])
        try db.execute("DELETE FROM d")
        try db.execute("DROP TABLE p")  // implicit DELETE FROM p, cascading to c
        XCTAssertEqual(db.changes, 2)
        XCTAssertEqual(try rows(db, "SELECT count(*) FROM c"), [[.integer(0)]])
        expectError("no such table: main.p") { try db.execute("INSERT INTO c VALUES (NULL)") }
    }

    func testDisabled() throws {
        let db = try open("CREATE TABLE p(id INTEGER PRIMARY KEY); CREATE TABLE c(x REFERENCES p)")
        db.foreignKeysEnabled = false
        try db.execute("INSERT INTO c VALUES (5)")
        try db.execute("DROP TABLE p")
        try db.execute("INSERT INTO c VALUES (6)")
        XCTAssertEqual(try rows(db, "SELECT count(*) FROM c"), [[.integer(2)]])
    }

    func testFailKeepsRowsUnlessKeysAreViolated() throws {
        let db = try open(
            "CREATE TABLE p(id INTEGER PRIMARY KEY); CREATE TABLE c(id INTEGER PRIMARY KEY, x REFERENCES p, u UNIQUE)")
        try db.execute("INSERT INTO p VALUES (1)")
        expectError("UNIQUE constraint failed: c.u") {
            try db.execute("INSERT OR FAIL INTO c VALUES (1, 1, 'a'), (2, 1, 'a')")
        }
        XCTAssertEqual(try rows(db, "SELECT count(*) FROM c"), [[.integer(1)]])
        // A pending violation turns the FAIL into a foreign key failure, which undoes the statement.
        expectError(failure) { try db.execute("INSERT OR FAIL INTO c VALUES (3, 9, 'b'), (4, 1, 'a')") }
        XCTAssertEqual(try rows(db, "SELECT count(*) FROM c"), [[.integer(1)]])
    }
}
