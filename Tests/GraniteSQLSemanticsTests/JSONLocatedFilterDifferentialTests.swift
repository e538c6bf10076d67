import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// WHERE conditions that compare a located JSON call on a column (`doc ->> 'path' = operand`, `->`,
/// `json_extract`), which a table scan decides on the row's stored bytes, against SQLite: documents with escapes,
/// non-ASCII and invalid UTF-8 text, nested containers, duplicate keys (the first one counts), malformed text
/// (the error must come from the same row's evaluation), long documents stored compressed, and values that are
/// not TEXT (BLOB, numbers, NULL); every comparison operator, operands of every type and collation (a string
/// without escapes is compared by its bytes), several located conditions
/// in a row, and calls on the same document and path in the result columns (which reuse the scan's finding).
final class JSONLocatedFilterDifferentialTests: XCTestCase {
    private static let strings = ["x", "é", "a\\\"b", "\\u0078", "東京", "", "x y"]
    private static let paths = ["$.a", "$.b", "$.c.d", "$.c", "$.e[1]", "$", "$.missing", "a", "$.\"a\""]
    private static let operands = [
        "'x'", "'é'", "'a\"b'", "1", "2.5", "NULL", "'{\"d\":1}'", "'\"x\"'", "'true'", "'1'", "'X' COLLATE NOCASE",
        "'x  ' COLLATE RTRIM", "'x y' COLLATE NOCASE", "'' COLLATE BINARY",
    ]
    private static let operators = ["=", "!=", "<", ">=", "IS", "IS NOT"]

