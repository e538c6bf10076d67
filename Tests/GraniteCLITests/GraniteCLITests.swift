// Runs the built `granite` binary as a subprocess and checks its output,
// its JSON, and its exit status on good, damaged and foreign files.

import Foundation
import GraniteTestSupport
import XCTest

/// The result of one run of the `granite` binary.
struct RunResult {
    var status: Int32
    var reason: Process.TerminationReason
    var stdout: String
    var stderr: String

    /// Whether the process ended by calling exit (not killed by a signal: a crash).
    var exited: Bool { reason == .exit }
}

/// End-to-end tests of the `granite` command-line tool.
final class GraniteCLITests: XCTestCase {
    /// The `granite` executable built next to the test bundle.
    static func binary() throws -> URL {
        var candidates: [URL] = []
        #if os(macOS)
            for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
                candidates.append(bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("granite"))
            }
        #endif
        candidates.append(Bundle.main.bundleURL.appendingPathComponent("granite"))
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("granite"))
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(".build/debug/granite"))
        for candidate in candidates where FileManager.default.isExecutableFile(atPath: candidate.path) {
            return candidate
        }
        throw XCTSkip("granite binary not found (looked in \(candidates.map(\.path)))")
    }

    var directory: URL!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory(prefix: "granite-cli").url
    }

    /// Runs `granite` with `arguments` in the test directory; output goes through files
    /// (pipes could fill up and block the child).
    func granite(_ arguments: String...) throws -> RunResult {
        try granite(arguments)
    }

    func granite(_ arguments: [String]) throws -> RunResult {
        try Self.run(arguments, in: directory)
    }

    /// Runs the `granite` binary with `arguments` in `directory`, reading `standardInput` when given; output goes
    /// through files (pipes could fill up and block the child).
    static func run(_ arguments: [String], in directory: URL, standardInput: URL? = nil) throws -> RunResult {
        let process = Process()
        process.executableURL = try binary()
        process.arguments = arguments
        if let standardInput { process.standardInput = try FileHandle(forReadingFrom: standardInput) }
        process.currentDirectoryURL = directory
        let out = directory.appendingPathComponent("stdout-\(UUID().uuidString)")
        let err = directory.appendingPathComponent("stderr-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: out.path, contents: nil),
            FileManager.default.createFile(atPath: err.path, contents: nil)
        else { throw CocoaError(.fileWriteUnknown) }
        defer {
            try? FileManager.default.removeItem(at: out)
            try? FileManager.default.removeItem(at: err)
        }
        let outHandle = try FileHandle(forWritingTo: out)
        let errHandle = try FileHandle(forWritingTo: err)
        process.standardOutput = outHandle
        process.standardError = errHandle
        try process.run()
        process.waitUntilExit()
        try outHandle.close()
        try errHandle.close()
        return RunResult(
            status: process.terminationStatus, reason: process.terminationReason,
            stdout: String(decoding: try Data(contentsOf: out), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: err), as: UTF8.self))
    }

    /// Parses a run's standard output as a JSON object.
    func json(_ result: RunResult, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        return try XCTUnwrap(
            object as? [String: Any], "not a JSON object: \(result.stdout.prefix(200))",
            file: file, line: line)
    }

    /// The players left in the demo database: 5,000 inserted, 263 of them scoring below 50 deleted.
    static let demoPlayers = 4737

    /// Builds the demo database in the test directory and returns its path.
    func makeDemo(_ name: String = "demo.granite") throws -> String {
        let path = directory.appendingPathComponent(name).path
        let result = try granite("demo", path)
        XCTAssertTrue(result.exited, "demo crashed: \(result.stderr)")
        XCTAssertEqual(result.status, 0, "demo failed: \(result.stderr)")
        XCTAssertTrue(result.stdout.contains("integrity: ok"), result.stdout)
        XCTAssertTrue(result.stdout.contains("verification: ok"), result.stdout)
        return path
    }

    // MARK: Tests

    func testDemoBuildsAFileThatPassesCheck() throws {
        let path = try makeDemo()
        XCTAssertTrue(FileManager.default.fileExists(atPath: path))
        let check = try granite("check", path)
        XCTAssertEqual(check.status, 0, check.stderr)
        XCTAssertTrue(check.stdout.hasPrefix("ok"), check.stdout)

        let checkJSON = try json(granite("check", path, "--json"))
        XCTAssertEqual(checkJSON["ok"] as? Bool, true)
        XCTAssertEqual((checkJSON["problems"] as? [Any])?.count, 0)

        // A second run replaces the file; --json reports the same figures.
        let again = try granite("demo", path, "--json")
        XCTAssertEqual(again.status, 0, again.stderr)
        let demo = try json(again)
        // 5,000 players inserted, those scoring below 50 deleted.
        XCTAssertEqual(demo["players"] as? Int, Self.demoPlayers)
        let steps = try XCTUnwrap(demo["steps"] as? [[String: Any]])
        XCTAssertEqual(steps.count, 8)
        for step in steps {
            XCTAssertFalse((step["sql"] as? [Any] ?? []).isEmpty, "\(step["title"] ?? "?") ran no SQL")
        }
        let queries = steps.flatMap { ($0["sql"] as? [[String: Any]] ?? []).compactMap { $0["sql"] as? String } }
        XCTAssertTrue(queries.contains("SELECT * FROM \"player\" WHERE \"team\" = ? ORDER BY \"score\" DESC LIMIT 5"))
        XCTAssertTrue(queries.contains("UPDATE \"player\" SET \"score\"=?, \"achievements\"=? WHERE \"id\"=?"))
        XCTAssertEqual((demo["integrity"] as? [String: Any])?["ok"] as? Bool, true)
        XCTAssertEqual((demo["verification"] as? [String: Any])?["ok"] as? Bool, true)
        let compression = try XCTUnwrap(demo["compression"] as? [String: Any])
        XCTAssertGreaterThan(compression["compressedValues"] as? Int ?? 0, 1000)
        XCTAssertGreaterThan(compression["savedBytes"] as? Int ?? 0, 0)
        let trees = try XCTUnwrap(demo["trees"] as? [[String: Any]])
        // The migrations table comes first (t:1 and its primary key index i:2), then `player` (t:3), the
        // AUTOINCREMENT sequence (t:4) and the score index (i:5).
        var objects: [String: String] = [:]
        for tree in trees {
            if let object = tree["object"] as? String, let name = (tree["tree"] as? [String: Any])?["name"] as? String {
                objects[object] = name
            }
        }
        XCTAssertEqual(
            objects,
            [
                "(catalog)": "(catalog)", "granite_schema": "granite_schema", "grdb_migrations": "t:1",
                "granite_autoindex_grdb_migrations_1": "i:2", "player": "t:3", "granite_sequence": "t:4",
                "player_on_score": "i:5",
            ])
        let player = trees.first { $0["object"] as? String == "player" }?["tree"] as? [String: Any]
        XCTAssertGreaterThan(player?["overflowPages"] as? Int ?? 0, 0)
    }

    func testDemoUsesTheDefaultFileName() throws {
        let result = try granite("demo")
        XCTAssertEqual(result.status, 0, result.stderr)
        // The tests run a debug build of the tool, whose timings the demo flags.
        #if DEBUG
            XCTAssertTrue(result.stdout.contains("a debug build: the timings below are 5-10 times"), result.stdout)
        #else
            XCTAssertFalse(result.stdout.contains("a debug build"), result.stdout)
        #endif
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: directory.appendingPathComponent("granite-demo.granite").path))
    }

    func testInspectionCommands() throws {
        let path = try makeDemo()

        let info = try granite("info", path)
        XCTAssertEqual(info.status, 0, info.stderr)
        XCTAssertTrue(info.stdout.contains("i:2"), info.stdout)
        XCTAssertTrue(info.stdout.contains("page size"), info.stdout)
        let infoJSON = try json(granite("info", path, "--json"))
        let header = try XCTUnwrap(infoJSON["header"] as? [String: Any])
        XCTAssertEqual(header["pageSize"] as? Int, 4096)
        XCTAssertEqual(header["formatVersion"] as? Int, 2)
        let pageCount = try XCTUnwrap(header["pageCount"] as? Int)
        XCTAssertEqual(infoJSON["fileSize"] as? Int, pageCount * 4096)
        XCTAssertEqual((infoJSON["trees"] as? [Any])?.count, 6)
        // Trees go by the SQL object they hold, with their storage name beside it.
        let infoTrees = try XCTUnwrap(infoJSON["trees"] as? [[String: Any]])
        let playerTree = try XCTUnwrap(infoTrees.first { $0["name"] as? String == "player" }, "\(infoTrees)")
        XCTAssertEqual(playerTree["tree"] as? String, "t:3")
        XCTAssertEqual(playerTree["kind"] as? String, "table")
        let scoreTree = try XCTUnwrap(infoTrees.first { $0["name"] as? String == "player_on_score" })
        XCTAssertEqual(scoreTree["tree"] as? String, "i:5")
        XCTAssertEqual(scoreTree["kind"] as? String, "index")
        XCTAssertTrue(
            info.stdout.split(separator: "\n").contains { $0.contains("player_on_score") && $0.contains("i:5") },
            info.stdout)

        let pages = try granite("pages", path)
        XCTAssertEqual(pages.status, 0, pages.stderr)
        XCTAssertTrue(pages.stdout.contains("table-leaf"), String(pages.stdout.prefix(500)))
        XCTAssertTrue(pages.stdout.contains("totals:"))
        let pagesJSON = try json(granite("pages", path, "--json"))
        let pageList = try XCTUnwrap(pagesJSON["pages"] as? [[String: Any]])
        XCTAssertEqual(pageList.count, pageCount)
        XCTAssertEqual(pageList.first?["type"] as? String, "header")
        let playerPages = pageList.filter { $0["tree"] as? String == "player" }
        XCTAssertFalse(playerPages.isEmpty)
        XCTAssertTrue(playerPages.allSatisfy { $0["storageTree"] as? String == "t:3" })
        XCTAssertFalse(pageList.contains { $0["tree"] as? String == "t:3" })
        XCTAssertTrue(pages.stdout.contains("player_on_score"), String(pages.stdout.prefix(2000)))
        let totals = try XCTUnwrap(pagesJSON["totals"] as? [String: Any])
        XCTAssertGreaterThan(totals["plainBytes"] as? Int ?? 0, totals["storedBytes"] as? Int ?? .max)

        let page1 = try granite("page", path, "1")
        XCTAssertEqual(page1.status, 0, page1.stderr)
        XCTAssertTrue(page1.stdout.contains("header"), page1.stdout)
        XCTAssertTrue(page1.stdout.contains("catalog root"), page1.stdout)
        let page1JSON = try json(granite("page", path, "1", "--json"))
        XCTAssertEqual((page1JSON["header"] as? [String: Any])?["pageCount"] as? Int, pageCount)
        XCTAssertEqual(page1JSON["checksumValid"] as? Bool, true)

        let page2 = try granite("page", path, "2", "--hex")
        XCTAssertEqual(page2.status, 0, page2.stderr)
        XCTAssertTrue(page2.stdout.contains("(catalog)"), page2.stdout)
        XCTAssertTrue(page2.stdout.contains("'t:1'"), page2.stdout)
        XCTAssertTrue(page2.stdout.contains("00000000  05 "), page2.stdout)
        let page2JSON = try json(granite("page", path, "2", "--hex", "--json"))
        XCTAssertEqual(page2JSON["type"] as? String, "index-leaf")
        XCTAssertEqual((page2JSON["cells"] as? [Any])?.count, 6)
        XCTAssertGreaterThan((page2JSON["hex"] as? [String])?.count ?? 0, 2)

        // A table leaf shows decoded rows, with compressed text: one of the first leaves holds some (the schema's
        // short statements may all be stored plain).
        let leaves = pageList.filter { $0["type"] as? String == "table-leaf" }.compactMap { $0["number"] as? Int }
        var leafPages: [RunResult] = []
        for leaf in leaves.prefix(8) {
            let leafPage = try granite("page", path, "\(leaf)")
            XCTAssertEqual(leafPage.status, 0, leafPage.stderr)
            XCTAssertTrue(leafPage.stdout.contains("rowid"), leafPage.stdout)
            leafPages.append(leafPage)
            if leafPage.stdout.contains("compressed: plain") { break }
        }
        XCTAssertTrue(
            leafPages.contains { $0.stdout.contains("compressed: plain") }, leafPages.map(\.stdout).joined())

        let tree = try granite("tree", path, "player")
        XCTAssertEqual(tree.status, 0, tree.stderr)
        XCTAssertTrue(tree.stdout.contains("4,737"), tree.stdout)
        XCTAssertTrue(tree.stdout.hasPrefix("player (table, tree t:3), root page "), tree.stdout)
        let treeJSON = try json(granite("tree", path, "player", "--json"))
        XCTAssertEqual(treeJSON["entries"] as? Int, Self.demoPlayers)
        XCTAssertEqual(treeJSON["kind"] as? String, "table")
        XCTAssertGreaterThanOrEqual(treeJSON["depth"] as? Int ?? 0, 2)
        let catalog = try json(granite("tree", path, "--catalog", "--json"))
        XCTAssertEqual(catalog["entries"] as? Int, 6, "granite_schema, t:1, i:2, t:3 (player), t:4, i:5")
        let index = try json(granite("tree", path, "player_on_score", "--json"))
        XCTAssertEqual(index["kind"] as? String, "index")
        XCTAssertEqual(index["entries"] as? Int, Self.demoPlayers)
    }

    func testBadArgumentsFailWithAMessage() throws {
        let path = try makeDemo()
        for arguments in [
            ["page", path, "0"], ["page", path, "999999"], ["page", path, "abc"], ["tree", path, "nosuch"],
            ["tree", path], ["frobnicate"],
        ] {
            let result = try granite(arguments)
            XCTAssertTrue(result.exited, "\(arguments) crashed")
            XCTAssertNotEqual(result.status, 0, "\(arguments) succeeded")
            XCTAssertFalse(result.stderr.isEmpty, "\(arguments) printed no message")
        }
    }

    func testDamagedPageIsReported() throws {
        let path = try makeDemo()
        let damaged = directory.appendingPathComponent("damaged.granite").path
        try FileManager.default.copyItem(atPath: path, toPath: damaged)
        let page = 10
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: damaged))
        let offset = UInt64((page - 1) * 4096 + 2000)
        try handle.seek(toOffset: offset)
        let original = try XCTUnwrap(try handle.read(upToCount: 32))
        try handle.seek(toOffset: offset)
        try handle.write(contentsOf: Data(original.map { ~$0 }))
        try handle.close()

        let check = try granite("check", damaged)
        XCTAssertTrue(check.exited, "check crashed: \(check.stderr)")
        XCTAssertNotEqual(check.status, 0)
        XCTAssertTrue((check.stdout + check.stderr).contains("page \(page)"), check.stdout + check.stderr)
        let checkJSON = try json(granite("check", damaged, "--json"))
        XCTAssertEqual(checkJSON["ok"] as? Bool, false)

        for arguments in [
            ["pages", damaged], ["page", damaged, "\(page)"], ["tree", damaged, "player"], ["stats", damaged],
        ] {
            let result = try granite(arguments)
            XCTAssertTrue(result.exited, "\(arguments) crashed: \(result.stderr)")
            XCTAssertNotEqual(result.status, 0, "\(arguments) succeeded on a damaged file")
            XCTAssertTrue(result.stderr.contains("page \(page)"), "\(arguments): \(result.stderr)")
        }
    }

    func testForeignFilesFailWithoutCrashing() throws {
        let text = directory.appendingPathComponent("notes.txt")
        try Data("This is not a database, just some text.\n".utf8).write(to: text)
        let random = directory.appendingPathComponent("random.bin")
        var generator = SystemRandomNumberGenerator()
        try Data((0..<20_000).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: random)
        let empty = directory.appendingPathComponent("empty.granite")
        try Data().write(to: empty)
        let missing = directory.appendingPathComponent("missing.granite")
        for file in [text.path, random.path, empty.path, missing.path, directory.path] {
            for arguments in [
                ["info", file], ["pages", file], ["page", file, "1"], ["page", file, "2", "--hex"],
                ["tree", file, "people"], ["check", file], ["check", file, "--json"], ["stats", file],
                ["stats", file, "--json"],
            ] {
                let result = try granite(arguments)
                XCTAssertTrue(result.exited, "\(arguments) crashed: \(result.stderr)")
                XCTAssertEqual(result.status, 1, "\(arguments): \(result.stdout)")
                XCTAssertTrue(result.stderr.contains("error"), "\(arguments): \(result.stderr)")
            }
        }
        // demo refuses to replace a file that is not a database.
        let demo = try granite("demo", text.path)
        XCTAssertNotEqual(demo.status, 0)
        XCTAssertEqual(try String(contentsOf: text, encoding: .utf8), "This is not a database, just some text.\n")
    }
}
