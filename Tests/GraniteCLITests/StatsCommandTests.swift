// `granite stats` on real files: figures that follow from what was written, damaged files, bad input, the SVG map.

import Foundation
import GraniteTestSupport
import XCTest

final class StatsCommandTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory(prefix: "granite-stats").url
    }

    func granite(_ arguments: String...) throws -> RunResult {
        let result = try GraniteCLITests.run(arguments, in: directory)
        XCTAssertTrue(result.exited, "granite \(arguments.joined(separator: " ")) crashed: \(result.stderr)")
        return result
    }

    func object(_ result: RunResult) throws -> [String: Any] {
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        return try XCTUnwrap(json as? [String: Any], result.stdout)
    }

    static let rows = 300
    /// 900 bytes of text that compress well: each row's `body` is stored compressed.
    static let body = String(repeating: "abc", count: 300)

    /// A file with a table `book` (one row of compressible text and one row past a page, which overflows, per
    /// `rows`), its index `book_on_title`, and a dropped table whose pages went to the freelist.
    func makeBookFile() throws -> String {
        let path = directory.appendingPathComponent("books.granite").path
        let sql = """
            CREATE TABLE book(id INTEGER PRIMARY KEY, title TEXT, body TEXT);
            CREATE INDEX book_on_title ON book(title);
            CREATE TABLE scratch(x);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(Self.rows))
              INSERT INTO book SELECT i, 'title ' || i, '\(Self.body)' FROM n;
            INSERT INTO book VALUES (\(Self.rows + 1), 'big', randomblob(10000));
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
              INSERT INTO scratch SELECT randomblob(200) FROM n;
            DROP TABLE scratch;
            """
        let created = try granite("sql", path, sql)
        XCTAssertEqual(created.status, 0, created.stderr)
        return path
    }

    func testStatsAccountsForEveryPageAndNamesSQLObjects() throws {
        let path = try makeBookFile()
        let result = try granite("stats", path, "--json")
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try object(result)
        let objects = try XCTUnwrap(report["objects"] as? [[String: Any]])
        let byName = Dictionary(uniqueKeysWithValues: objects.map { ($0["name"] as? String ?? "?", $0) })

        // Every page is counted once: the trees, the header and the freelist make up the file.
        let pageCount = try XCTUnwrap(report["pageCount"] as? Int)
        let treePages = objects.reduce(0) { $0 + ($1["pages"] as? Int ?? 0) }
        let free = try XCTUnwrap(report["freePages"] as? Int) + (report["freelistTrunkPages"] as? Int ?? 0)
        XCTAssertEqual(treePages + free + (report["headerPages"] as? Int ?? 0), pageCount)
        XCTAssertEqual(report["unattributedPages"] as? Int, 0)
        XCTAssertGreaterThan(free, 0, "the dropped table's pages are free")
        let info = try object(try granite("info", path, "--json"))
        let header = try XCTUnwrap(info["header"] as? [String: Any])
        XCTAssertEqual(header["freelistCount"] as? Int, free)
        XCTAssertEqual(header["pageCount"] as? Int, pageCount)

        // Trees are named by their SQL objects, and listed largest first.
        let book = try XCTUnwrap(byName["book"], "\(byName.keys)")
        let index = try XCTUnwrap(byName["book_on_title"], "\(byName.keys)")
        XCTAssertEqual(book["kind"] as? String, "table")
        XCTAssertEqual(index["kind"] as? String, "index")
        XCTAssertNil(byName["scratch"])
        let sizes = objects.map { $0["pages"] as? Int ?? 0 }
        XCTAssertEqual(sizes, sizes.sorted(by: >))
        XCTAssertEqual(objects.first?["name"] as? String, "book")

        XCTAssertEqual(book["entries"] as? Int, Self.rows + 1)
        XCTAssertEqual(index["entries"] as? Int, Self.rows + 1)
        // The big row's 10,000-byte blob is the largest payload and spills onto overflow pages.
        XCTAssertGreaterThan(try XCTUnwrap(book["maxPayload"] as? Int), 10_000)
        XCTAssertLessThan(try XCTUnwrap(book["maxPayload"] as? Int), 10_100)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(book["overflowPages"] as? Int), 2)
        XCTAssertEqual(index["overflowPages"] as? Int, 0)
        let pages = try XCTUnwrap(book["pages"] as? Int)
        XCTAssertEqual(
            pages,
            (book["leafPages"] as? Int ?? 0) + (book["interiorPages"] as? Int ?? 0)
                + (book["overflowPages"] as? Int ?? 0))

        // Every row's body is stored compressed: 900 plain bytes each, fewer stored.
        XCTAssertEqual(book["compressedValues"] as? Int, Self.rows)
        XCTAssertEqual(book["compressedPlainBytes"] as? Int, Self.rows * Self.body.utf8.count)
        let stored = try XCTUnwrap(book["compressedStoredBytes"] as? Int)
        XCTAssertGreaterThan(stored, 0)
        XCTAssertLessThan(stored, Self.rows * 100)
        XCTAssertEqual(book["compressionSavings"] as? Int, Self.rows * Self.body.utf8.count - stored)
        XCTAssertEqual(index["compressionSavings"] as? Int, 0)

        for object in objects {
            for key in ["fill", "fragmentation", "shareOfFile"] {
                let value = try XCTUnwrap(object[key] as? Double, key)
                XCTAssert((0...1).contains(value), "\(object["name"] ?? "?") \(key) = \(value)")
            }
        }
        XCTAssertEqual(report["problems"] as? [String], [])

        // The text summary: one line per object, then the free pages; --detail adds a block per object.
        let text = try granite("stats", path)
        XCTAssertEqual(text.status, 0, text.stderr)
        let lines = text.stdout.split(separator: "\n").map(String.init)
        XCTAssert(lines[0].contains("\(pageCount) pages of 4,096 bytes"), lines[0])
        XCTAssert(lines[2].hasPrefix("book "), text.stdout)
        XCTAssert(lines.contains { $0.hasPrefix("book_on_title ") && $0.contains("index") }, text.stdout)
        XCTAssert(lines.contains { $0.hasPrefix("(freelist) ") && $0.contains(" \(free) ") }, text.stdout)
        let detail = try granite("stats", path, "--detail")
        XCTAssertEqual(detail.status, 0, detail.stderr)
        XCTAssert(detail.stdout.contains("book (table, tree t:1"), detail.stdout)
        XCTAssert(detail.stdout.contains("fragmentation"), detail.stdout)
        XCTAssert(detail.stdout.contains("\(Self.rows) values"), detail.stdout)
    }

    /// The demo measures the compressed text it wrote on its own; stats finds the same figures in the file.
    func testCompressionFiguresMatchTheDemosOwnCount() throws {
        let path = directory.appendingPathComponent("demo.granite").path
        let demo = try object(try granite("demo", path, "--json"))
        let compression = try XCTUnwrap(demo["compression"] as? [String: Any])
        let stats = try object(try granite("stats", path, "--json"))
        let objects = try XCTUnwrap(stats["objects"] as? [[String: Any]])
        let player = try XCTUnwrap(objects.first { $0["name"] as? String == "player" })
        XCTAssertEqual(player["compressedValues"] as? Int, compression["compressedValues"] as? Int)
        XCTAssertEqual(player["compressedPlainBytes"] as? Int, compression["plainBytes"] as? Int)
        XCTAssertEqual(player["compressedStoredBytes"] as? Int, compression["storedBytes"] as? Int)
        XCTAssertEqual(player["compressionSavings"] as? Int, compression["savedBytes"] as? Int)
        XCTAssertEqual(player["entries"] as? Int, demo["players"] as? Int)
    }

    func testSVGPageMapHasOneSquarePerPageAndALegend() throws {
        let path = try makeBookFile()
        let svgPath = directory.appendingPathComponent("map.svg").path
        let result = try granite("stats", path, "--svg", svgPath)
        XCTAssertEqual(result.status, 0, result.stderr)
        let svg = try String(contentsOfFile: svgPath, encoding: .utf8)
        let pageCount = try XCTUnwrap(try object(try granite("stats", path, "--json"))["pageCount"] as? Int)
        XCTAssert(svg.hasPrefix("<?xml"), String(svg.prefix(100)))
        XCTAssert(svg.hasSuffix("</svg>\n"))
        XCTAssertEqual(svg.components(separatedBy: "<title>page ").count - 1, pageCount)
        XCTAssert(svg.contains("<title>page \(pageCount)</title>"))
        XCTAssert(svg.contains(">book (table): "), svg)
        XCTAssert(svg.contains(">book_on_title (index): "), svg)
        XCTAssert(svg.contains(">freelist: "), svg)

        let unwritable = try granite("stats", path, "--svg", directory.appendingPathComponent("no/such/dir.svg").path)
        XCTAssertEqual(unwritable.status, 1)
        XCTAssert(unwritable.stderr.contains("cannot write"), unwritable.stderr)
    }

    func testDamagedFileIsReportedWithoutChangingIt() throws {
        let path = try makeBookFile()
        let pages = try JSONSerialization.jsonObject(with: Data(try granite("pages", path, "--json").stdout.utf8))
        let list = try XCTUnwrap((pages as? [String: Any])?["pages"] as? [[String: Any]])
        let leaf = try XCTUnwrap(
            list.first { $0["type"] as? String == "index-leaf" && $0["tree"] as? String != "(catalog)" })
        let page = try XCTUnwrap(leaf["number"] as? Int)
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: UInt64((page - 1) * 4096 + 100))
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 64))
        try handle.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        let result = try granite("stats", path)
        XCTAssertEqual(result.status, 1, result.stdout)
        XCTAssert(result.stderr.contains("page \(page)"), result.stderr)
        XCTAssert(result.stderr.contains("is damaged"), result.stderr)
        XCTAssert(result.stdout.contains("book_on_title"), result.stdout)
        let json = try granite("stats", path, "--json")
        XCTAssertEqual(json.status, 1)
        let report = try object(json)
        let objects = try XCTUnwrap(report["objects"] as? [[String: Any]])
        let index = try XCTUnwrap(objects.first { $0["name"] as? String == "book_on_title" })
        XCTAssertEqual(index["unreadablePages"] as? Int, 1)
        XCTAssertFalse((report["problems"] as? [String] ?? []).isEmpty)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before, "stats changed the file")
    }

    func testBadInputFailsWithAMessage() throws {
        let text = directory.appendingPathComponent("notes.txt")
        try Data("not a database\n".utf8).write(to: text)
        for arguments in [
            ["stats", directory.appendingPathComponent("missing.granite").path], ["stats", directory.path],
            ["stats", text.path], ["stats", text.path, "--json"],
        ] {
            let result = try GraniteCLITests.run(arguments, in: directory)
            XCTAssertTrue(result.exited, "\(arguments) crashed: \(result.stderr)")
            XCTAssertEqual(result.status, 1, "\(arguments): \(result.stdout)")
            XCTAssert(result.stderr.hasPrefix("granite: error: "), "\(arguments): \(result.stderr)")
        }
        XCTAssertEqual(try String(contentsOf: text, encoding: .utf8), "not a database\n")
        let missingFile = try granite("stats")
        XCTAssertNotEqual(missingFile.status, 0)
    }
}