    /// A JSON scalar or small container.
    private static func member(_ src: inout ValueSource) -> String {
        switch src.int(0...8) {
        case 0...2: return "\"\(src.pick(strings))\""
        case 3: return String(src.int(-3...3))
        case 4: return src.pick(["2.5", "1e0", "-0.5"])
        case 5: return src.pick(["true", "false", "null"])
        case 6: return "{\"d\":\(src.pick(["1", "\"x\"", "[1,2]"]))}"
        case 7: return "[\"x\",\(src.int(0...2)),\"é\"]"
        default: return "\"\(String(repeating: src.pick(["ab", "é", "x"]), count: 90))\""  // long: compressed
        }
    }

    /// A document as an SQL expression: an object with members `a`–`e`, sometimes a duplicate `a`, sometimes
    /// malformed, invalid UTF-8, a BLOB, a number or NULL.
    private static func documentSQL(_ src: inout ValueSource) -> String {
        var members: [String] = []
        for key in ["a", "b", "c", "e"] where src.int(0...4) > 0 {
            members.append("\"\(key)\":\(member(&src))")
        }
        if src.bool() { members.insert("\"a\":\(member(&src))", at: src.int(0...members.count)) }
        let json = "{" + members.joined(separator: src.pick([",", " , "])) + "}"
        let quoted = "'\(json.replacingOccurrences(of: "'", with: "''"))'"
        switch src.int(0...15) {
        case 0: return "NULL"
        case 1: return "'\(json.dropLast().replacingOccurrences(of: "'", with: "''"))'"  // malformed
        case 2: return "CAST(\(quoted) AS BLOB)"
        case 3: return src.pick(["7", "2.5"])
        case 4:
            // Not valid UTF-8 inside the text.
            let hex = Array(json.utf8).map { String(format: "%02x", $0) }
            guard let quote = hex.firstIndex(of: "22") else { return quoted }
            return "CAST(x'\((hex[...quote] + ["e5"] + hex[(quote + 1)...]).joined())' AS TEXT)"
        default: return quoted
        }
    }

    private static func call(_ src: inout ValueSource, _ path: String) -> String {
        switch src.int(0...2) {
        case 0: return "doc ->> '\(path)'"
        case 1: return "doc -> '\(path)'"
        default: return "json_extract(doc, '\(path.hasPrefix("$") ? path : "$." + path)')"
        }
    }

    func testLocatedConditionsOnStoredDocumentsMatchSQLite() throws {
        let seed = testSeed()
        var src = ValueSource(seed: seed)
        var failures: [String] = []
        var queries = 0
        for _ in 0..<(30 * stressFactor) {
            let oracle = Oracle()
            let db = try SQLConnection(engine: try StorageEngine.inMemory())
            var statements = ["CREATE TABLE t(id INTEGER PRIMARY KEY, doc, tag TEXT)"]
            for id in 1...src.int(1...14) {
                statements.append("INSERT INTO t VALUES (\(id), \(Self.documentSQL(&src)), '\(src.pick(["k", "m"]))')")
            }
            for statement in statements {
                oracle.execute(statement)
                try db.execute(statement)
            }
            for _ in 0..<12 {
                let path = src.pick(Self.paths)
                let first = "\(Self.call(&src, path)) \(src.pick(Self.operators)) \(src.pick(Self.operands))"
                let second = "\(Self.call(&src, src.pick(Self.paths))) \(src.pick(Self.operators)) \(src.pick(Self.operands))"
                let condition: String
                switch src.int(0...3) {
                case 0: condition = first
                case 1: condition = "\(first) AND \(second)"
                case 2: condition = "\(first) AND tag = 'k'"
                default: condition = "tag = 'k' AND \(first)"
                }
                let sql = src.bool()
                    ? "SELECT id, \(Self.call(&src, path)), doc ->> '\(src.pick(Self.paths))' FROM t WHERE \(condition) ORDER BY id"
                    : "SELECT count(*), sum(json_extract(doc, '$.a')), max(doc ->> '\(path)') FROM t WHERE \(condition)"
                queries += 1
                let expected = SelectDifferentialTests.sqlite(oracle, sql)
                let actual = SelectDifferentialTests.granite(db, sql)
                if let why = SelectDifferentialTests.mismatch(expected, actual, ordered: true) {
                    failures.append("\(statements.dropFirst()) \(sql): \(why)")
                }
            }
        }
        XCTAssert(
            failures.isEmpty,
            "\(failures.count) of \(queries) queries differ (GRANITE_SEED=\(seed)):\n"
                + failures.prefix(10).joined(separator: "\n"))
    }

    /// Located conditions on a virtual generated column (not stored in the record), on a WITHOUT ROWID table, on
    /// a column added by ALTER TABLE (missing from older records), and on both tables of a join.
    func testLocatedConditionsOnOtherTableShapesMatchSQLite() throws {
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        let setup = [
            "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, g TEXT AS (json_object('c', a)) VIRTUAL, doc TEXT)",
            #"INSERT INTO t(id, a, doc) VALUES (1, 'x', '{"c":"y"}'), (2, 'y', '{"c":"x"}'), (3, 'x', '{"c":"x"}')"#,
            "CREATE TABLE w(k TEXT PRIMARY KEY, doc TEXT, n INT) WITHOUT ROWID",
            #"INSERT INTO w VALUES ('b', '{"c":"x"}', 1), ('a', '{"c":"y"}', 2), ('c', '[1]', 3)"#,
            #"ALTER TABLE w ADD COLUMN extra TEXT DEFAULT '{"c":"x"}'"#,
            #"INSERT INTO w VALUES ('d', '{"c":"x"}', 4, '{"c":"z"}')"#,
        ]
        for statement in setup {
            oracle.execute(statement)
            try db.execute(statement)
        }
        SelectDifferentialTests.compareInOrder(
            [
                "SELECT id FROM t WHERE doc ->> '$.c' = 'x' ORDER BY id",
                "SELECT id FROM t WHERE g ->> '$.c' = 'x' ORDER BY id",
                "SELECT id, g -> '$.c' FROM t WHERE g ->> '$.c' = 'x' AND doc ->> '$.c' = 'x' ORDER BY id",
                "SELECT k FROM w WHERE doc ->> '$.c' = 'x' ORDER BY k",
                "SELECT k FROM w WHERE json_extract(doc, '$[0]') = 1 ORDER BY k",
                "SELECT k FROM w WHERE extra ->> '$.c' = 'x' ORDER BY k",
                "SELECT k FROM w WHERE extra ->> '$.c' != 'x' ORDER BY k",
                "SELECT t.id, w.k FROM t, w WHERE w.doc ->> '$.c' = t.doc ->> '$.c' ORDER BY 1, 2",
                "SELECT t.id, w.k FROM t JOIN w ON w.doc ->> '$.c' = 'x' WHERE t.doc ->> '$.c' = 'y' ORDER BY 1, 2",
                "SELECT t.id, w.k FROM t LEFT JOIN w ON w.doc ->> '$.c' = 'z' WHERE t.doc ->> '$.c' = 'x' ORDER BY 1, 2",
            ], oracle, db)
    }

    /// The operand of a located condition bound as a parameter, rebound between executions of one prepared
    /// statement (the cursor reads it when it opens), gives the rows the same condition with the operand written
    /// as a constant gives.
    func testLocatedConditionWithReboundParameter() throws {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        try db.execute("CREATE TABLE person(id INTEGER PRIMARY KEY, profile TEXT)")
        let long = String(repeating: "ab", count: 100)
        let documents = [
            #"{"city":"Paris","age":30}"#, #"{"city":"Zürich","age":41}"#, #"{"age":30,"city":"Paris","city":"Rome"}"#,
            #"{"city":"Pa\"ris","age":"30"}"#, "{\"city\":\"Paris\",\"pad\":\"\(long)\",\"age\":52}", #"{"city":null}"#,
        ]
        for (k, document) in documents.enumerated() {
            try db.execute("INSERT INTO person VALUES (\(k + 1), '\(document)')")
        }
        let byCity = try db.prepare("SELECT group_concat(id) FROM person WHERE profile ->> '$.city' = ?")
        let byAge = try db.prepare("SELECT group_concat(id) FROM person WHERE json_extract(profile, '$.age') >= ?")
        let cases: [(PreparedStatement, String, Value, String)] = [
            (byCity, "profile ->> '$.city' =", .text("Paris"), "'Paris'"),
            (byCity, "profile ->> '$.city' =", .text("Zürich"), "'Zürich'"),
            (byCity, "profile ->> '$.city' =", .text("Pa\"ris"), "'Pa\"ris'"),
            (byCity, "profile ->> '$.city' =", .integer(1), "1"),
            (byCity, "profile ->> '$.city' =", .null, "NULL"),
            (byAge, "json_extract(profile, '$.age') >=", .integer(31), "31"),
            (byAge, "json_extract(profile, '$.age') >=", .text("3"), "'3'"),
            (byAge, "json_extract(profile, '$.age') >=", .real(41.5), "41.5"),
        ]
        for (statement, condition, operand, literal) in cases {
            statement.reset()
            try statement.bind(operand, at: 1)
            XCTAssert(try statement.stepRow())
            let bound = statement.column(at: 0)
            statement.reset()
            let written = try db.query("SELECT group_concat(id) FROM person WHERE \(condition) \(literal)").rows
            XCTAssertEqual([bound], written.first, "\(condition) \(literal)")
        }
        // Expected values, as SQLite gives them.
        let paris = try db.query("SELECT group_concat(id) FROM person WHERE profile ->> '$.city' = 'Paris'").rows
        XCTAssertEqual(paris, [[.text("1,3,5")]])
        let aged = try db.query("SELECT group_concat(id) FROM person WHERE json_extract(profile, '$.age') >= 31").rows
        XCTAssertEqual(aged, [[.text("2,4,5")]])
    }

    /// The location cache shared by a row's calls never answers for another document: documents of the same length
    /// but different bytes, from one row to the next and rebound as a parameter between executions of one
    /// statement, short (small string) and long, valid UTF-8 or not, and malformed after well-formed ones, give
    /// SQLite's results.
    func testRepeatedCallsOnSameLengthDocumentsMatchSQLite() throws {
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        let documents = [
            #"{"a":1,"b":"xxxxxxxxxxxxxxxxxxxx"}"#, #"{"a":2,"b":"xxxxxxxxxxxxxxxxxxxx"}"#,
            #"{"a":3,"b":"yyyyyyyyyyyyyyyyyyyy"}"#, #"{"b":"yyyyyyyyyyyyyyyyyyyy","a":4}"#, #"{"a":5}"#, #"{"a":6}"#,
            #"{"a":7,"b":"xxxxxxxxxxxxxxxxxxx",}"#, #"{"a":8,"b":"xxxxxxxxxxxxxxxxxxxx"}"#,
        ]
        var setup = ["CREATE TABLE t(id INTEGER PRIMARY KEY, doc TEXT)"]
        for (k, document) in documents.enumerated() { setup.append("INSERT INTO t VALUES (\(k + 1), '\(document)')") }
        setup.append(#"INSERT INTO t VALUES (20, CAST(X'7B2261223A392C2262223A22FF7878787878787878787878787878787878787878227D' AS TEXT))"#)
        for statement in setup {
            oracle.execute(statement)
            try db.execute(statement)
        }
        let sum = "sum(json_extract(doc, '$.a')), max(json_extract(doc, '$.a')), group_concat(doc ->> '$.b')"
        SelectDifferentialTests.compareInOrder(
            [
                "SELECT id, json_extract(doc, '$.a'), doc ->> '$.a', doc -> '$.b', json_extract(doc, '$.b') FROM t "
                    + "WHERE id < 7 OR id > 7 ORDER BY id",
                "SELECT count(*), \(sum) FROM t WHERE json_extract(doc, '$.a') >= 2 AND id <> 7",
                "SELECT count(*), \(sum) FROM t WHERE json_extract(doc, '$.a') >= 2",
                "SELECT count(*), \(sum) FROM t WHERE id >= 5",
                "SELECT id, json_extract(doc, '$.a'), doc ->> '$.a' FROM t WHERE id <> 7 ORDER BY id",
                "SELECT sum(json_extract(doc, '$.a')), group_concat(doc ->> '$.a') FROM t WHERE id <> 7",
            ], oracle, db)
        for sql in [
            "SELECT json_extract(?1, '$.a'), json_extract(?1, '$.a'), ?1 ->> '$.b', ?1 ->> '$.b'",
            "SELECT json_extract(?1, '$.a'), ?1 ->> '$.a'",
        ] {
            try compareRebound(sql, documents + documents.reversed(), oracle, db)
        }
    }

    /// `sql` run by one prepared statement with each of `documents` bound to its parameter in turn, against SQLite.
    private func compareRebound(_ sql: String, _ documents: [String], _ oracle: Oracle, _ db: SQLConnection) throws {
        let statement = try db.prepare(sql)
        for document in documents {
            let operand = Value.text(document)
            let expected = oracle.row(sql, [operand])
            let actual = try statement.firstRow(binding: operand)
            // The oracle reports a failed step once per column.
            if case .error = expected.first {
                XCTAssertEqual(actual.first, expected.first, document)
            } else {
                XCTAssertEqual(actual, expected, document)
            }
        }
    }
}
