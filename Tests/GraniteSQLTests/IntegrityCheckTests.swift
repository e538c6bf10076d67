import GraniteSQL
import GraniteStorage
import XCTest

/// `PRAGMA integrity_check` and `PRAGMA quick_check` on databases damaged behind the SQL layer's back (rows and
/// index entries written through the storage API): every problem is reported, in SQLite's words where SQLite has
/// them, and reading goes on past each one.
final class IntegrityCheckTests: XCTestCase {
    func makeDatabase() throws -> SQLConnection {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        try db.execute(
            """
            CREATE TABLE t(id INTEGER PRIMARY KEY, a NOT NULL, b UNIQUE, c CHECK (c >= 0));
            CREATE INDEX ta ON t(a);
            CREATE INDEX tx ON t(a * 10 + c);
            CREATE INDEX tp ON t(c) WHERE c > 5;
            INSERT INTO t VALUES (1, 'x', 10, 1), (2, 'y', 20, 7), (3, 'z', 30, 9), (4, 'w', 40, 2);
            CREATE TABLE u(k TEXT COLLATE NOCASE UNIQUE, v);
            INSERT INTO u VALUES ('p', 1), ('Q', 2);
            """)
        return db
    }

    func problems(_ db: SQLConnection, _ pragma: String = "PRAGMA integrity_check") throws -> [String] {
        try db.query(pragma).rows.map { row in
            guard case .text(let text) = row[0] else { return "?" }
            return text
        }
    }

    /// Changes the storage trees directly, in a write transaction.
    func damage(_ db: SQLConnection, _ body: (StorageEngine, SchemaCatalog) throws -> Void) throws {
        try db.engine.beginWrite()
        try body(db.engine, db.catalog)
        try db.engine.commit()
    }

    func table(_ name: String, _ engine: StorageEngine, _ catalog: SchemaCatalog) throws -> TableTree {
        try engine.table(named: try XCTUnwrap(catalog.table(named: name)).storageName)
    }

    func index(_ name: String, _ engine: StorageEngine, _ catalog: SchemaCatalog) throws -> IndexTree {
        try engine.index(named: try XCTUnwrap(catalog.index(named: name)).storageName)
    }

    func testCleanDatabaseIsOK() throws {
        let db = try makeDatabase()
        XCTAssertEqual(try problems(db), ["ok"])
        XCTAssertEqual(try problems(db, "PRAGMA quick_check"), ["ok"])
        XCTAssertEqual(try problems(db, "PRAGMA integrity_check(1)"), ["ok"])
    }

    func testMissingIndexEntries() throws {
        let db = try makeDatabase()
        try damage(db) { engine, catalog in
            XCTAssertTrue(try index("ta", engine, catalog).delete(key: KeyEncoding.encode([.text("y"), .integer(2)])))
            // The expression index's entry for row 3 (a * 10 + c: 'z' * 10 + 9 = 9).
            XCTAssertTrue(try index("tx", engine, catalog).delete(key: KeyEncoding.encode([.integer(9), .integer(3)])))
            // The partial index's entry for row 2 (c = 7 > 5).
            XCTAssertTrue(try index("tp", engine, catalog).delete(key: KeyEncoding.encode([.integer(7), .integer(2)])))
        }
        XCTAssertEqual(
            Set(try problems(db)),
            [
                "row 2 missing from index ta", "wrong # of entries in index ta", "row 3 missing from index tx",
                "wrong # of entries in index tx", "row 2 missing from index tp", "wrong # of entries in index tp",
            ])
        XCTAssertEqual(try problems(db, "PRAGMA quick_check"), ["ok"])
    }

    func testStrayIndexEntries() throws {
        let db = try makeDatabase()
        try damage(db) { engine, catalog in
            // An entry for no row, an entry with the wrong key, and a row outside the partial index.
            try index("ta", engine, catalog).insert(key: KeyEncoding.encode([.text("q"), .integer(99)]))
            try index("ta", engine, catalog).insert(key: KeyEncoding.encode([.text("q"), .integer(1)]))
            try index("tp", engine, catalog).insert(key: KeyEncoding.encode([.integer(1), .integer(1)]))
        }
        XCTAssertEqual(
            try problems(db),
            [
                "entry for row 1 in index tp does not match a row of t", "wrong # of entries in index tp",
                "entry for row 1 in index ta does not match a row of t",
                "entry for row 99 in index ta does not match a row of t", "wrong # of entries in index ta",
            ])
    }

    func testDuplicateUniqueKey() throws {
        let db = try makeDatabase()
        try damage(db) { engine, catalog in
            // Row 5 repeats b = 20 (and u gets 'q', equal to 'Q' under NOCASE), with their index entries.
            let encoder = RowEncoder()
            try table("t", engine, catalog).insert(
                rowid: 5, payload: encoder.encode([.null, .text("v"), .integer(20), .integer(3)]))
            try index("ta", engine, catalog).insert(key: KeyEncoding.encode([.text("v"), .integer(5)]))
            try index("tx", engine, catalog).insert(key: KeyEncoding.encode([.integer(3), .integer(5)]))
            let b = try XCTUnwrap(catalog.indexes(on: "t").first { $0.isAutomatic })
            try engine.index(named: b.storageName).insert(key: KeyEncoding.encode([.integer(20), .integer(5)]))
            try table("u", engine, catalog).insert(rowid: 3, payload: encoder.encode([.text("q"), .integer(3)]))
            let k = try XCTUnwrap(catalog.indexes(on: "u").first)
            try engine.index(named: k.storageName).insert(key: KeyEncoding.encode([.text("q"), .integer(3)]))
        }
        let b = try XCTUnwrap(db.catalog.indexes(on: "t").first { $0.isAutomatic }).name
        let k = try XCTUnwrap(db.catalog.indexes(on: "u").first).name
        XCTAssertEqual(try problems(db), ["non-unique entry in index \(b)", "non-unique entry in index \(k)"])
    }

