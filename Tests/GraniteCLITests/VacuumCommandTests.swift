// `granite vacuum`, `granite backup` (while another process writes) and `granite recover` on seeded damaged files.

import Foundation
import GraniteStorage
import GraniteTestSupport
import XCTest

final class VacuumCommandTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory(prefix: "granite-vacuum").url
    }

    private func granite(_ arguments: String...) throws -> RunResult {
        try GraniteCLITests.run(arguments, in: directory)
    }

    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// The single value `sql` selects from `file`.
    private func value(_ file: String, _ sql: String) throws -> String {
        let result = try granite("sql", "--list", file, sql)
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A database of `rows` rows in `t` (and a few in `u`, with another column count), `pageSize`-byte pages.
    private func makeDatabase(_ file: String, rows: Int, pageSize: Int = 1024, deleting: Bool = false) throws {
        let sql = """
            PRAGMA page_size = \(pageSize);
            CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score REAL);
            CREATE INDEX t_name ON t(name);
            CREATE TABLE u(a, b, c, d);
            INSERT INTO u VALUES (1, 'x', 2.5, NULL), (2, 'y', NULL, x'00ff');
            CREATE VIEW tv AS SELECT count(*) AS n FROM t;
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < \(rows))
            INSERT INTO t SELECT x, 'name ' || x || ' ' || substr('abcdefghijklmnopqrstuvwxyz', 1 + x % 26), x / 7.0 FROM c;
            \(deleting ? "DELETE FROM t WHERE id % 5 != 0;" : "")
            """
        let result = try granite("sql", file, sql)
        XCTAssertEqual(result.status, 0, result.stderr)
    }

    func testVacuumShrinksTheFileWithProgressAndKeepsTheRows() throws {
        let file = path("db.granite")
        try makeDatabase(file, rows: 5_000, deleting: true)
        let before = try value(file, "SELECT count(*) || ' ' || sum(id) || ' ' || sum(score) FROM t")
        let size = { ((try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? NSNumber)?.intValue ?? 0 }
        let sizeBefore = size()
        let result = try granite("vacuum", file, "--progress")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("rebuilding: tree"), result.stderr)
        XCTAssertTrue(result.stderr.contains("installing:"), result.stderr)
        XCTAssertTrue(result.stdout.contains("after"), result.stdout)
        XCTAssertLessThan(size(), sizeBefore / 2)
        XCTAssertEqual(try value(file, "SELECT count(*) || ' ' || sum(id) || ' ' || sum(score) FROM t"), before)
        XCTAssertEqual(try value(file, "PRAGMA freelist_count"), "0")
        XCTAssertEqual(try granite("check", file).status, 0)
        let json = try granite("vacuum", file, "--json")
        XCTAssertEqual(json.status, 0, json.stderr)
        XCTAssertEqual(json.stderr, "", "no progress without a terminal or --progress")
        let report = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        XCTAssertEqual(
            report?["pagesAfter"] as? Int, report?["pagesBefore"] as? Int, "a second vacuum has nothing to free")
    }

    func testBackupWhileAnotherProcessWritesHoldsOneCommit() throws {
        let file = path("live.granite")
        XCTAssertEqual(
            try granite(
                "sql", file,
                "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT); CREATE TABLE meta(n INTEGER);"
                    + " INSERT INTO meta VALUES (0)"
            ).status, 0)
        // The writer: each transaction adds a row and counts it, so every commit has count(t) = meta.n.
        let script = directory.appendingPathComponent("writes.sql")
        var text = ""
        for k in 1...3_000 {
            text +=
                "BEGIN; INSERT INTO t(v) VALUES ('value \(k) \(String(repeating: "w", count: k % 50))');"
                + " UPDATE meta SET n = n + 1; COMMIT;\n"
        }
        try text.write(to: script, atomically: true, encoding: .utf8)
        let writer = Process()
        writer.executableURL = try GraniteCLITests.binary()
        writer.arguments = ["sql", file]
        writer.standardInput = try FileHandle(forReadingFrom: script)
        writer.standardOutput = FileHandle.nullDevice
        writer.currentDirectoryURL = directory
        try writer.run()
        defer { if writer.isRunning { writer.terminate() } }
        var copies: [(path: String, rows: Int)] = []
        for attempt in 0..<4 {
            Thread.sleep(forTimeInterval: 0.2)
            let copy = path("copy\(attempt).granite")
            let result = try granite("backup", file, copy)
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(try granite("check", copy).status, 0)
            let counts = try value(copy, "SELECT (SELECT count(*) FROM t) || ' ' || (SELECT n FROM meta)")
                .split(separator: " ")
            XCTAssertEqual(counts.count, 2)
            XCTAssertEqual(counts.first, counts.last, "the copy holds one commit")
            copies.append((copy, Int(counts.first ?? "") ?? -1))
        }
        writer.waitUntilExit()
        XCTAssertEqual(writer.terminationStatus, 0)
        XCTAssertEqual(try value(file, "SELECT count(*) FROM t"), "3000")
        XCTAssertEqual(copies.map(\.rows), copies.map(\.rows).sorted(), "later copies hold later commits")
        print("backup copies while writing: \(copies.map(\.rows)) rows")
        let refused = try granite("backup", file, copies[0].path)
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("output file already exists"), refused.stderr)
    }

    /// Whether `path` or one of its side files (log, shared memory) exists.
    private func anyFileExists(_ path: String) -> Bool {
        [path, path + "-wal", path + "-shm"].contains { FileManager.default.fileExists(atPath: $0) }
    }

    /// `backup`, `vacuum --into` and SQL's `VACUUM INTO` from a file with a damaged page fail with the page named
    /// and leave nothing at the destination (a second try gets the same error, not "output file already
    /// exists"); `vacuum` in place fails the same way; the damaged file is left byte for byte as it was.
    func testBackupAndVacuumOfADamagedFileFailWithoutLeavingFiles() throws {
        let file = path("damaged.granite")
        try makeDatabase(file, rows: 2_000)
        let (_, leaves) = try leavesOfT(file, rows: 2_000)
        let page = try XCTUnwrap(leaves.keys.sorted().dropFirst(leaves.count / 2).first)
        try damage(file, page: page)
        let original = try Data(contentsOf: URL(fileURLWithPath: file))
        let copy = path("copy.granite")
        let commands = [
            ["backup", file, copy], ["vacuum", file, "--into", copy], ["sql", file, "VACUUM INTO '\(copy)'"],
            ["vacuum", file],
        ]
        for arguments in commands {
            for _ in 0..<2 {
                let result = try GraniteCLITests.run(arguments, in: directory)
                XCTAssertEqual(result.status, 1, "\(arguments)")
                XCTAssertTrue(
                    result.stderr.contains("database is corrupt: page \(page): page checksum mismatch"),
                    "\(arguments): \(result.stderr)")
                XCTAssertFalse(anyFileExists(copy), "\(arguments) left a file behind")
            }
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: file)), original, "the input is untouched")
    }

    func testBackupAndVacuumOfAMissingFileFailAndCreateNothing() throws {
        let missing = path("missing.granite")
        let copy = path("copy.granite")
        for arguments in [["backup", missing, copy], ["vacuum", missing, "--into", copy], ["vacuum", missing]] {
            let result = try GraniteCLITests.run(arguments, in: directory)
            XCTAssertEqual(result.status, 1, "\(arguments)")
            XCTAssertTrue(result.stderr.contains("\(missing): no such file"), "\(arguments): \(result.stderr)")
            XCTAssertFalse(anyFileExists(missing), "\(arguments) created the input")
            XCTAssertFalse(anyFileExists(copy), "\(arguments) created the copy")
        }
        // A destination that exists, with content, is refused before anything is read or written.
        let file = path("sound.granite")
        try makeDatabase(file, rows: 100)
        let occupied = path("occupied.txt")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: occupied))
        let refused = try granite("backup", file, occupied)
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("output file already exists"), refused.stderr)
        XCTAssertEqual(try String(contentsOfFile: occupied, encoding: .utf8), "keep me")
    }

    // MARK: Recover

    /// The rowids of each leaf of `t` in the undamaged `file`, found with the page scan, which the test first checks
    /// against what SQL reads.
    private func leavesOfT(_ file: String, rows: Int) throws -> (root: PageNumber, leaves: [PageNumber: [Int64]]) {
        let handle = try POSIXFileSystem().open(file, mode: .readOnly).file
        defer { handle.close() }
        let scan = try SalvageScan(file: handle)
        XCTAssertEqual(scan.damagedPages, [])
        let root = try XCTUnwrap(PageNumber(try value(file, "SELECT rootpage FROM sqlite_schema WHERE name = 't'")))
        var leaves: [PageNumber: [Int64]] = [:]
        for leaf in scan.tableLeaves where leaf.top == root { leaves[leaf.page] = leaf.rows.map(\.rowid) }
        XCTAssertEqual(leaves.values.flatMap { $0 }.sorted(), (1...Int64(rows)).map { $0 })
        return (root, leaves)
    }

    /// Overwrites a few bytes in the middle of `page`.
    private func damage(_ file: String, page: PageNumber, pageSize: Int = 1024) throws {
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: file))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(Int(page - 1) * pageSize + pageSize / 2))
        handle.write(Data([0xde, 0xad, 0xbe, 0xef]))
    }

    private func recover(_ file: String, _ out: String) throws -> (status: Int32, report: [String: Any]) {
        let result = try granite("recover", file, out, "--json")
        XCTAssertTrue(result.exited, result.stderr)
        let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return (result.status, try XCTUnwrap(report, result.stdout + result.stderr))
    }

    private func table(_ report: [String: Any], _ name: String) -> [String: Any]? {
        (report["tables"] as? [[String: Any]])?.first { $0["name"] as? String == name }
    }

    func testRecoverSkipsDamagedLeavesAndKeepsEveryOtherRow() throws {
        var rng = SplitMix64(seed: testSeed())
        let file = path("damaged.granite")
        let rows = 3_000
        try makeDatabase(file, rows: rows)
        let (_, leaves) = try leavesOfT(file, rows: rows)
        XCTAssertGreaterThan(leaves.count, 10)
        var damaged: Set<PageNumber> = []
        while damaged.count < 3 { damaged.insert(leaves.keys.sorted()[Int(rng.next(below: UInt64(leaves.count)))]) }
        for page in damaged { try damage(file, page: page) }
        let original = try Data(contentsOf: URL(fileURLWithPath: file))
        let lost = Set(damaged.flatMap { leaves[$0]! })

        let out = path("recovered.granite")
        let (status, report) = try recover(file, out)
        XCTAssertEqual(status, 2, "rows were lost")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: file)), original, "the input is untouched")
        XCTAssertEqual(Set((report["damagedPages"] as? [Int]) ?? []), Set(damaged.map { Int($0) }))
        let t = try XCTUnwrap(table(report, "t"))
        XCTAssertEqual(t["rowsRecovered"] as? Int, rows - lost.count)
        XCTAssertEqual(t["pagesLost"] as? Int, damaged.count)
        XCTAssertEqual(t["leafPages"] as? Int, leaves.count - damaged.count)
        XCTAssertEqual(table(report, "u")?["rowsRecovered"] as? Int, 2)
        let expected = (1...Int64(rows)).filter { !lost.contains($0) }
        XCTAssertEqual(
            try value(out, "SELECT count(*) || ' ' || sum(id) FROM t"), "\(expected.count) \(expected.reduce(0, +))")
        XCTAssertEqual(
            try value(out, "SELECT name FROM t WHERE id = \(expected[0])"),
            "name \(expected[0]) " + String("abcdefghijklmnopqrstuvwxyz".dropFirst(Int(expected[0]) % 26)))
        XCTAssertEqual(try value(out, "SELECT n FROM tv"), "\(expected.count)")
        XCTAssertEqual(try granite("check", out).status, 0, "the recovered database is sound")
        XCTAssertEqual(try value(out, "SELECT count(*) FROM t WHERE name > ''"), "\(expected.count)")
        XCTAssertEqual(try granite("recover", file, out).status, 1, "an existing OUT is refused")
    }

    func testRecoverPlacesLeavesWhoseRootIsLostByTheirShape() throws {
        let file = path("rootless.granite")
        let rows = 2_000
        try makeDatabase(file, rows: rows)
        let (root, leaves) = try leavesOfT(file, rows: rows)
        try damage(file, page: root)
        let out = path("recovered.granite")
        let (status, report) = try recover(file, out)
        XCTAssertEqual(status, 2)
        let t = try XCTUnwrap(table(report, "t"))
        XCTAssertEqual(t["rowsRecovered"] as? Int, rows, "every leaf survived")
        XCTAssertEqual(t["leavesPlacedByShape"] as? Int, leaves.count)
        XCTAssertEqual(t["pagesLost"] as? Int, 1, "the root")
        XCTAssertEqual(t["rootLost"] as? Bool, true)
        XCTAssertEqual(report["damagedPages"] as? [Int], [Int(root)])
        XCTAssertEqual(try value(out, "SELECT sum(id) FROM t"), "\(rows * (rows + 1) / 2)")
    }

    /// The pages of `file` of `type` in the tree `tree`, from `granite pages --json`.
    private func pages(of file: String, type: String, tree: String) throws -> [PageNumber] {
        let result = try granite("pages", file, "--json")
        let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let pages = try XCTUnwrap(report?["pages"] as? [[String: Any]], result.stdout + result.stderr)
        return pages.filter { $0["type"] as? String == type && $0["tree"] as? String == tree }
            .compactMap { ($0["number"] as? Int).flatMap(PageNumber.init(exactly:)) }
    }

    /// With the root of a three-level table lost, a damaged leaf below a surviving interior page is still counted
    /// against the table: the leaves beside it went to the table by their shape, so the interior page above them
    /// is the table's. The damaged root of an index is counted against the index, a damaged overflow page against
    /// the table whose row runs into it.
    func testRecoverCountsTheLostRootAndLeafOfAMultiLevelTableAgainstIt() throws {
        let file = path("deep.granite")
        let rows = 8_000
        try makeDatabase(file, rows: rows)
        XCTAssertEqual(
            try granite(
                "sql", file,
                "CREATE TABLE big(id INTEGER PRIMARY KEY, body BLOB);"
                    + " INSERT INTO big VALUES (1, randomblob(4000)), (2, x'00')"
            ).status, 0)
        let shape = try granite("tree", file, "t", "--json")
        let tree = try JSONSerialization.jsonObject(with: Data(shape.stdout.utf8)) as? [String: Any]
        XCTAssertEqual(tree?["depth"] as? Int, 3, shape.stdout)
        let (root, leaves) = try leavesOfT(file, rows: rows)
        let leaf = try XCTUnwrap(leaves.keys.sorted().dropFirst(leaves.count / 3).first)
        let indexRoot = try XCTUnwrap(
            PageNumber(try value(file, "SELECT rootpage FROM sqlite_schema WHERE name = 't_name'")))
        let overflow = try XCTUnwrap(try pages(of: file, type: "overflow", tree: "big").dropFirst().first)
        for page in [root, leaf, indexRoot, overflow] { try damage(file, page: page) }

        let out = path("recovered.granite")
        let (status, report) = try recover(file, out)
        XCTAssertEqual(status, 2)
        let t = try XCTUnwrap(table(report, "t"))
        XCTAssertEqual(t["pagesLost"] as? Int, 2, "the root and the leaf: \(t)")
        XCTAssertEqual(t["rootLost"] as? Bool, true)
        XCTAssertEqual(t["rowsRecovered"] as? Int, rows - leaves[leaf]!.count)
        XCTAssertEqual(t["leavesPlacedByShape"] as? Int, leaves.count - 1)
        let big = try XCTUnwrap(table(report, "big"))
        XCTAssertEqual(big["pagesLost"] as? Int, 1, "the overflow page: \(big)")
        XCTAssertEqual(big["cellsUnreadable"] as? Int, 1)
        XCTAssertEqual(big["rowsRecovered"] as? Int, 1)
        let others = try XCTUnwrap(report["otherTreesDamaged"] as? [[String: Any]])
        XCTAssertEqual(others.count, 1, "\(others)")
        XCTAssertEqual(others.first?["name"] as? String, "t_name")
        XCTAssertEqual(others.first?["type"] as? String, "index")
        XCTAssertEqual(others.first?["pagesLost"] as? Int, 1)
        XCTAssertEqual(report["unattributedPages"] as? [Int], [])
        XCTAssertEqual(try value(out, "SELECT count(*) FROM t WHERE name > ''"), "\(rows - leaves[leaf]!.count)")

        let text = try granite("recover", file, path("again.granite"))
        XCTAssertEqual(text.status, 2)
        XCTAssertTrue(text.stdout.contains(", 2 pages lost including its root"), text.stdout)
        XCTAssertTrue(text.stdout.contains("index t_name  1 page lost (created again from its table)"), text.stdout)
        XCTAssertFalse(text.stdout.contains("unattributed"), text.stdout)
    }

    /// With the root of a two-level table lost, nothing readable points to its damaged leaf: the table reports its
    /// lost root, and the leaf is listed as unattributed rather than left out of the report.
    func testRecoverListsADamagedPageNoReadablePageTiesToATableAsUnattributed() throws {
        let file = path("shallow.granite")
        let rows = 2_000
        try makeDatabase(file, rows: rows)
        let (root, leaves) = try leavesOfT(file, rows: rows)
        let leaf = try XCTUnwrap(leaves.keys.sorted().dropFirst(leaves.count / 2).first)
        try damage(file, page: root)
        try damage(file, page: leaf)

        let (status, report) = try recover(file, path("recovered.granite"))
        XCTAssertEqual(status, 2)
        let t = try XCTUnwrap(table(report, "t"))
        XCTAssertEqual(t["pagesLost"] as? Int, 1, "\(t)")
        XCTAssertEqual(t["rootLost"] as? Bool, true)
        XCTAssertEqual(t["rowsRecovered"] as? Int, rows - leaves[leaf]!.count)
        XCTAssertEqual(report["unattributedPages"] as? [Int], [Int(leaf)])
        XCTAssertEqual(table(report, "u")?["pagesLost"] as? Int, 0)

        let text = try granite("recover", file, path("again.granite"))
        XCTAssertTrue(
            text.stdout.contains("rows recovered from \(leaves.count - 1) leaves, its root page lost"), text.stdout)
        XCTAssertTrue(
            text.stdout.contains(
                "unattributed  1 damaged page (\(leaf)) tied to no table by any readable page; the rows it held are lost"
            ),
            text.stdout)
    }

    func testRecoverReadsADatabaseWhoseHeaderIsDamaged() throws {
        let file = path("headless.granite")
        try makeDatabase(file, rows: 500)
        try damage(file, page: 1, pageSize: 1024)
        XCTAssertNotEqual(try granite("check", file).status, 0)
        let out = path("recovered.granite")
        let (status, report) = try recover(file, out)
        XCTAssertEqual(status, 2)
        XCTAssertEqual(report["headerDamaged"] as? Bool, true)
        XCTAssertEqual(report["pageSize"] as? Int, 1024, "the page size was found from the pages' checksums")
        XCTAssertEqual(table(report, "t")?["rowsRecovered"] as? Int, 500)
        XCTAssertEqual(try value(out, "SELECT count(*) FROM u"), "2")
    }

    func testRecoverOfASoundFileLosesNothing() throws {
        let file = path("sound.granite")
        try makeDatabase(file, rows: 800, deleting: true)
        let out = path("recovered.granite")
        let (status, report) = try recover(file, out)
        XCTAssertEqual(status, 0, "\(report)")
        XCTAssertEqual(table(report, "t")?["rowsRecovered"] as? Int, 160)
        XCTAssertEqual(
            try value(out, "SELECT group_concat(id) FROM (SELECT id FROM t ORDER BY id)"),
            try value(file, "SELECT group_concat(id) FROM (SELECT id FROM t ORDER BY id)"))
        XCTAssertEqual(try granite("recover", path("missing.granite"), path("x.granite")).status, 1)
    }
}
