// `granite sql --line/--list/--quote/--box/--markdown` and the `.mode`, `.headers` and `.dump` dot commands,
// byte for byte against the `sqlite3` shell.

import Foundation
import XCTest

extension SQLCommandTests {
    /// Values that exercise each mode's rules: NULL, empty text, reals, a line feed, CR LF, a tab, a control
    /// character, quotes, non-ASCII, blobs, wide and narrow columns.
    static let modeSetupSQL = """
        CREATE TABLE m(id INTEGER PRIMARY KEY, name TEXT, score REAL, note, data BLOB);
        INSERT INTO m VALUES (1, 'Ada', 1.5, NULL, X'CAFE');
        INSERT INTO m VALUES (2, 'é🙂 long name', -0.0, 'x', X'');
        INSERT INTO m VALUES (3, 'two' || char(10) || 'lines', 1e20, '', 'it''s');
        INSERT INTO m VALUES (4, 'tab' || char(9) || 'bed', 0.1, 'cr' || char(13, 10) || 'lf', X'41');
        INSERT INTO m VALUES (5, 'ctl' || char(1) || 'x', 0.30000000000000004, '"q"', NULL);
        INSERT INTO m VALUES (6, NULL, 1e999, 12, X'00');
        """

    static let modeQueries = [
        "SELECT * FROM m ORDER BY id",
        "SELECT id AS a, name AS longer_name FROM m WHERE id < 3 ORDER BY id",
        "SELECT 1 AS x WHERE 0",
        "SELECT id FROM m WHERE id <= 2 ORDER BY id; SELECT name AS n, id FROM m WHERE id = 1",
        "SELECT -1e999, 9223372036854775807, 'a''b', X'00FF'",
    ]

    func testOutputModesMatchSQLite3() throws {
        let sqlite3 = try sqlite3()
        let graniteFile = path("modes.granite")
        let sqliteFile = path("modes.sqlite")
        XCTAssertEqual(try granite([graniteFile], stdin: Self.modeSetupSQL).status, 0)
        XCTAssertEqual(try run(sqlite3, [sqliteFile], stdin: Self.modeSetupSQL).status, 0)
        let modes: [[String]] = [
            ["line"], ["list"], ["list", "header"], ["quote"], ["quote", "header"], ["box"], ["markdown"],
        ]
        for mode in modes {
            for query in Self.modeQueries {
                let expected = try run(sqlite3, mode.map { "-" + $0 } + [sqliteFile, query])
                XCTAssertEqual(expected.status, 0, expected.stderr)
                let actual = try granite(mode.map { "--" + $0 } + [graniteFile, query])
                XCTAssertEqual(actual.status, 0, actual.stderr)
                XCTAssertEqual(actual.text, expected.text, "\(mode) \(query)")
            }
        }
        let both = try granite(["--box", "--line", graniteFile, "SELECT 1"])
        XCTAssertNotEqual(both.status, 0)
        XCTAssertTrue(both.stderr.contains("--line, --box cannot be used together"), both.stderr)
    }

