// `granite sql` on compressed text: its output equals the `sqlite3` shell's on the same SQL, and `granite pages`
// reports the compressed rows.

import Foundation
import XCTest

extension SQLCommandTests {
    /// Long, repetitive JSON documents (stored compressed by Granite) and a short one (stored plain).
    static let compressedSetupSQL: String = {
        var sql = "CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT);\n"
        for (id, name) in ["delta", "alpha", "charlie"].enumerated() {
            let events = Array(repeating: "{\"kind\":\"login\",\"place\":\"Paris, France\"}", count: 12 + id)
            sql +=
                "INSERT INTO docs VALUES (\(id + 1), '{\"name\":\"\(name)\",\"events\":[\(events.joined(separator: ","))]}');\n"
        }
        sql += "INSERT INTO docs VALUES (4, 'short');\n"
        return sql
    }()

    func testCompressedTextReadsLikeSQLite() throws {
        let sqlite3 = try sqlite3()
        let granite = path("c.granite")
        let reference = path("c.sqlite")
        XCTAssertEqual(try self.granite([granite, Self.compressedSetupSQL]).status, 0)
        XCTAssertEqual(try run(sqlite3, [reference, Self.compressedSetupSQL]).status, 0)

        let pages = try run(try GraniteCLITests.binary(), ["pages", granite])
        XCTAssertEqual(pages.status, 0, pages.stderr)
        XCTAssertTrue(pages.text.contains("rows with compressed text: 3"), pages.text)

        for query in [
            "SELECT id, body, length(body) FROM docs ORDER BY id",
            "SELECT id FROM docs ORDER BY body",
            "SELECT id FROM docs WHERE body LIKE '%\"alpha\"%'",
            "SELECT id FROM docs WHERE body > '{\"name\":\"b' ORDER BY id",
            "SELECT substr(body, 1, 20), length(body) FROM docs WHERE id = 3",
            "SELECT typeof(body), instr(body, 'Paris'), hex(substr(body, 1, 4)), upper(body) = upper(body) FROM docs",
            "SELECT a.id, b.id FROM docs a JOIN docs b ON a.body = b.body ORDER BY a.id",
            "SELECT count(DISTINCT body), max(body) = (SELECT body FROM docs WHERE id = 4) FROM docs",
        ] {
            let expected = try run(sqlite3, ["-csv", reference, query])
            let actual = try self.granite(["--csv", granite, query])
            XCTAssertEqual(actual.status, 0, actual.stderr)
            XCTAssertEqual(actual.stdout, expected.stdout, "\(query): \(actual.text) vs \(expected.text)")
        }
    }
}
