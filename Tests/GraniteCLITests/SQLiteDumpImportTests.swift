// The output of `sqlite3 FILE .dump`, piped into `granite sql NEW`, makes a database that reads back as the SQLite
// one does: every table's rows and types, the views, the AUTOINCREMENT sequence (`sqlite_sequence`), and triggers
// that still fire. The dump's statements arrive line by line, so this also checks that a trigger's body (whose
// statements end with `;`) is collected up to its END, as the sqlite3 shell does.

import Foundation
import XCTest

@testable import granite

extension SQLCommandTests {
    /// A SQLite database using what a dump carries: AUTOINCREMENT, NOT NULL, UNIQUE, COLLATE, CHECK, DEFAULT,
    /// foreign keys with actions, generated columns (virtual and stored), a STRICT table, partial and expression
    /// indexes, views with and without column lists, triggers (one with a multi-statement body, one raising),
    /// JSON text, blobs, awkward reals and texts (quotes, newlines, tabs, non-ASCII).
    static let dumpSetupSQL = """
        PRAGMA foreign_keys = ON;
        CREATE TABLE author(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL COLLATE NOCASE UNIQUE,
            born INTEGER CHECK (born > 0), bio TEXT DEFAULT 'n/a');
        CREATE TABLE book(id INTEGER PRIMARY KEY, author_id INTEGER REFERENCES author(id) ON DELETE CASCADE,
            title TEXT, price REAL, meta TEXT, cover BLOB,
            title_upper TEXT GENERATED ALWAYS AS (upper(title)) VIRTUAL,
            price_cents INTEGER GENERATED ALWAYS AS (CAST(price * 100 AS INTEGER)) STORED);
        CREATE TABLE log(at TEXT DEFAULT CURRENT_TIMESTAMP, what TEXT);
        CREATE TABLE typed(k INTEGER PRIMARY KEY, v ANY, n REAL, t TEXT) STRICT;
        CREATE TABLE plain(a, b, c);
        CREATE INDEX book_author ON book(author_id);
        CREATE UNIQUE INDEX book_title ON book(title COLLATE NOCASE) WHERE title IS NOT NULL;
        CREATE INDEX book_expr ON book(lower(title), price DESC);
        CREATE VIEW cheap_books AS SELECT b.title, a.name FROM book b JOIN author a ON a.id = b.author_id
            WHERE b.price < 20;
        CREATE VIEW counts(author, n) AS SELECT author_id, count(*) FROM book GROUP BY author_id;
        CREATE TRIGGER book_log AFTER INSERT ON book BEGIN
            INSERT INTO log(at, what) VALUES ('fixed', 'added ' || new.title);
            UPDATE author SET bio = 'has books; see log' WHERE id = new.author_id AND bio IS NULL;
        END;
        CREATE TRIGGER author_del BEFORE DELETE ON author WHEN old.name = 'keep' BEGIN
            SELECT RAISE(ABORT, 'cannot delete keep; it is kept');
        END;
        INSERT INTO author(name, born, bio) VALUES ('Ada', 1815, 'It''s "quoted"' || char(10) || 'newline'),
            ('Émile', 1840, NULL), ('keep', 1, NULL);
        INSERT INTO book(author_id, title, price, meta, cover) VALUES
            (1, 'Notes', 12.5, '{"tags":["math","engine"],"pages":42}', x'00ff10'),
            (2, 'Nana', 0.1, '{"tags":[]}', NULL), (3, NULL, 1e300, NULL, x''),
            (1, 'Big', -0.0, '[1,2.5,"x"]', zeroblob(3));
        INSERT INTO typed VALUES (1, 1.5, 2, 'a'), (2, x'01', 3.25, 'b'), (3, 'text', NULL, NULL),
            (4, 9223372036854775807, -1e-300, '');
        INSERT INTO plain VALUES (1, 2.0, 'x'), (NULL, x'', ''),
            (-9223372036854775808, 0.30000000000000004, 'tab' || char(9) || 'here');
        DELETE FROM author WHERE name = 'Émile';
        INSERT INTO author(name) VALUES ('Zed');
        """