    /// Values that end with a control character take no extra line in box and markdown mode (a break in the
    /// middle does), and line mode pads non-ASCII column names by their bytes: both as in sqlite3 3.40.
    func testTrailingControlCharactersAndNonASCIINamesMatchSQLite3() throws {
        let sqlite3 = try sqlite3()
        let queries = [
            "SELECT 'a' || char(10) AS x, 'b' AS y UNION ALL SELECT 'c', 'd'",
            "SELECT x'01' AS b, 'e' || char(13, 10) AS crlf, 'f' || char(13) AS cr, char(10) AS lf",
            "SELECT 'g' || char(10, 10) AS two, 'h' || char(13, 10, 10) AS three, 'i' || char(1) || 'j' AS mid",
            "SELECT 1 AS \"x\n\", 'k' || char(9) AS tab",
            "SELECT 1 AS \"éé\", 2 AS abcdef, 3 AS \"🙂\" UNION ALL SELECT 4, 5, 6",
            "SELECT 1 AS \"ééé\", 'l' || char(10) AS v",
        ]
        for mode in ["box", "markdown", "line"] {
            for query in queries {
                let expected = try run(sqlite3, ["-" + mode, ":memory:", query])
                XCTAssertEqual(expected.status, 0, expected.stderr)
                let actual = try granite(["--" + mode, ":memory:", query])
                XCTAssertEqual(actual.status, 0, actual.stderr)
                XCTAssertEqual(actual.text, expected.text, "\(mode) \(query)")
            }
        }
        // What sqlite3 prints, spelled out, so that a change in either shows here too.
        let box = try granite(["--box", ":memory:", "SELECT 'a' || char(10) AS x UNION ALL SELECT 'b'"])
        XCTAssertEqual(box.text, "┌───┐\n│ x │\n├───┤\n│ a │\n│ b │\n└───┘\n")
        let line = try granite(["--line", ":memory:", "SELECT 1 AS \"éé\", 2 AS abcdef"])
        XCTAssertEqual(line.text, "  éé = 1\nabcdef = 2\n")
    }

    func testModeAndHeadersDotCommandsMatchSQLite3() throws {
        let sqlite3 = try sqlite3()
        let graniteFile = path("dot.granite")
        let sqliteFile = path("dot.sqlite")
        XCTAssertEqual(try granite([graniteFile], stdin: Self.modeSetupSQL).status, 0)
        XCTAssertEqual(try run(sqlite3, [sqliteFile], stdin: Self.modeSetupSQL).status, 0)
        let script = """
            .mode list
            SELECT id, name FROM m WHERE id < 3 ORDER BY id;
            .headers on
            SELECT id, name FROM m WHERE id < 3 ORDER BY id;
            .mode quote
            SELECT id, score FROM m WHERE id < 3 ORDER BY id;
            .mode csv
            SELECT id, note FROM m WHERE id > 3 ORDER BY id;
            .headers off
            .mode line
            SELECT id, note FROM m WHERE id > 4 ORDER BY id;
            .mode markdown
            SELECT id, name FROM m WHERE id = 1;
            .mode box
            SELECT id, name FROM m WHERE id = 3;

            """
        let expected = try run(sqlite3, [sqliteFile], stdin: script)
        XCTAssertEqual(expected.stderr, "")
        let actual = try granite([graniteFile], stdin: script)
        XCTAssertEqual(actual.stderr, "")
        XCTAssertEqual(actual.text, expected.text)

        let badMode = try granite([graniteFile], stdin: ".mode tabs\n")
        XCTAssertEqual(badMode.status, 1)
        XCTAssertTrue(badMode.stderr.contains("unknown mode \"tabs\""), badMode.stderr)
        let badHeaders = try granite([graniteFile], stdin: ".headers maybe\n")
        XCTAssertEqual(badHeaders.status, 1)
    }

    func testDumpDotCommandWritesWhatGraniteDumpWrites() throws {
        let file = path("dotdump.granite")
        let setup = Self.modeSetupSQL + "CREATE TABLE other(x); INSERT INTO other VALUES (1);"
        XCTAssertEqual(try granite([file], stdin: setup).status, 0)
        let whole = try granite([file], stdin: ".dump\n")
        XCTAssertEqual(whole.status, 0, whole.stderr)
        XCTAssertEqual(whole.text, try graniteDump([file]).text)
        XCTAssertTrue(whole.text.contains("INSERT INTO other VALUES(1);"), whole.text)
        let one = try granite([file], stdin: ".dump other\n")
        XCTAssertEqual(one.text, try graniteDump([file, "other"]).text)
        XCTAssertFalse(one.text.contains("CREATE TABLE m"), one.text)
        let unknown = try granite([file], stdin: ".dump nope\n")
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.stderr.contains("no such table: nope"), unknown.stderr)
    }
}
