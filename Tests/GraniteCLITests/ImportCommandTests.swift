// `granite import`: a sqlite3 `.dump` (through --sql and --sqlite) reads back as the SQLite original does; a CSV
// file loads as `sqlite3`'s `.import --csv` loads it (same rows, same types, same warnings), compared on fixed and
// seeded random files; bad input fails with its line and leaves the database as it was.

import Foundation
import GraniteStorage
import GraniteTestSupport
import XCTest

@testable import granite

extension SQLCommandTests {
    /// Runs `granite import` with `arguments`.
    func graniteImport(_ arguments: [String]) throws -> Output {
        try run(try GraniteCLITests.binary(), ["import"] + arguments)
    }

    func write(_ text: String, to name: String) throws -> String {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path(name)))
        return path(name)
    }

    /// Texts with bytes a dump must carry through: controls, CR LF, quotes, non-ASCII, a lone surrogate-free
    /// 4-byte character.
    static let oddTextsSQL = """
        CREATE TABLE odd(id INTEGER PRIMARY KEY, t TEXT, b BLOB, r REAL, i INTEGER, n);
        INSERT INTO odd(t, b, r, i, n) VALUES
            (char(1) || char(127) || char(13, 10) || '''"', x'00', 1.0e-310, -1, NULL),
            ('😀 ñ' || char(9), x'FFFE', 123456789.125, 9223372036854775807, 0.5),
            ('', x'', -1.5e308, 0, ''), (NULL, NULL, NULL, NULL, x'41');
        """

    func testSQLiteDumpImportsAsTheOriginalReads() throws {
        let sqlite3 = try sqlite3()
        let reference = path("original.sqlite")
        let setup = try run(sqlite3, [reference], stdin: Self.dumpSetupSQL + Self.oddTextsSQL)
        XCTAssertEqual(setup.status, 0, setup.stderr)
        let dump = try run(sqlite3, [reference, ".dump"])
        let dumpFile = try write(dump.text, to: "dump.sql")
        let probes = Self.dumpProbes + ["SELECT *, typeof(t), typeof(b), typeof(r), typeof(i), typeof(n), hex(t) FROM odd"]

        let fromSQL = path("from-sql.granite")
        let loaded = try graniteImport([fromSQL, "--sql", dumpFile])
        XCTAssertEqual(loaded.status, 0, loaded.stderr)
        XCTAssertTrue(loaded.stderr.hasPrefix("imported "), loaded.stderr)
        let fromSQLite = path("from-sqlite.granite")
        let converted = try graniteImport([fromSQLite, "--sqlite", reference])
        XCTAssertEqual(converted.status, 0, converted.stderr)
        for database in [fromSQL, fromSQLite] {
            for query in probes {
                let expected = try run(sqlite3, ["-csv", reference, query])
                let actual = try granite(["--csv", database, query])
                XCTAssertEqual(actual.stderr, "", query)
                XCTAssertEqual(actual.text, expected.text, "\(database): \(query)")
            }
        }
        // `granite dump` of the import, loaded back into SQLite, holds the same odd rows.
        let granitesDump = try run(try GraniteCLITests.binary(), ["dump", fromSQL])
        XCTAssertEqual(granitesDump.status, 0, granitesDump.stderr)
        let roundTrip = path("round-trip.sqlite")
        XCTAssertEqual(try run(sqlite3, [roundTrip], stdin: granitesDump.text).status, 0)
        let query = "SELECT *, typeof(t), typeof(b), typeof(r), typeof(i), typeof(n), hex(t) FROM odd"
        XCTAssertEqual(
            try run(sqlite3, ["-csv", roundTrip, query]).text, try run(sqlite3, ["-csv", reference, query]).text)
    }

    func testImportFailuresNameTheLineAndChangeNothing() throws {
        let db = path("kept.granite")
        XCTAssertEqual(try granite([db, "CREATE TABLE t(a INTEGER, b TEXT); INSERT INTO t VALUES (1, 'x')"]).status, 0)
        let script = try write(
            "BEGIN TRANSACTION;\nINSERT INTO t VALUES (2, 'y');\n\nINSERT INTO nosuch VALUES (3);\nCOMMIT;\n",
            to: "bad.sql")
        let failedScript = try graniteImport([db, "--sql", script])
        XCTAssertEqual(failedScript.status, 1)
        XCTAssertEqual(failedScript.stderr, "Parse error near line 4: no such table: nosuch\n")
        let badCSV = try write("a,b\n5,\"ok\"\n6,\"open\n7,z\n", to: "bad.csv")
        let failedCSV = try graniteImport([db, "--csv", badCSV, "--table", "t", "--header"])
        XCTAssertEqual(failedCSV.status, 1)
        XCTAssertEqual(failedCSV.stderr, "granite: error: \(badCSV):3: unterminated \"-quoted field\n")
        let unescaped = try write("5,\"a\"b\n", to: "unescaped.csv")
        let failedQuote = try graniteImport([db, "--csv", unescaped, "--table", "t"])
        XCTAssertEqual(failedQuote.stderr, "granite: error: \(unescaped):1: unescaped \" character\n")
        let constraint = try write("CREATE UNIQUE INDEX tb ON t(b);\nINSERT INTO t VALUES (9, 'x');\n", to: "c.sql")
        let failedConstraint = try graniteImport([db, "--sql", constraint])
        XCTAssertEqual(failedConstraint.stderr, "Runtime error near line 2: UNIQUE constraint failed: t.b (19)\n")
        let after = try granite(["--csv", db, "SELECT * FROM t; SELECT count(*) FROM sqlite_schema"])
        XCTAssertEqual(after.text, "1,x\n1\n")

        // A database the failed import created is removed.
        let fresh = path("fresh.granite")
        XCTAssertEqual(try graniteImport([fresh, "--sql", script]).status, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: fresh))
        let missing = try graniteImport([fresh, "--csv", path("nofile.csv"), "--table", "t"])
        XCTAssertTrue(missing.stderr.contains("cannot open"), missing.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: fresh))
        let notSQLite = try graniteImport([fresh, "--sqlite", script])
        XCTAssertEqual(notSQLite.stderr, "granite: error: \(script) is not an SQLite database\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: fresh))
    }

    // MARK: CSV against sqlite3

    /// Loads `csv` with sqlite3 `.import --csv` and with `granite import --csv`, after `schema` (a CREATE TABLE t, or
    /// nothing for a table made from the header), and compares every row, every type and the warnings.
    func assertCSVImportsAlike(_ csv: String, schema: String?, header: Bool, _ context: String) throws {
        let sqlite3 = try sqlite3()
        let name = "in-\(UUID().uuidString.prefix(8)).csv"
        _ = try write(csv, to: name)
        let reference = path("\(name).sqlite")
        let database = path("\(name).granite")
        if let schema {
            XCTAssertEqual(try run(sqlite3, [reference, schema]).status, 0)
            XCTAssertEqual(try granite([database, schema]).status, 0)
        }
        let expected = try run(sqlite3, [reference, ".import --csv \(header && schema != nil ? "--skip 1 " : "")\(name) t"])
        var arguments = [database, "--csv", name, "--table", "t"]
        if header { arguments.append("--header") }
        let actual = try graniteImport(arguments)
        XCTAssertEqual(actual.status, expected.status, "\(context): \(actual.stderr)")
        let warnings = actual.stderr.split(separator: "\n").filter { !$0.hasPrefix("imported ") }
        XCTAssertEqual(warnings, expected.stderr.split(separator: "\n"), context)
        let columns = try run(sqlite3, ["-csv", reference, "SELECT name FROM pragma_table_info('t')"]).text
            .split(separator: "\n").map { "\"\($0.replacingOccurrences(of: "\"", with: ""))\"" }
        let typed = columns.map { "\($0), typeof(\($0))" }.joined(separator: ", ")
        let query = "SELECT \(typed) FROM t ORDER BY rowid"
        let want = try run(sqlite3, ["-csv", reference, query])
        let got = try granite(["--csv", database, query])
        XCTAssertEqual(got.stderr, "", context)
        XCTAssertEqual(got.text, want.text, "\(context): \(query)")
    }

    static let typedSchema = "CREATE TABLE t(i INTEGER, r REAL, n NUMERIC, x TEXT, b BLOB, a)"

    func testCSVImportMatchesSQLite() throws {
        let fixed = """
            a,b,c,d,e,f\r
            1,2.5,x,007, 7 ,\r
            "q""uo","multi
            line",,3,"a,b",-0\r
            4,5
            6,7,8,9,10,11,12
            \r
            10,abc"d,1e3,0x1F,9223372036854775808,é
            """
        for schema in [nil, Self.typedSchema] {
            for header in [false, true] {
                try assertCSVImportsAlike(fixed, schema: schema, header: header, "fixed, \(schema ?? "new"), \(header)")
            }
        }
    }

    func testRandomCSVImportsMatchSQLite() throws {
        let seed = testSeed()
        var random = SplitMix64(seed: seed)
        let pool = [
            "", "1", "-2", " 7 ", "2.5", "1e3", "-0", ".5", "+3", "12abc", "abc", "x,y", "q\"uo", "multi\nline",
            "cr\r\nlf", "é😀", "0x10", "9223372036854775807", "9223372036854775808", "1.0", "  ", "NULL",
        ]
        for round in 0..<(4 * stressFactor) {
            var csv = "i,r,n,x,b,a\n"
            for _ in 0..<20 {
                let count = Int(random.next() % 8) == 0 ? Int(random.next() % 7) + 1 : 6
                let fields = (0..<count).map { _ -> String in
                    let value = pool[Int(random.next() % UInt64(pool.count))]
                    let mustQuote = value.contains(where: { ",\"\n\r".contains($0) })
                    guard mustQuote || random.next() % 4 == 0 else { return value }
                    return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
                }
                csv += fields.joined(separator: ",") + (random.next() % 3 == 0 ? "\r\n" : "\n")
            }
            let schema = round % 2 == 0 ? nil : Self.typedSchema
            try assertCSVImportsAlike(csv, schema: schema, header: true, "seed \(seed) round \(round)")
        }
    }

    // MARK: Scripts

    func testScriptErrorsNameTheirLineAsSQLiteDoes() throws {
        let cases: [(script: String, message: String)] = [
            ("SELECT 1;\nSELECT * FROM nosuch;\nSELECT 2;\n", "Parse error near line 2: no such table: nosuch\n"),
            ("SELECT 1;\n\n  SELECT 1,\n  2 FROM nosuch;\n", "Parse error near line 3: no such table: nosuch\n"),
            (
                "SELECT 1;\n\nSELEC 1;\n",
                "Parse error near line 3: near \"SELEC\": syntax error\n  SELEC 1;\n  ^--- error here\n"
            ),
            (
                "CREATE TABLE u(a UNIQUE);\nINSERT INTO u VALUES(1);\nINSERT INTO u VALUES(1);\n",
                "Runtime error near line 3: UNIQUE constraint failed: u.a (19)\n"
            ),
            ("SELECT 1; SELECT 2 FROM nosuch;\n", "Parse error near line 1: no such table: nosuch\n"),
        ]
        for (index, (script, message)) in cases.enumerated() {
            let result = try granite([path("\(index)-" + "lines.granite")], stdin: script)
            XCTAssertEqual(result.status, 1, script)
            XCTAssertEqual(result.stderr, message, script)
        }
    }

    func testDotCommandsReadImportOpenAndTimeout() throws {
        let included = try write("CREATE TABLE r(x);\nINSERT INTO r VALUES (1);\nINSERT INTO nosuch VALUES (2);\n", to: "inc.sql")
        let data = try write("name,n\nAda,1\n\"B, b\",2\n", to: "people.csv")
        let other = path("other.granite")
        let script = """
            .timeout 250
            PRAGMA busy_timeout;
            .import --csv \(data) people
            SELECT name, n + 1 FROM people;
            .tables peo%
            .tables P_OPLE
            .open \(other)
            CREATE TABLE o(x);
            .tables
            .read \(included)
            SELECT 'not reached';

            """
        let result = try granite(["--csv", path("main.granite")], stdin: script)
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.text, "250\nAda,2\n\"B, b\",3\npeople\npeople\no\n")
        XCTAssertEqual(result.stderr, "Parse error near line 3: no such table: nosuch\n")
        let reopened = try granite(["--csv", other, "SELECT * FROM r; SELECT name FROM sqlite_schema ORDER BY 1"])
        XCTAssertEqual(reopened.text, "1\no\nr\n")
    }

    /// Lines come out whole whatever the read size: a line may straddle any number of reads.
    func testLinesReadWholeAcrossBufferBoundaries() throws {
        let text = "SELECT 1;\r\nINSERT INTO t VALUES ('a\nb');\n\n" + String(repeating: "x", count: 40) + "\nlast"
        let file = try write(text, to: "lines.txt")
        // Split as bytes: as Characters, "\r\n" is one that is not "\n".
        let pieces = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false)
        let expected = pieces.enumerated().map { index, line in
            String(decoding: line, as: UTF8.self) + (index < pieces.count - 1 ? "\n" : "")
        }
        for chunkSize in [1, 2, 3, 7, 16, 41, 1000] {
            let input = try InputFile(path: file)
            defer { input.close() }
            let reader = LineReader(descriptor: input.descriptor, chunkSize: chunkSize)
            var lines: [String] = []
            while let line = try reader.nextLine() { lines.append(String(decoding: line, as: UTF8.self)) }
            XCTAssertEqual(lines, expected, "chunk size \(chunkSize)")
            XCTAssertEqual(reader.bytesRead, Int64(text.utf8.count))
        }
    }

    /// A statement spread over many lines, with `;` inside strings, identifiers and comments, runs once whole.
    func testLongStatementsSpanningLinesRunWhole() throws {
        let script = "CREATE TABLE l(a, b, \"x;\");\nINSERT INTO l VALUES\n"
            + (0..<300).map { "  (\($0), 'v;\($0)\n-- not a comment', 'w') -- c;\n" }.joined(separator: ",")
            + ";\nSELECT count(*), sum(a), count(DISTINCT b) FROM l WHERE b LIKE '%-- not a comment';\n"
        let result = try granite(["--csv", path("long.granite")], stdin: script)
        XCTAssertEqual(result.stderr, "")
        XCTAssertEqual(result.text, "300,44850,300\n")
    }

    /// At the prompt a syntax error's line counts from the statement's first line, not the session's.
    func testInteractiveSyntaxErrorsCountLinesWithinTheStatement() throws {
        let session = try SQLSession(engine: try openForSQL(nil), format: .csv(header: false))
        session.inputKind = .interactive
        var errors: [String] = []
        session.reportError = { errors.append($0.components(separatedBy: "\n")[0]) }
        func type(_ line: String) { _ = session.feed(Array((line + "\n").utf8)[...]) }
        for _ in 0..<9 { type("CREATE TABLE IF NOT EXISTS t(x);") }
        type("SELEC 1;")
        type("SELECT 1 FROM t;   SELECT")
        type("  1 +;")
        type("SELECT * FROM nosuch;")
        XCTAssertEqual(
            errors,
            [
                "granite: error: near \"SELEC\": syntax error (line 1, column 1)",
                "granite: error: near \";\": syntax error (line 2, column 6)",
                "granite: error: no such table: nosuch",
            ])
        try session.engine.close()
    }
}
