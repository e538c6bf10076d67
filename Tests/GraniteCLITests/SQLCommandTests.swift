// End-to-end tests of `granite sql`: runs the binary as a subprocess and compares its
// CSV output byte for byte with the `sqlite3` shell on the same SQL.

import Foundation
import GraniteTestSupport
import XCTest

/// Tests of `granite sql FILE [SQL]`.
final class SQLCommandTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory(prefix: "granite-sql").url
    }

    /// The result of one process run, with raw standard output.
    struct Output {
        var status: Int32
        var stdout: [UInt8]
        var stderr: String
        var text: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// Runs `executable` in the test directory, feeding `stdin` (if any); output goes through files.
    func run(_ executable: URL, _ arguments: [String], stdin: String? = nil) throws -> Output {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let id = UUID().uuidString
        let out = directory.appendingPathComponent("stdout-\(id)")
        let err = directory.appendingPathComponent("stderr-\(id)")
        let input = directory.appendingPathComponent("stdin-\(id)")
        try Data((stdin ?? "").utf8).write(to: input)
        guard FileManager.default.createFile(atPath: out.path, contents: nil),
            FileManager.default.createFile(atPath: err.path, contents: nil)
        else { throw CocoaError(.fileWriteUnknown) }
        let outHandle = try FileHandle(forWritingTo: out)
        let errHandle = try FileHandle(forWritingTo: err)
        let inHandle = try FileHandle(forReadingFrom: input)
        process.standardOutput = outHandle
        process.standardError = errHandle
        process.standardInput = inHandle
        try process.run()
        process.waitUntilExit()
        try outHandle.close()
        try errHandle.close()
        try inHandle.close()
        defer {
            for url in [out, err, input] { try? FileManager.default.removeItem(at: url) }
        }
        XCTAssertEqual(process.terminationReason, .exit, "\(executable.lastPathComponent) crashed")
        return Output(
            status: process.terminationStatus, stdout: [UInt8](try Data(contentsOf: out)),
            stderr: String(decoding: try Data(contentsOf: err), as: UTF8.self))
    }

    /// Runs `granite sql` with `arguments`.
    func granite(_ arguments: [String], stdin: String? = nil) throws -> Output {
        try run(try GraniteCLITests.binary(), ["sql"] + arguments, stdin: stdin)
    }

    /// The `sqlite3` shell, if installed.
    func sqlite3() throws -> URL {
        for path in ["/usr/bin/sqlite3", "/usr/local/bin/sqlite3", "/opt/homebrew/bin/sqlite3"]
        where FileManager.default.isExecutableFile(atPath: path) {
            return URL(fileURLWithPath: path)
        }
        throw XCTSkip("sqlite3 not installed")
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    static let setupSQL = """
        CREATE TABLE people(id INTEGER PRIMARY KEY, name TEXT, score REAL, photo BLOB);
        INSERT INTO people(name, score, photo) VALUES ('Ada', 1.5, X'CAFE');
        INSERT INTO people(name, score, photo) VALUES ('Bob "the builder"', NULL, NULL);
        INSERT INTO people VALUES (10, 'comma, here', -0.25, X'');
        INSERT INTO people VALUES (11, '', 1e20, X'41');
        -- a comment; with a semicolon
        INSERT INTO people(name) VALUES ('semi;colon');
        BEGIN;
        INSERT INTO people(name, score) VALUES ('in transaction', 3.0);
        INSERT INTO people(name, score) VALUES (NULL, 100);
        COMMIT;
        """

    static let queries = [
        "SELECT * FROM people ORDER BY id",
        "SELECT id, name FROM people WHERE score > 1 ORDER BY score DESC LIMIT 3",
        "SELECT name, score * 2, id FROM people WHERE name IS NOT NULL ORDER BY name",
        "SELECT * FROM people WHERE id = 999",
    ]

    func testCSVMatchesSQLite3() throws {
        let sqlite3 = try sqlite3()
        let granite = path("g.granite")
        let reference = path("s.db")
        let setup = try self.granite([granite, Self.setupSQL])
        XCTAssertEqual(setup.status, 0, setup.stderr)
        XCTAssertEqual(setup.text, "")
        let reference1 = try run(sqlite3, ["-batch", "-bail", reference], stdin: Self.setupSQL)
        XCTAssertEqual(reference1.status, 0, reference1.stderr)
        for query in Self.queries {
            for header in [false, true] {
                let flags = header ? ["-csv", "-header"] : ["-csv"]
                let expected = try run(sqlite3, flags + [reference, query])
                XCTAssertEqual(expected.status, 0, expected.stderr)
                let actual = try self.granite((header ? ["--csv", "--header"] : ["--csv"]) + [granite, query])
                XCTAssertEqual(actual.status, 0, actual.stderr)
                XCTAssertEqual(actual.stdout, expected.stdout, "\(query): \(actual.text) vs \(expected.text)")
            }
        }
        // Several queries from standard input: the outputs follow each other.
        let script = Self.queries.joined(separator: ";\n") + ";\n"
        let expected = try run(sqlite3, ["-csv", reference], stdin: script)
        let actual = try self.granite(["--csv", granite], stdin: script)
        XCTAssertEqual(actual.status, 0, actual.stderr)
        XCTAssertEqual(actual.stdout, expected.stdout, "\(actual.text) vs \(expected.text)")
    }

    func testJSONAndTableOutput() throws {
        let db = path("j.granite")
        XCTAssertEqual(try granite([db, Self.setupSQL]).status, 0)
        let result = try granite(["--json", db, "SELECT id, name, score FROM people ORDER BY id LIMIT 3"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let rows = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [[String: Any]], result.text)
        XCTAssertEqual(rows.count, 3)
        XCTAssertEqual(rows[0]["name"] as? String, "Ada")
        XCTAssertEqual(rows[0]["id"] as? Int, 1)
        XCTAssertEqual(rows[0]["score"] as? Double, 1.5)
        XCTAssertTrue(rows[1]["score"] is NSNull)

        let table = try granite([db, "SELECT id, name FROM people WHERE id <= 2 ORDER BY id"])
        XCTAssertEqual(table.status, 0, table.stderr)
        let lines = table.text.split(separator: "\n")
        XCTAssertEqual(lines.count, 4, table.text)
        XCTAssertTrue(lines[0].contains("id") && lines[0].contains("name"), table.text)
        XCTAssertTrue(lines[2].contains("Ada"), table.text)
    }

    func testErrorsStopTheRunAndKeepEarlierStatements() throws {
        let db = path("e.granite")
        let missing = try granite([db, "SELECT * FROM x"])
        XCTAssertNotEqual(missing.status, 0)
        XCTAssertTrue(missing.stderr.contains("granite: error: no such table: x"), missing.stderr)
        XCTAssertEqual(missing.text, "")

        let script = """
            CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT);
            INSERT INTO t(v) VALUES ('kept');
            SELECT v FROM t;
            SELEC 1;
            INSERT INTO t(v) VALUES ('never');
            """
        let syntax = try granite(["--csv", db, script])
        XCTAssertNotEqual(syntax.status, 0)
        XCTAssertEqual(syntax.text, "kept\n")
        XCTAssertTrue(syntax.stderr.hasPrefix("granite: error: near \"SELEC\": syntax error"), syntax.stderr)
        XCTAssertTrue(syntax.stderr.contains("line 4, column 1"), syntax.stderr)

        // The same through standard input, with a runtime error.
        let piped = try granite(
            ["--csv", db],
            stdin: "INSERT INTO t(v) VALUES ('also kept');\nINSERT INTO nope VALUES (1);\nDELETE FROM t;\n")
        XCTAssertNotEqual(piped.status, 0)
        XCTAssertEqual(piped.stderr, "Parse error near line 2: no such table: nope\n")

        let after = try granite(["--csv", db, "SELECT id, v FROM t ORDER BY id"])
        XCTAssertEqual(after.status, 0, after.stderr)
        XCTAssertEqual(after.text, "1,kept\n2,\"also kept\"\n")
    }

    func testErrorsShowTheCaretAndSuggestions() throws {
        let db = path("s.granite")
        let created = try granite([db, "CREATE TABLE people(id INTEGER PRIMARY KEY, name TEXT)"])
        XCTAssertEqual(created.status, 0, created.stderr)

        let syntax = try granite([db, "SELECT name\nFROM people WHERE name = = 'x'"])
        XCTAssertNotEqual(syntax.status, 0)
        let lines = syntax.stderr.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(lines.first, "granite: error: near \"=\": syntax error (line 2, column 26)", syntax.stderr)
        XCTAssertTrue(lines.contains("    FROM people WHERE name = = 'x'"), syntax.stderr)
        XCTAssertTrue(lines.contains("    " + String(repeating: " ", count: 25) + "^"), syntax.stderr)

        let table = try granite([db, "SELECT * FROM peple"])
        XCTAssertNotEqual(table.status, 0)
        XCTAssertEqual(table.stderr, "granite: error: no such table: peple (did you mean 'people'?)\n")
        let column = try granite([db, "SELECT nmae FROM people"])
        XCTAssertEqual(column.stderr, "granite: error: no such column: nmae (did you mean 'name'?)\n")
        let function = try granite([db, "SELECT lenght(name) FROM people"])
        XCTAssertEqual(function.stderr, "granite: error: no such function: lenght (did you mean 'length'?)\n")
    }

    func testPragmasThroughTheCLI() throws {
        let db = path("p.granite")
        let result = try granite(
            [
                "--csv", "--header", db,
                "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT NOT NULL DEFAULT 'x'); PRAGMA user_version = 3; "
                    + "PRAGMA table_info(t); PRAGMA user_version; PRAGMA integrity_check",
            ])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(
            result.text,
            "cid,name,type,notnull,dflt_value,pk\n0,a,INTEGER,0,,1\n1,b,TEXT,1,\"'x'\",0\n"
                + "user_version\n3\nintegrity_check\nok\n")
    }

    func testDotCommandsFromStandardInput() throws {
        let db = path("d.granite")
        let setup = """
            CREATE TABLE zebra(id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE apple(id INTEGER PRIMARY KEY, x REAL);
            CREATE INDEX zebra_name ON zebra(name);
            """
        XCTAssertEqual(try granite([db, setup]).status, 0)
        let result = try granite(
            [db],
            stdin: """
                .tables
                .schema zebra
                .indexes
                SELECT
                  count(*)
                  FROM apple;
                .quit
                SELECT 'not reached';
                """)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(
            result.text,
            """
            apple
            zebra
            CREATE TABLE zebra(id INTEGER PRIMARY KEY, name TEXT);
            CREATE INDEX zebra_name ON zebra(name);
            zebra_name
            count(*)
            --------
                   0

            """)
        let schema = try granite([db], stdin: ".schema\n")
        XCTAssertEqual(
            schema.text,
            """
            CREATE TABLE zebra(id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE apple(id INTEGER PRIMARY KEY, x REAL);
            CREATE INDEX zebra_name ON zebra(name);

            """)
        XCTAssertEqual(try granite([db, "CREATE VIEW named AS SELECT name FROM zebra"]).status, 0)
        let views = try granite([db], stdin: ".tables\n.schema named\n")
        XCTAssertEqual(views.text, "apple\nnamed\nzebra\nCREATE VIEW named AS SELECT name FROM zebra;\n")
        let unknown = try granite([db], stdin: ".bogus\n")
        XCTAssertNotEqual(unknown.status, 0)
        XCTAssertTrue(unknown.stderr.hasPrefix("Error near line 1: unknown command"), unknown.stderr)
    }

    /// `.indexes TABLE` lists the indexes of the tables whose names are LIKE TABLE (case-insensitive, `%` and `_`
    /// wildcards, quotes removed), automatic ones included, as sqlite3's `.indexes` does.
    func testIndexesDotCommandListsTheIndexesOfMatchingTables() throws {
        let db = path("i.granite")
        let setup = """
            CREATE TABLE zebra(id INTEGER PRIMARY KEY, name TEXT, tag TEXT UNIQUE);
            CREATE TABLE apple(x, y);
            CREATE TABLE zz(q);
            CREATE TABLE bare(v);
            CREATE INDEX zebra_name ON zebra(name);
            CREATE INDEX apple_x ON apple(x);
            CREATE INDEX apple_y ON apple(y);
            CREATE INDEX zz_q ON zz(q);
            """
        XCTAssertEqual(try granite([db, setup]).status, 0)
        let cases: [(argument: String, expected: [String])] = [
            ("zebra", ["granite_autoindex_zebra_1", "zebra_name"]),
            ("ZEBRA", ["granite_autoindex_zebra_1", "zebra_name"]),
            ("\"apple\"", ["apple_x", "apple_y"]),
            ("z%", ["granite_autoindex_zebra_1", "zebra_name", "zz_q"]),
            ("z_", ["zz_q"]),
            ("bare", []),
            ("nosuch", []),
        ]
        for (argument, expected) in cases {
            let result = try granite([db], stdin: ".indexes \(argument)\n")
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(result.text, expected.map { $0 + "\n" }.joined(), argument)
        }
        let all = try granite([db], stdin: ".indices\n")
        XCTAssertEqual(all.text, "apple_x\napple_y\ngranite_autoindex_zebra_1\nzebra_name\nzz_q\n")
        let tooMany = try granite([db], stdin: ".indexes a b\n")
        XCTAssertEqual(tooMany.status, 1, tooMany.text)
    }
}
