// How the commands open their file: an SQLite database gets a message that names it and the way to convert it;
// `granite sql :memory:` and `granite sql` alone work in memory and leave no file behind.

import Foundation
import GraniteTestSupport
import XCTest

final class FileOpeningCLITests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory(prefix: "granite-opening").url
    }

    func granite(_ arguments: [String], input: String? = nil) throws -> RunResult {
        let result: RunResult
        if let input {
            let inputFile = directory.appendingPathComponent("input.sql")
            try Data(input.utf8).write(to: inputFile)
            result = try GraniteCLITests.run(arguments, in: directory, standardInput: inputFile)
        } else {
            result = try GraniteCLITests.run(arguments, in: directory)
        }
        XCTAssertTrue(result.exited, "granite \(arguments.joined(separator: " ")) crashed: \(result.stderr)")
        return result
    }

    /// A file that starts as every SQLite 3 database does: the 16-byte header string, then a page's worth of
    /// header fields (page size 4096, one page).
    func makeSQLiteFile() throws -> URL {
        var bytes = Array("SQLite format 3".utf8) + [0, 0x10, 0x00, 1, 1, 0, 64, 32, 32]
        bytes += [UInt8](repeating: 0, count: 4096 - bytes.count)
        let url = directory.appendingPathComponent("legacy.db")
        try Data(bytes).write(to: url)
        return url
    }

    func testSQLiteFileIsNamedAndPointsToImport() throws {
        let file = try makeSQLiteFile()
        let before = try Data(contentsOf: file)
        for arguments in [
            ["info", file.path], ["pages", file.path], ["stats", file.path], ["check", file.path],
            ["tree", file.path, "t"], ["sql", file.path, "SELECT 1"],
        ] {
            let result = try granite(arguments)
            XCTAssertEqual(result.status, 1, "\(arguments): \(result.stdout)")
            XCTAssert(result.stderr.contains("is an SQLite database"), "\(arguments): \(result.stderr)")
            XCTAssert(result.stderr.contains("granite import"), "\(arguments): \(result.stderr)")
        }
        XCTAssertEqual(try Data(contentsOf: file), before, "a command changed the SQLite file")
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path + "-wal"))
    }

    func testSQLInMemory() throws {
        let result = try granite(["sql", ":memory:", "CREATE TABLE t(x); INSERT INTO t VALUES (42); SELECT x FROM t"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssert(result.stdout.contains("42"), result.stdout)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [])

        let piped = try granite(["sql"], input: "CREATE TABLE t(x);\nINSERT INTO t VALUES (7);\nSELECT x * 6 FROM t;\n")
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssert(piped.stdout.contains("42"), piped.stdout)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), ["input.sql"])

        // Each run starts empty.
        let again = try granite(["sql", ":memory:", "SELECT x FROM t"])
        XCTAssertEqual(again.status, 1)
        XCTAssert(again.stderr.contains("no such table"), again.stderr)
    }
}