    /// Queries whose CSV output must be the same from the SQLite original and the imported Granite database.
    static let dumpProbes = [
        "SELECT *, typeof(born), typeof(bio) FROM author ORDER BY rowid",
        "SELECT *, title_upper, price_cents, typeof(price), hex(cover) FROM book ORDER BY rowid",
        "SELECT * FROM log ORDER BY rowid", "SELECT *, typeof(v), typeof(n), typeof(t) FROM typed ORDER BY rowid",
        "SELECT *, typeof(a), typeof(b), typeof(c), quote(b) FROM plain ORDER BY rowid",
        "SELECT * FROM sqlite_sequence ORDER BY name", "SELECT * FROM cheap_books ORDER BY 1",
        "SELECT * FROM counts ORDER BY 1",
        "SELECT title FROM book WHERE title = 'notes' COLLATE NOCASE AND lower(title) = 'notes'",
        // The schema objects the application made (the internal ones are named per engine).
        "SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite%' "
            + "AND name NOT LIKE 'granite%' ORDER BY name",
    ]

    func testSQLiteDumpLoadsAndReadsBackIdentically() throws {
        let sqlite3 = try sqlite3()
        let reference = path("original.sqlite")
        let imported = path("imported.granite")
        let setup = try run(sqlite3, [reference], stdin: Self.dumpSetupSQL)
        XCTAssertEqual(setup.status, 0, setup.stderr)
        let dump = try run(sqlite3, [reference, ".dump"])
        XCTAssertEqual(dump.status, 0, dump.stderr)
        XCTAssertTrue(dump.text.contains("CREATE TRIGGER book_log"), dump.text)
        XCTAssertTrue(dump.text.contains("INSERT INTO sqlite_sequence"), dump.text)

        let load = try granite([imported], stdin: dump.text)
        XCTAssertEqual(load.status, 0, load.stderr)
        XCTAssertEqual(load.stderr, "")
        for query in Self.dumpProbes {
            let expected = try run(sqlite3, ["-csv", reference, query])
            let actual = try granite(["--csv", imported, query])
            XCTAssertEqual(actual.status, 0, "\(query): \(actual.stderr)")
            XCTAssertEqual(actual.text, expected.text, query)
        }

        // The triggers, the foreign key actions and the sequence still work: the same writes leave the same rows
        // (foreign keys switched on in both: Debian's sqlite3 shell enables them by default, SQLite does not).
        for write in [
            "INSERT INTO book(author_id, title, price) VALUES (3, 'New', 5)",
            "INSERT INTO author(name) VALUES ('Later')", "PRAGMA foreign_keys = ON; DELETE FROM author WHERE name = 'Ada'",
        ] {
            XCTAssertEqual(try run(sqlite3, [reference, write]).status, 0, write)
            let actual = try granite([imported, write])
            XCTAssertEqual(actual.status, 0, "\(write): \(actual.stderr)")
        }
        let refused = try granite([imported, "DELETE FROM author WHERE name = 'keep'"])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("cannot delete keep; it is kept"), refused.stderr)
        for query in Self.dumpProbes {
            let expected = try run(sqlite3, ["-csv", reference, query])
            let actual = try granite(["--csv", imported, query])
            XCTAssertEqual(actual.text, expected.text, "after the writes: \(query)")
        }
    }

    /// Statements of a script end at a `;`, but a trigger's body statements do not end the CREATE TRIGGER: it
    /// ends at the `;` after its END (the sqlite3 shell's `sqlite3_complete`).
    func testScriptStatementsEndAfterATriggersEnd() {
        let script = """
            CREATE TEMP TRIGGER t1 AFTER INSERT ON a BEGIN INSERT INTO b VALUES (';'); DELETE FROM c; END;
            SELECT 'end;'; create trigger "x" before delete on a begin select 1;end ;
            EXPLAIN SELECT 1; CREATE TABLE end(x); CREATE TRIGGER t2 AFTER DELETE ON a BEGIN
              SELECT 1; -- END;
              SELECT 2; /* END; */ END; SELECT 3
            """
        let split = SQLScanner.split(script)
        XCTAssertEqual(
            split.complete.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) },
            [
                "CREATE TEMP TRIGGER t1 AFTER INSERT ON a BEGIN INSERT INTO b VALUES (';'); DELETE FROM c; END;",
                "SELECT 'end;';", "create trigger \"x\" before delete on a begin select 1;end ;",
                "EXPLAIN SELECT 1;", "CREATE TABLE end(x);",
                "CREATE TRIGGER t2 AFTER DELETE ON a BEGIN\n  SELECT 1; -- END;\n  SELECT 2; /* END; */ END;",
            ])
        XCTAssertEqual(split.rest, " SELECT 3")
        XCTAssertEqual(SQLScanner.split("CREATE TRIGGER t AFTER INSERT ON a BEGIN SELECT 1;").complete, [])
    }
}
