import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// The checking scan that finds a simple path's node without building the document's tree (located calls, the
/// byte test of a WHERE condition on stored text, json_each's start node) against SQLite, on documents built to
/// sit at its edges: strings of every length around the eight bytes it tests at once, with a quote, backslash,
/// escape, control character or non-ASCII byte at every place in them, documents cut short inside a string,
/// labels of several bytes that share a prefix with the path's keys, keys after other keys of the path, quoted
/// keys with dots; and json_each over a table whose documents change size from row to row (the walk keeps one
/// copy of the text between rows).
final class JSONScanDifferentialTests: XCTestCase {
    /// Pieces a string body may hold: escapes and non-ASCII text, and (only where `malformed` allows) a bad
    /// escape, a control character or a tab.
    private static let pieces = ["\\\"", "\\\\", "\\n", "\\u00e9", "é", "東", "\\/"]
    private static let malformedPieces = ["\\u12", "\u{01}", "\\x", "\t"]

    /// A string body of `length` plain bytes with, now and then, one special piece at a random place (a malformed
    /// one, rarely, when `malformed`).
    private static func body(_ src: inout ValueSource, length: Int, malformed: Bool) -> String {
        var characters = Array(repeating: "q", count: length)
        if length > 0, src.int(0...2) > 0 {
            let special = malformed && src.int(0...30) == 0 ? src.pick(malformedPieces) : src.pick(pieces)
            characters[src.int(0...(length - 1))] = special
        }
        return characters.joined()
    }

    /// A label the path may name: a key, one sharing its prefix, or a longer one.
    private static let labels = ["ab", "abc", "a", "abcdefghij", "a.b", "é", "abcdefg", "abcdefgh"]

    /// A document: an object of members whose labels come from ``labels`` and whose values are strings of
    /// lengths 0–17 (``body(_:length:)``), numbers, literals, arrays of strings or nested objects.
    private static func document(_ src: inout ValueSource, malformed: Bool, depth: Int = 0) -> String {
        var members: [String] = []
        for _ in 0..<src.int(1...5) {
            let label = src.int(0...5) == 0 ? body(&src, length: src.int(0...10), malformed: malformed) : src.pick(labels)
            let value: String
            switch src.int(0...6) {
            case 0...2: value = "\"\(body(&src, length: src.int(0...17), malformed: malformed))\""
            case 3: value = src.pick(["1", "-20", "3.5", "true", "null", "false", "1e3"])
            case 4:
                let elements = (0..<src.int(0...4)).map { _ in "\"\(body(&src, length: src.int(0...12), malformed: malformed))\"" }
                value = "[" + elements.joined(separator: src.pick([",", " , "])) + "]"
            default: value = depth < 2 ? document(&src, malformed: malformed, depth: depth + 1) : "{}"
            }
            members.append("\"\(label)\"" + src.pick([":", " : "]) + value)
        }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// A path of one to three steps over ``labels`` (quoted when they hold a dot) and indexes.
    private static func path(_ src: inout ValueSource) -> String {
        var path = "$"
        for _ in 0..<src.int(1...3) {
            if src.int(0...4) == 0 {
                path += "[\(src.int(0...2))]"
            } else {
                let label = src.pick(labels)
                path += label.contains(".") || src.int(0...5) == 0 ? ".\"\(label)\"" : ".\(label)"
            }
        }
        return path
    }

    private static func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }

    func testScanEdgesMatchSQLite() throws {
        let seed = testSeed()
        var src = ValueSource(seed: seed)
        var failures: [String] = []
        var cases = 0
        var answered = 0
        // Tables come until there are enough of them and enough queries read a value (some seeds make more
        // malformed tables, whose queries all fail), within a bound.
        var tables = 0
        while tables < 25 * stressFactor || (answered <= cases / 5 && tables < 100 * stressFactor) {
            tables += 1
            // A malformed document makes every query over the table fail: only one table in four has them.
            let malformed = src.int(0...3) == 0
            let oracle = Oracle()
            let db = try SQLConnection(engine: try StorageEngine.inMemory())
            var statements = ["CREATE TABLE t(id INTEGER PRIMARY KEY, doc TEXT)"]
            for id in 1...src.int(2...12) {
                var text = Self.document(&src, malformed: malformed)
                switch src.int(0...9) {
                case 0 where malformed: text = String(text.utf8.prefix(src.int(1...text.utf8.count)).map { Character(Unicode.Scalar($0)) })
                case 1: text = "{\"pad\":\"\(String(repeating: "xyz", count: src.int(40...120)))\",\"ab\":\(text)}"
                default: break
                }
                statements.append("INSERT INTO t VALUES (\(id), \(Self.literal(text)))")
            }
            for statement in statements {
                oracle.execute(statement)
                try db.execute(statement)
            }
            for _ in 0..<6 {
                let path = Self.literal(Self.path(&src))
                let operand = src.pick(["'qqq'", "'q'", "1", "''", "'qqqqqqqq'", "NULL"])
                let queries = [
                    "SELECT id, json_extract(doc, \(path)), doc ->> \(path), doc -> \(path) FROM t ORDER BY id",
                    "SELECT count(*) FROM t WHERE doc ->> \(path) = \(operand)",
                    "SELECT id, doc -> \(path) FROM t WHERE json_extract(doc, \(path)) IS NOT \(operand) ORDER BY id",
                    "SELECT t.id, j.key, j.value, j.type, j.atom, j.id, j.fullkey, j.path FROM t, json_each(t.doc, \(path)) j "
                        + "ORDER BY t.id, j.id",
                    "SELECT t.id, j.key, j.value, j.id, j.fullkey FROM t, json_each(t.doc) j ORDER BY t.id, j.id",
                    "SELECT count(*) FROM t, json_each(t.doc, \(path)) j WHERE j.value = \(operand)",
                ]
                for sql in queries {
                    cases += 1
                    let expected = SelectDifferentialTests.sqlite(oracle, sql)
                    let actual = SelectDifferentialTests.granite(db, sql)
                    if case .rows(_, let rows) = expected, rows.contains(where: { $0.dropFirst().contains { $0 != .null } }) {
                        answered += 1
                    }
                    if let why = SelectDifferentialTests.mismatch(expected, actual, ordered: true) {
                        failures.append("\(statements.dropFirst()) \(sql): \(why)")
                    }
                }
            }
        }
        XCTAssertGreaterThanOrEqual(cases, 900)
        // Many queries read a value out of a well-formed document (a row with a value besides its first column).
        XCTAssertGreaterThan(answered, cases / 5, "GRANITE_SEED=\(seed)")
        XCTAssert(
            failures.isEmpty,
            "\(failures.count) mismatches (GRANITE_SEED=\(seed)):\n" + failures.prefix(20).joined(separator: "\n"))
    }
}
