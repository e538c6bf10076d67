// `granite dump --dialect postgres` loaded by `psql` into a PostgreSQL server started for the test (skipped,
// with the reason, where there is no PostgreSQL).

import Foundation
import XCTest

extension SQLCommandTests {
    /// A PostgreSQL server in a directory of its own, on a Unix socket only, for one test.
    private final class PostgresServer {
        let directory: String
        let port: Int
        private let binaries: String
        private let psql: String

        /// Starts a server; throws XCTSkip when PostgreSQL or `runuser` (the server refuses to run as root)
        /// is not there.
        init() throws {
            let fileManager = FileManager.default
            let versions = (try? fileManager.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
            guard let version = versions.sorted().last,
                fileManager.isExecutableFile(atPath: "/usr/lib/postgresql/\(version)/bin/initdb"),
                fileManager.isExecutableFile(atPath: "/usr/bin/psql"),
                fileManager.isExecutableFile(atPath: "/usr/sbin/runuser") || fileManager.isExecutableFile(atPath: "/sbin/runuser")
            else {
                print("PostgresDumpTests: skipped: no PostgreSQL server binaries, psql or runuser")
                throw XCTSkip("PostgreSQL is not installed")
            }
            binaries = "/usr/lib/postgresql/\(version)/bin"
            psql = "/usr/bin/psql"
            directory = "/tmp/granite-pg-\(UUID().uuidString.prefix(8))"
            port = Int.random(in: 20_000..<60_000)
            try fileManager.createDirectory(atPath: directory, withIntermediateDirectories: false)
            try Self.run("/bin/chown", ["postgres", directory])
            let initdb = try Self.run("/usr/sbin/runuser", ["-u", "postgres", "--", binaries + "/initdb", "-D",
                directory + "/data", "-A", "trust", "-U", "postgres"])
            guard initdb.status == 0 else {
                print("PostgresDumpTests: skipped: initdb failed: \(initdb.output)")
                throw XCTSkip("initdb failed")
            }
            // Through python3, whose subprocess closes inherited descriptors: the server must not keep the
            // socket Foundation's Process watches to notice that its child ended (waitUntilExit would never return).
            guard fileManager.isExecutableFile(atPath: "/usr/bin/python3") else {
                print("PostgresDumpTests: skipped: no python3 to start the server with")
                throw XCTSkip("python3 is not installed")
            }
            let start = try Self.run("/usr/bin/python3", [
                "-c", "import subprocess, sys; sys.exit(subprocess.call(sys.argv[1:], stdin=subprocess.DEVNULL))",
                "/usr/sbin/runuser", "-u", "postgres", "--", binaries + "/pg_ctl", "-D",
                directory + "/data", "-o", "-k \(directory) -c listen_addresses='' -p \(port)", "-w", "-l",
                directory + "/log", "start"])
            guard start.status == 0 else {
                print("PostgresDumpTests: skipped: the server did not start: \(start.output)")
                throw XCTSkip("the PostgreSQL server did not start")
            }
        }

        deinit {
            _ = try? Self.run("/usr/sbin/runuser", ["-u", "postgres", "--", binaries + "/pg_ctl", "-D",
                directory + "/data", "-m", "immediate", "stop"])
            try? FileManager.default.removeItem(atPath: directory)
        }

        /// Runs `psql` with `arguments` against the server's `postgres` database.
        func psql(_ arguments: [String]) throws -> (status: Int32, output: String) {
            try Self.run(psql, ["-h", directory, "-p", "\(port)", "-U", "postgres", "-d", "postgres", "-X",
                "-v", "ON_ERROR_STOP=1"] + arguments)
        }

        @discardableResult
        static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            let output = FileManager.default.temporaryDirectory.appendingPathComponent("pg-\(UUID().uuidString)")
            guard FileManager.default.createFile(atPath: output.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown)
            }
            defer { try? FileManager.default.removeItem(at: output) }
            let handle = try FileHandle(forWritingTo: output)
            process.standardOutput = handle
            process.standardError = handle
            try process.run()
            process.waitUntilExit()
            try handle.close()
            return (process.terminationStatus, String(decoding: try Data(contentsOf: output), as: UTF8.self))
        }
    }

    static let postgresSetupSQL = """
        CREATE TABLE "Item"(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, score REAL, data BLOB,
            qty INT, price NUMERIC, flag BOOLEAN, twice INT AS (qty * 2));
        INSERT INTO "Item"(name, score, data, qty, price, flag) VALUES
            ('it''s \\ back', 0.1, X'00FF', 3, 1.5, 1), ('two' || char(10) || 'lines é🙂', 1e300, X'', NULL, 7, 0),
            ('', -1e999, NULL, -9223372036854775808, NULL, NULL), ('x', 1e999, X'DEADBEEF', 9223372036854775807, 2, 1),
            ('last', 0.30000000000000004, X'01', 0, 0.25, 0);
        DELETE FROM "Item" WHERE name = 'last';
        CREATE TABLE pair(a TEXT, b INTEGER, v REAL, PRIMARY KEY(a, b)) WITHOUT ROWID;
        INSERT INTO pair VALUES ('k', 2, 123456789.12345678), ('k', 1, -2.5e-300), ('j', 3, NULL);
        CREATE INDEX item_name ON "Item"(name);
        CREATE VIEW names AS SELECT name FROM "Item";
        """

    func testPostgresDialectLoadsIntoPsql() throws {
        let original = path("pg.granite")
        XCTAssertEqual(try granite([original], stdin: Self.postgresSetupSQL).status, 0)
        let dump = try graniteDump([original, "--dialect", "postgres"])
        XCTAssertEqual(dump.status, 0, dump.stderr)
        XCTAssertTrue(dump.text.contains("\"id\" bigint GENERATED BY DEFAULT AS IDENTITY"), dump.text)
        XCTAssertTrue(dump.text.contains("-- CREATE VIEW names AS SELECT name FROM \"Item\""), dump.text)
        XCTAssertFalse(dump.text.contains("twice"), dump.text)

        let server = try PostgresServer()
        let script = server.directory + "/dump.sql"
        try Data(dump.stdout).write(to: URL(fileURLWithPath: script))
        let load = try server.psql(["-q", "-f", script])
        XCTAssertEqual(load.status, 0, load.output)

        // The same rows: text and blobs by their bytes, reals by their value, integers and NULLs as they are.
        let granite = try granite(["--list", original, """
            SELECT id, hex(name), quote(score), hex(data), qty, price, flag FROM "Item" ORDER BY id;
            SELECT a, b, quote(v) FROM pair ORDER BY a, b
            """])
        let postgres = try server.psql(["-At", "-F", "|", "-c", """
            SELECT id, upper(encode(convert_to(name, 'UTF8'), 'hex')), score, upper(encode(data, 'hex')), qty, price,
            flag FROM "Item" ORDER BY id
            """, "-c", "SELECT a, b, v FROM pair ORDER BY a, b"])
        XCTAssertEqual(postgres.status, 0, postgres.output)
        let expectedRows = granite.text.split(separator: "\n").map { $0.split(separator: "|", omittingEmptySubsequences: false) }
        let actualRows = postgres.output.split(separator: "\n").map { $0.split(separator: "|", omittingEmptySubsequences: false) }
        XCTAssertEqual(actualRows.count, 7, postgres.output)
        XCTAssertEqual(actualRows.count, expectedRows.count)
        let realColumns: [Int: Int] = [7: 2, 3: 2]  // fields holding reals, by row width
        for (expected, actual) in zip(expectedRows, actualRows) {
            XCTAssertEqual(expected.count, actual.count, "\(expected) \(actual)")
            for (index, (e, a)) in zip(expected, actual).enumerated() {
                if realColumns[expected.count] == index, e != "NULL" {
                    XCTAssertEqual(Double(String(e)), Double(String(a)), "\(expected) \(actual)")
                } else {
                    XCTAssertEqual(e == "NULL" ? "" : e, a, "\(expected) \(actual)")
                }
            }
        }
        // The identity goes on after the AUTOINCREMENT counter (5: the deleted row's id is not reused).
        let next = try server.psql(["-At", "-c", "INSERT INTO \"Item\"(name) VALUES ('new') RETURNING id"])
        XCTAssertEqual(next.output.split(separator: "\n").first, "6", next.output)
    }

    func testPostgresDialectRefusesWhatPostgresCannotHold() throws {
        let file = path("untranslatable.granite")
        XCTAssertEqual(try granite([file], stdin: "CREATE TABLE t(n INTEGER); INSERT INTO t VALUES (1), ('word');").status, 0)
        let mismatch = try graniteDump([file, "--dialect", "postgres"])
        XCTAssertEqual(mismatch.status, 1)
        XCTAssertEqual(mismatch.stderr, "granite: error: cannot translate t.n to PostgreSQL: a row holds a text, which PostgreSQL's bigint cannot hold\n")
        let nul = path("nul.granite")
        XCTAssertEqual(try granite([nul], stdin: "CREATE TABLE t(s TEXT); INSERT INTO t VALUES ('a' || char(0) || 'b');").status, 0)
        let result = try graniteDump([nul, "--dialect", "postgres"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("a text with a NUL character"), result.stderr)
        XCTAssertNotEqual(try graniteDump([file, "--dialect", "mysql"]).status, 0)
    }
}
