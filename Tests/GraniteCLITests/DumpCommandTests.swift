// `granite dump`: its script loads back into `granite sql` and `sqlite3` as the same data, it survives
// `sqlite3`'s own `.dump` on the way back, and it fails cleanly on bad input without touching the file.

import Foundation
import XCTest

extension SQLCommandTests {
    /// Runs `granite dump` with `arguments`.
    func graniteDump(_ arguments: [String]) throws -> Output {
        try run(try GraniteCLITests.binary(), ["dump"] + arguments)
    }

    /// The CSV output of each probe query on a Granite file.
    private func graniteProbes(_ file: String, _ queries: [String]) throws -> [String] {
        try queries.map { query in
            let result = try granite(["--csv", file, query])
            XCTAssertEqual(result.status, 0, "\(query): \(result.stderr)")
            return result.text
        }
    }

    /// A Granite file made by `granite sql` from `sql`.
    private func makeGraniteFile(_ name: String, _ sql: String) throws -> String {
        let file = path(name)
        let setup = try granite([file], stdin: sql)
        XCTAssertEqual(setup.status, 0, setup.stderr)
        return file
    }

    func testDumpLoadsBackIntoGraniteAndSQLite() throws {
        let sqlite3 = try sqlite3()
        let original = try makeGraniteFile("original.granite", Self.dumpSetupSQL)
        let dump = try graniteDump([original])
        XCTAssertEqual(dump.status, 0, dump.stderr)
        XCTAssertTrue(dump.text.hasPrefix("PRAGMA foreign_keys=OFF;\nBEGIN TRANSACTION;\nCREATE TABLE author("), dump.text)
        XCTAssertTrue(dump.text.hasSuffix("COMMIT;\n"), dump.text)
        XCTAssertTrue(dump.text.contains("DELETE FROM sqlite_sequence;\nINSERT INTO sqlite_sequence VALUES('author',4);\n"), dump.text)
        // Generated columns cannot be inserted: the rows name the other columns.
        XCTAssertTrue(dump.text.contains("INSERT INTO book(id,author_id,title,price,meta,cover) VALUES(1,1,'Notes',12.5,"), dump.text)

        let intoGranite = path("reloaded.granite")
        let load = try granite([intoGranite], stdin: dump.text)
        XCTAssertEqual(load.status, 0, load.stderr)
        let intoSQLite = path("reloaded.sqlite")
        let sqliteLoad = try run(sqlite3, [intoSQLite], stdin: dump.text)
        XCTAssertEqual(sqliteLoad.status, 0, sqliteLoad.stderr)
        XCTAssertEqual(sqliteLoad.stderr, "")

        let expected = try graniteProbes(original, Self.dumpProbes)
        XCTAssertEqual(try graniteProbes(intoGranite, Self.dumpProbes), expected)
        for (query, expected) in zip(Self.dumpProbes, expected) {
            XCTAssertEqual(try run(sqlite3, ["-csv", intoSQLite, query]).text, expected, query)
        }
        // Dumping the reloaded file gives the same script.
        XCTAssertEqual(try graniteDump([intoGranite]).text, dump.text)
    }

    /// Values at the edges: every byte survives, both ways.
    static let awkwardValuesSQL = """
        CREATE TABLE v(id INTEGER PRIMARY KEY, x);
        INSERT INTO v(x) VALUES (NULL), (0), (-9223372036854775808), (9223372036854775807),
            (0.1), (1e300), (-1e-300), (5e-324), (0.30000000000000004), (9007199254740993.0), (1e999), (-1e999),
            (123456789.12345678), ('it''s'), ('two' || char(13, 10) || 'lines' || char(10)), (''), ('tab	é🙂'),
            ('a' || char(0) || 'b'), (CAST(X'80FF41' AS TEXT)), (X''), (X'00'), (X'DEADBEEF'), ('X''00'''),
            ('CAST(X''41'' AS TEXT)');
        """

    static let awkwardProbe = "SELECT id, typeof(x), hex(x), quote(x) FROM v ORDER BY id"

