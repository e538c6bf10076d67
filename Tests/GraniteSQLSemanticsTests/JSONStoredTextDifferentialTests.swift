import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// JSON functions over documents read from a table, long enough to be stored compressed or short enough to be
/// stored plain, against SQLite: ASCII and non-ASCII text, escapes, bytes that are not valid UTF-8 (inside a
/// string or in the structure), NULL and malformed documents; through the located calls (`->`, `->>`,
/// `json_extract` with a constant path), `count(*)` filters on them and `json_each`.
final class JSONStoredTextDifferentialTests: XCTestCase {
    /// String members' values: plain, non-ASCII, escaped, and (as hex) bytes that are not valid UTF-8.
    private static let texts: [String] = [
        "Paris", "Zürich", "東京", "São Paulo", "a\\\"b", "tab\\tnew\\nline", "\\u00e9t\\u00E9", "emoji 😀", "",
    ]
    private static let invalidHex = ["e5", "c3", "ff", "eda080", "c0af", "80"]

    /// A profile-like document as an SQL expression: a padding member of `padding` bytes makes it long (and
    /// compressible) or leaves it short.
    private static func documentSQL(_ src: inout ValueSource) -> String {
        if src.int(0...11) == 0 { return "NULL" }
        let city = src.pick(texts)
        let name = src.pick(texts)
        let tags = (0..<src.int(0...4)).map { _ in "\"\(src.pick(texts))\"" }.joined(separator: ",")
        let padding = String(repeating: src.pick(["x", "é", "ab"]), count: src.pick([0, 2, 60, 150]))
        var json = "{\"name\":\"\(name)\",\"city\":\"\(city)\",\"age\":\(src.int(-5...120)),"
        json += "\"tags\":[\(tags)],\"address\":{\"city\":\"\(city)\",\"zip\":\(src.int(0...99_999))},"
        json += "\"pad\":\"\(padding)\",\"ok\":\(src.bool())}"
        switch src.int(0...9) {
        case 0:
            // Not valid UTF-8 inside the city's string: SQLite's JSON functions take the bytes as they are.
            let hex = Array(json.utf8).map { String($0, radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }
            let cut = hex.firstIndex(of: "3a")!  // after the first `:` and its quote
            let bad = hex[...(cut + 1)] + [src.pick(invalidHex)] + hex[(cut + 2)...]
            return "CAST(x'\(bad.joined())' AS TEXT)"
        case 1:
            return "'\(json.dropLast(src.int(1...3)).replacingOccurrences(of: "'", with: "''"))'"  // malformed
        default:
            return "'\(json.replacingOccurrences(of: "'", with: "''"))'"
        }
    }

    func testCallsOnStoredDocumentsMatchSQLite() throws {
        let seed = testSeed()
        var src = ValueSource(seed: seed)
        var failures: [String] = []
        for _ in 0..<(40 * stressFactor) {
            let oracle = Oracle()
            let db = try SQLConnection(engine: try StorageEngine.inMemory())
            var statements = ["CREATE TABLE person(id INTEGER PRIMARY KEY, profile TEXT)"]
            for id in 1...src.int(1...12) {
                statements.append("INSERT INTO person VALUES (\(id), \(Self.documentSQL(&src)))")
            }
            for statement in statements {
                oracle.execute(statement)
                try db.execute(statement)
            }
            let city = src.pick(Self.texts)
            let queries = [
                "SELECT id, profile ->> '$.city', profile -> '$.address', json_extract(profile, '$.tags[1]') FROM person ORDER BY id",
                "SELECT count(*) FROM person WHERE profile ->> '$.city' = '\(city)'",
                "SELECT count(*), sum(json_extract(profile, '$.age')), max(json_extract(profile, '$.age')) FROM person WHERE json_extract(profile, '$.age') >= \(src.int(0...100))",
                "SELECT count(*) FROM person, json_each(person.profile, '$.tags') WHERE json_each.value = '\(city)'",
                "SELECT person.id, key, value, type, json_each.id FROM person, json_each(person.profile) ORDER BY person.id, key",
                "SELECT id, length(profile), profile = json(profile) FROM person ORDER BY id",
            ]
            for sql in queries {
                let expected = SelectDifferentialTests.sqlite(oracle, sql)
                let actual = SelectDifferentialTests.granite(db, sql)
                if let why = SelectDifferentialTests.mismatch(expected, actual, ordered: true) {
                    failures.append("\(statements.dropFirst()) \(sql): \(why)")
                }
            }
        }
        XCTAssert(
            failures.isEmpty,
            "\(failures.count) mismatches (GRANITE_SEED=\(seed)):\n" + failures.prefix(20).joined(separator: "\n"))
    }
}
