// `granite check` runs the full check: structure, then every row and index entry.

import Foundation
import GraniteStorage
import GraniteTestSupport
import XCTest

final class CheckCommandTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory(prefix: "granite-check").url
    }

    func granite(_ arguments: String...) throws -> RunResult {
        let result = try GraniteCLITests.run(arguments, in: directory)
        XCTAssertTrue(result.exited, "granite \(arguments.joined(separator: " ")) crashed: \(result.stderr)")
        return result
    }

    /// A file whose rows and index break the schema's rules while its structure is sound: an index entry
    /// deleted and a NULL stored in a NOT NULL column through the storage API, behind the SQL layer's back.
    func makeDamagedFile() throws -> String {
        let path = directory.appendingPathComponent("damaged.granite").path
        let created = try granite(
            "sql", path,
            "CREATE TABLE t(a NOT NULL, b); CREATE INDEX i ON t(a); INSERT INTO t VALUES (1, 'x'), (2, 'y')")
        XCTAssertEqual(created.status, 0, created.stderr)
        XCTAssertEqual(try granite("check", path).status, 0)
        let engine = try StorageEngine(path: path)
        try engine.beginWrite()
        // The table is the schema's first object, the index its second (trees t:1 and i:2).
        let index = try engine.index(named: "i:2")
        XCTAssertTrue(try index.delete(key: KeyEncoding.encode([.integer(1), .integer(1)])))
        try engine.table(named: "t:1").insert(rowid: 3, payload: RowEncoder().encode([.null, .text("z")]))
        try index.insert(key: KeyEncoding.encode([.null, .integer(3)]))
        try engine.commit()
        try engine.close()
        return path
    }

    func testCheckReportsEveryRowAndIndexProblem() throws {
        let path = try makeDamagedFile()
        let check = try granite("check", path)
        XCTAssertEqual(check.status, 1, check.stdout + check.stderr)
        XCTAssertEqual(
            check.stdout.split(separator: "\n"),
            ["row 1 missing from index i", "NULL value in t.a", "wrong # of entries in index i"])
        XCTAssert(check.stderr.contains("3 problem(s) found"), check.stderr)

        let json = try JSONSerialization.jsonObject(with: Data(try granite("check", path, "--json").stdout.utf8))
        let report = try XCTUnwrap(json as? [String: Any])
        XCTAssertEqual(report["ok"] as? Bool, false)
        XCTAssertEqual((report["problems"] as? [String])?.count, 3)

        let limited = try granite("check", path, "--max-problems", "1")
        XCTAssertEqual(limited.stdout.split(separator: "\n"), ["row 1 missing from index i"])

        // The pragma reports the same problems.
        let pragma = try granite("sql", path, "PRAGMA integrity_check")
        for problem in ["row 1 missing from index i", "NULL value in t.a", "wrong # of entries in index i"] {
            XCTAssert(pragma.stdout.contains(problem), pragma.stdout)
        }
    }
}