    func testDumpIsByteExactForEveryKindOfValue() throws {
        let sqlite3 = try sqlite3()
        let original = try makeGraniteFile("values.granite", Self.awkwardValuesSQL)
        let dump = try graniteDump([original])
        XCTAssertEqual(dump.status, 0, dump.stderr)
        XCTAssertTrue(dump.text.contains("VALUES(18,CAST(X'610062' AS TEXT));"), dump.text)
        XCTAssertTrue(dump.text.contains("VALUES(19,CAST(X'80FF41' AS TEXT));"), dump.text)
        XCTAssertTrue(dump.text.contains("VALUES(11,1e999);\nINSERT INTO v VALUES(12,-1e999);"), dump.text)
        XCTAssertTrue(dump.text.contains(#"VALUES(15,replace(replace('two\r\nlines\n','\r',char(13)),'\n',char(10)));"#), dump.text)

        let expected = try graniteProbes(original, [Self.awkwardProbe])[0]
        let intoGranite = path("values-reloaded.granite")
        XCTAssertEqual(try granite([intoGranite], stdin: dump.text).status, 0)
        XCTAssertEqual(try graniteProbes(intoGranite, [Self.awkwardProbe])[0], expected)
        let intoSQLite = path("values.sqlite")
        XCTAssertEqual(try run(sqlite3, [intoSQLite], stdin: dump.text).status, 0)
        XCTAssertEqual(try run(sqlite3, ["-csv", intoSQLite, Self.awkwardProbe]).text, expected)
    }

    /// Granite → `granite dump` → `sqlite3` → `sqlite3 .dump` → `granite sql` gives the same rows. Left out, as
    /// `sqlite3`'s `.dump` itself does not keep them: text with a NUL or invalid UTF-8, and the smallest
    /// subnormal real (written with 20 digits, which SQLite's parser, and so Granite's, reads as 0.0).
    func testRoundTripThroughSQLite3sOwnDump() throws {
        let sqlite3 = try sqlite3()
        let original = try makeGraniteFile("trip.granite", Self.dumpSetupSQL + Self.awkwardValuesSQL
            + "DELETE FROM v WHERE id IN (8, 18, 19);")
        let dump = try graniteDump([original])
        XCTAssertEqual(dump.status, 0, dump.stderr)
        let intoSQLite = path("trip.sqlite")
        XCTAssertEqual(try run(sqlite3, [intoSQLite], stdin: dump.text).status, 0)
        let sqliteDump = try run(sqlite3, [intoSQLite, ".dump"])
        XCTAssertEqual(sqliteDump.status, 0)
        let back = path("back.granite")
        let load = try granite([back], stdin: sqliteDump.text)
        XCTAssertEqual(load.status, 0, load.stderr)
        let probes = Self.dumpProbes + [Self.awkwardProbe]
        XCTAssertEqual(try graniteProbes(back, probes), try graniteProbes(original, probes))
    }

    func testDumpOptions() throws {
        let original = try makeGraniteFile("options.granite", Self.dumpSetupSQL)
        let schema = try graniteDump([original, "--schema-only"])
        XCTAssertEqual(schema.status, 0, schema.stderr)
        XCTAssertFalse(schema.text.contains("INSERT INTO plain"), schema.text)
        XCTAssertFalse(schema.text.contains("sqlite_sequence"), schema.text)
        XCTAssertTrue(schema.text.contains("CREATE TRIGGER book_log"), schema.text)

        let data = try graniteDump([original, "--data-only"])
        XCTAssertEqual(data.status, 0, data.stderr)
        XCTAssertFalse(data.text.contains("CREATE "), data.text)
        XCTAssertTrue(data.text.contains("INSERT INTO plain VALUES(1,2.0,'x');"), data.text)

        // Schema, then data, into one file: the same rows, except that the triggers, created with the schema
        // this time, fire on the loaded rows (`book_log` adds to `log`), as they do with `sqlite3`'s dumps.
        let split = path("split.granite")
        XCTAssertEqual(try granite([split], stdin: schema.text).status, 0)
        let dataLoad = try granite([split], stdin: data.text)
        XCTAssertEqual(dataLoad.status, 0, dataLoad.stderr)
        let probes = Self.dumpProbes.filter { !$0.contains("FROM log") }
        XCTAssertEqual(probes.count, Self.dumpProbes.count - 1)
        XCTAssertEqual(try graniteProbes(split, probes), try graniteProbes(original, probes))

        // Chosen tables come with their own indexes and triggers, and nothing else.
        let some = try graniteDump([original, "plain", "BOOK"])
        XCTAssertEqual(some.status, 0, some.stderr)
        XCTAssertTrue(some.text.contains("CREATE TABLE plain(a, b, c);"), some.text)
        XCTAssertTrue(some.text.contains("CREATE INDEX book_expr"), some.text)
        XCTAssertTrue(some.text.contains("CREATE TRIGGER book_log"), some.text)
        XCTAssertFalse(some.text.contains("CREATE TABLE author"), some.text)
        XCTAssertFalse(some.text.contains("INSERT INTO author"), some.text)
        XCTAssertFalse(some.text.contains("sqlite_sequence"), some.text)
    }

    func testDumpRefusesBadInputAndLeavesTheFileAlone() throws {
        let original = try makeGraniteFile("bad.granite", """
            CREATE TABLE big(id INTEGER PRIMARY KEY, t TEXT);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
            INSERT INTO big SELECT i, printf('row %d with some text to fill pages', i) FROM n;
            """)
        let before = try Data(contentsOf: URL(fileURLWithPath: original))

        let unknown = try graniteDump([original, "nope"])
        XCTAssertEqual(unknown.status, 1)
        XCTAssertEqual(unknown.stderr, "granite: error: no such table: nope\n")
        XCTAssertNotEqual(try graniteDump([original, "--data-only", "--schema-only"]).status, 0)
        let missing = try graniteDump([path("missing.granite")])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("no such file"), missing.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("missing.granite")))

        let notDatabase = path("text.granite")
        try Data("CREATE TABLE this is not a database file\n".utf8).write(to: URL(fileURLWithPath: notDatabase))
        let foreign = try graniteDump([notDatabase])
        XCTAssertEqual(foreign.status, 1)
        XCTAssertTrue(foreign.stderr.hasPrefix("granite: error: "), foreign.stderr)

        // A damaged page in the middle of the table's tree.
        let damaged = path("damaged.granite")
        var bytes = before
        let offset = 4 * 4096 + 100
        for index in offset..<(offset + 64) { bytes[index] = ~bytes[index] }
        try bytes.write(to: URL(fileURLWithPath: damaged))
        let result = try graniteDump([damaged])
        XCTAssertEqual(result.status, 1, result.text)
        XCTAssertTrue(result.stderr.hasPrefix("granite: error: "), result.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: damaged)), bytes)

        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: original)), before)
    }
}