    /// A table argument checks that table and its indexes alone, as SQLite does: damage elsewhere is not seen.
    func testTableArgumentChecksThatTableOnly() throws {
        let db = try makeDatabase()
        try damage(db) { engine, catalog in
            XCTAssertTrue(try index("ta", engine, catalog).delete(key: KeyEncoding.encode([.text("y"), .integer(2)])))
            try table("u", engine, catalog).replace(
                rowid: 1, payload: RowEncoder().encode([.text("r"), .integer(1)]))
        }
        let t = ["row 2 missing from index ta", "wrong # of entries in index ta"]
        let k = try XCTUnwrap(db.catalog.indexes(on: "u").first).name
        let u = try problems(db, "PRAGMA integrity_check(U)")
        XCTAssert(u.contains("row 1 missing from index \(k)"), "\(u)")
        XCTAssertEqual(try problems(db, "PRAGMA integrity_check(t)"), t)
        XCTAssertEqual(try problems(db, "SELECT * FROM pragma_integrity_check('t')"), t)
        XCTAssertEqual(Set(try problems(db)), Set(t + u))
        XCTAssertEqual(try problems(db, "PRAGMA quick_check(t)"), ["ok"])
        try db.execute("CREATE VIEW v AS SELECT * FROM t")
        XCTAssertEqual(try problems(db, "PRAGMA integrity_check(v)"), ["ok"])
        XCTAssertThrowsError(try problems(db, "PRAGMA integrity_check(ta)"))
    }

    func testNullsAndCheckConstraints() throws {
        let db = try makeDatabase()
        try damage(db) { engine, catalog in
            let encoder = RowEncoder()
            try table("t", engine, catalog).replace(
                rowid: 1, payload: encoder.encode([.null, .null, .integer(10), .integer(1)]))
            try table("t", engine, catalog).replace(
                rowid: 4, payload: encoder.encode([.null, .text("w"), .integer(40), .integer(-2)]))
        }
        let found = try problems(db)
        XCTAssertEqual(found.first, "NULL value in t.a")
        for problem in [
            "CHECK constraint failed in t", "row 1 missing from index ta", "row 1 missing from index tx",
            "entry for row 1 in index ta does not match a row of t",
        ] {
            XCTAssert(found.contains(problem), "\(problem) not in \(found)")
        }
        XCTAssertEqual(try problems(db, "PRAGMA quick_check"), ["NULL value in t.a", "CHECK constraint failed in t"])
    }

    /// A row whose bytes cannot be decoded (checksums are valid: the bytes were written through the storage API)
    /// is reported, and the check goes on to the other rows, indexes and tables.
    func testUndecodableRowDoesNotStopTheCheck() throws {
        let db = try makeDatabase()
        try damage(db) { engine, catalog in
            try table("t", engine, catalog).replace(rowid: 2, payload: [0xFF, 0xFF, 0xFF, 0xFF, 0x07])
            XCTAssertTrue(try index("ta", engine, catalog).delete(key: KeyEncoding.encode([.text("z"), .integer(3)])))
            let encoder = RowEncoder()
            try table("u", engine, catalog).replace(rowid: 2, payload: encoder.encode([.null, .integer(2)]))
        }
        let found = try problems(db)
        XCTAssert(found.first?.hasPrefix("row 2 of t: ") == true, "\(found)")
        XCTAssert(found.contains("row 3 missing from index ta"), "\(found)")
        let k = try XCTUnwrap(db.catalog.indexes(on: "u").first).name
        XCTAssert(found.contains("row 2 missing from index \(k)"), "\(found)")
        XCTAssert(found.contains("entry for row 2 in index \(k) does not match a row of u"), "\(found)")
        // The undecodable row may have its entries: no index of t is said to have the wrong number.
        XCTAssertEqual(found.count, 4, "\(found)")
        XCTAssertEqual(try problems(db, "PRAGMA quick_check").count, 1)
    }

    func testLimit() throws {
        let db = try makeDatabase()
        try damage(db) { engine, catalog in
            let tree = try index("ta", engine, catalog)
            for (a, rowid) in [("x", 1), ("y", 2), ("z", 3), ("w", 4)] {
                XCTAssertTrue(try tree.delete(key: KeyEncoding.encode([.text(a), .integer(Int64(rowid))])))
            }
        }
        XCTAssertEqual(
            try problems(db, "PRAGMA integrity_check(2)"),
            ["row 1 missing from index ta", "row 2 missing from index ta"])
        XCTAssertEqual(try problems(db).count, 5)
    }
}
