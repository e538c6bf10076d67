import CSQLiteOracle
import Dispatch
import Foundation
import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// Focused checks of each JSON function, operator and error, each statement run on SQLite and Granite.
final class JSONFunctionTests: XCTestCase {
    /// Runs each statement on both engines (against the same tables) and fails on any difference.
    func assertSameAsSQLite(
        _ statements: [String], setup: [String] = [], file: StaticString = #filePath, line: UInt = #line
    )
        throws
    {
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        for statement in setup {
            oracle.execute(statement)
            try db.execute(statement)
        }
        for sql in statements {
            let expected = SelectDifferentialTests.sqlite(oracle, sql)
            let actual = SelectDifferentialTests.granite(db, sql)
            if let why = SelectDifferentialTests.mismatch(expected, actual, ordered: true) {
                XCTFail("\(sql): \(why)", file: file, line: line)
            }
        }
    }

    /// Granite's single result of `sql`, or its error message.
    func granite(_ sql: String) throws -> String {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        switch SelectDifferentialTests.granite(db, sql) {
        case .rows(_, let rows): return rows.first?.first.map { "\($0)" } ?? "no row"
        case .failure(let message): return "error: \(message)"
        }
    }

    func testJSONMinifiesAndRejectsMalformedText() throws {
        try assertSameAsSQLite([
            "SELECT json(' { \"a\" :\t[ 1 , 2.50 ,\n\"x\" ] ,\r\"b\":null } ')", "SELECT json('\"\\u0041\\/\"')",
            "SELECT json('1E5'), json('-0'), json('123456789012345678901234'), json('1e400')",
            "SELECT json('{\"a\":1,\"a\":2}')", "SELECT json(NULL)", "SELECT json(12), json(1.5), json(x'5b315d')",
            "SELECT json('')", "SELECT json('[1,]')", "SELECT json('01')", "SELECT json('1.')", "SELECT json('.5')",
            "SELECT json('\"a' || char(9) || 'b\"')", "SELECT json('nulls')", "SELECT json('[1] x')",
            "SELECT json('\"\\x\"')", "SELECT json('\"\\u12\"')", "SELECT json(char(12) || '1')",
            "SELECT json('{\"a\"}')",
            "SELECT json('[1]' || char(0) || 'garbage')",
        ])
    }

    func testNestingDepthLimit() throws {
        func nested(_ depth: Int, open: String, close: String) -> String {
            "'" + String(repeating: open, count: depth) + "1" + String(repeating: close, count: depth) + "'"
        }
        var statements: [String] = []
        for depth in [1999, 2000, 2001] {
            let arrays = nested(depth, open: "[", close: "]")
            let objects = nested(depth, open: "{\"a\":", close: "}")
            statements += [
                "SELECT json_valid(\(arrays)), json_valid(\(objects))", "SELECT length(json(\(arrays)))",
                "SELECT json_extract(\(objects), '$.a.a')", "SELECT json_type(\(arrays))",
            ]
        }
        try assertSameAsSQLite(statements)
        // Far deeper than the limit: an error, not a stack overflow.
        let deep = String(repeating: "[", count: 100_000)
        XCTAssertEqual(try granite("SELECT json('\(deep)')"), "error: malformed JSON")
    }

    /// Documents at the depth limit are parsed, edited, patched and rendered on a thread with a 512 KB stack
    /// (a secondary thread's on Darwin), and paths that would build deeper documents fail rather than recurse.
    func testDeepDocumentsOnASmallStack() throws {
        let depth = 2000
        let arrays = "'" + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "'"
        let objects =
            "'" + String(repeating: "{\"a\":", count: depth) + "1" + String(repeating: "}", count: depth) + "'"
        let deepPath = "'$" + String(repeating: ".a", count: depth) + "'"
        let statements = [
            "SELECT json_valid(\(arrays)), length(json(\(objects))), json_extract(\(objects), \(deepPath))",
            "SELECT length(json_set(\(objects), \(deepPath), 2)), length(json_remove(\(objects), \(deepPath)))",
            "SELECT length(json_patch(\(objects), \(objects))), length(json_patch('{}', \(objects)))",
            "SELECT length(json_patch(\(objects), replace(\(objects), '1', 'null')))",
            "SELECT json_type(\(arrays), '$\(String(repeating: "[0]", count: depth - 1))')",
        ]
        /// What the thread saw; read only after it signals `finished`.
        final class Outcomes: @unchecked Sendable { var list: [String] = [] }
        let box = Outcomes()
        let finished = DispatchSemaphore(value: 0)
        let thread = Thread {
            defer { finished.signal() }
            var outcomes: [String] = []
            defer { box.list = outcomes }
            do {
                let db = try SQLConnection(engine: try StorageEngine.inMemory())
                for sql in statements {
                    switch SelectDifferentialTests.granite(db, sql) {
                    case .rows(_, let rows): outcomes.append("\(rows)")
                    case .failure(let message): outcomes.append("error: \(message)")
                    }
                }
                let tooDeep = "'$" + String(repeating: ".a", count: 100_000) + "'"
                if case .failure(let message) = SelectDifferentialTests.granite(
                    db, "SELECT json_set('{}', \(tooDeep), 1)")
                {
                    outcomes.append("error: \(message)")
                }
            } catch {
                outcomes.append("setup failed: \(error)")
            }
        }
        thread.stackSize = 512 * 1024
        thread.start()
        XCTAssertEqual(finished.wait(timeout: .now() + 120), .success)
        let outcomes = box.list
        XCTAssertEqual(outcomes.count, statements.count + 1, "\(outcomes)")
        XCTAssertEqual(outcomes.last, "error: JSON nested too deep")
        // The same statements on SQLite.
        try assertSameAsSQLite(statements)
    }

    func testArrayObjectAndQuote() throws {
        try assertSameAsSQLite([
            "SELECT json_array(), json_array(1, 2.5, 'x', NULL, 1e400, -1e400, 1e20, 0.1)",
            "SELECT json_array(json('[1, 2]'), '[1,2]', json_array(3), json_object('a', 1))",
            "SELECT json_array(char(1, 8, 9, 10, 12, 13, 31, 34, 92, 127))", "SELECT json_array(x'00')",
            "SELECT json_object(), json_object('a', 1, 'b', json('{}'), 'c', '{}', 'a', NULL)",
            "SELECT json_object('a')", "SELECT json_object(1, 2)", "SELECT json_object('a', x'01', 2, 3)",
            "SELECT json_object('a', x'01')", "SELECT json_object(NULL, 1)",
            "SELECT json_quote(1), json_quote(1.0), json_quote('a\"b'), json_quote(NULL), json_quote(json('[1]'))",
            "SELECT json_quote(x'')", "SELECT json_quote(-9223372036854775808), json_quote(1e300)",
        ])
    }

    func testExtractAndArrows() throws {
        let doc = "'{\"a\":[1,{\"b\":null},\"x\"],\"c\":true,\"d\":1.5,\"e\":9223372036854775808,\"a.b\":7,\"\":0}'"
        try assertSameAsSQLite([
            "SELECT json_extract(\(doc), '$.a'), json_extract(\(doc), '$.a[1].b'), json_extract(\(doc), '$.c')",
            "SELECT json_extract(\(doc), '$.a[#-1]'), json_extract(\(doc), '$.a[#]'), json_extract(\(doc), '$.e')",
            "SELECT json_extract(\(doc), '$.\"a.b\"'), json_extract(\(doc), '$.\"\"'), json_extract(\(doc), '$.d')",
            "SELECT json_extract(\(doc), '$.a', '$.zz', '$.c'), json_extract(\(doc), '$.a', NULL)",
            "SELECT json_extract(\(doc)), json_extract(), json_extract(NULL, '$'), json_extract(\(doc), NULL)",
            "SELECT json_extract(\(doc), 'a')", "SELECT json_extract(\(doc), '$.a[')",
            "SELECT json_extract(\(doc), '$.c[')", "SELECT json_extract(\(doc), '$[1x]')",
            "SELECT json_extract(\(doc), '$.')", "SELECT json_extract(\(doc), '$.\"a')",
            "SELECT json_extract('[1,2]', '$[#-3]'), json_extract('[1,2]', '$[4294967296]')",
            "SELECT \(doc) -> 'a', \(doc) ->> 'a', \(doc) -> '$.a[2]', \(doc) ->> '$.a[2]', \(doc) -> 'c'",
            "SELECT '[5,6]' -> 1, '[5,6]' ->> 0, '[5,6]' -> '[1]', '{\"-1\":3}' ->> -1, '[1]' -> NULL",
            "SELECT '[1]' -> 1.5", "SELECT '{\"a\":1}' -> ''", "SELECT '{\"a\":2}' -> 'a' || 'x'",
            "SELECT 1 + '{\"a\":2}' ->> 'a' * 3", "SELECT json_array('{\"a\":[1]}' -> 'a', '{\"a\":[1]}' ->> 'a')",
            "SELECT json_extract('\"\\u0041\\ud83d\\ude00\\n\"', '$'), json_extract('\"a\\u0000b\"', '$')",
            "SELECT json_extract('\"\\u00e9\\u65e5\"', '$'), typeof(json_extract('[-0]', '$[0]'))",
            "SELECT json_extract('[5.7728657164356816e-297, -8.03865180071594e-283, 2.2250738585072011e-308]', '$')",
            "SELECT '[5.7728657164356816e-297]' ->> 0, '[-8.03865180071594e-283]' ->> 0",
            "SELECT '[1.000000000000000111]' ->> 0",
        ])
    }

    func testTypeValidAndArrayLength() throws {
        try assertSameAsSQLite(
            [
                "SELECT json_type('[1, 1.5, \"x\", null, true, false, {}, []]', '$[' || i || ']') FROM n ORDER BY i",
                "SELECT json_type('{}'), json_type(NULL), json_type('[1]', NULL), json_type('1e400')",
                "SELECT json_type('x')", "SELECT json_type('[1]', 'x')",
                "SELECT json_valid('{}'), json_valid('{'), json_valid(NULL), json_valid(1), json_valid(x'5b5d')",
                "SELECT json_array_length('[1,2,[3]]'), json_array_length('{}')",
                "SELECT json_array_length('[1,[2,3]]', '$[1]')",
                "SELECT json_array_length('[1]', '$.x'), json_array_length('[1]', NULL), json_array_length(NULL)",
                "SELECT json_array_length('[')",
            ], setup: ["CREATE TABLE n(i INTEGER)", "INSERT INTO n VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8)"])
    }

    func testInsertReplaceSetAndRemove() throws {
        let doc = "'{\"a\":1,\"b\":[1,2],\"c\":{\"d\":4}}'"
        try assertSameAsSQLite([
            "SELECT json_insert(\(doc), '$.a', 9, '$.e', 5, '$.b[#]', 3, '$.b[5]', 6)",
            "SELECT json_replace(\(doc), '$.a', 9, '$.e', 5, '$.b[0]', json('[0]'), '$.c.d', 'x')",
            "SELECT json_set(\(doc), '$.a', 9, '$.e.f[0].g', 5, '$.b[#]', '[3]', '$.c', json('{\"z\":1}'))",
            "SELECT json_set(\(doc), '$.c', json('{\"d\":1}'), '$.c.d', 2), json_set('{\"a\":1}', '$.a', 2, '$.a', 3)",
            "SELECT json_set(\(doc), '$', 5), json_set(\(doc), '$', 'x'), typeof(json_replace('[]', '$', 1.5))",
            "SELECT json_set(\(doc), '$.x[1]', 1), json_set(\(doc), '$.x.', 1)",
            "SELECT json_set(\(doc), '$.a', 1, 'x', 2)",
            "SELECT json_set(\(doc), '$.a')", "SELECT json_insert('[]', 1)", "SELECT json_replace('{}', '$', 1, 2)",
            "SELECT json_set(), json_set(\(doc)), json_set(NULL, '$.a', 1), json_set(\(doc), NULL, 1)",
            "SELECT json_set(\(doc), '$.a', x'00')", "SELECT json_set(\(doc), '$.c', x'00', '$.c', 1)",
            "SELECT json_set('{}', '$.\"a b\"', 1, '$.a\"b', 2, '$.é', char(10))",
            "SELECT json_remove(\(doc), '$.a', '$.b[0]', '$.b[0]'), json_remove(\(doc), '$.zz'), json_remove(\(doc))",
            "SELECT json_remove(\(doc), '$'), json_remove(\(doc), NULL), json_remove(), json_remove(\(doc), '$.c.d')",
            "SELECT json_remove('{\"a\":1,\"a\":2}', '$.a', '$.a'), json_remove('[0,1,2]', '$[#-1]', '$[0]')",
            "SELECT json_remove(\(doc), '$', 'bad')", "SELECT json_remove(\(doc), '$.b[x]')",
        ])
    }

    /// After an edit appends to an array, SQLite's index lookups in the same call land on the appended
    /// elements (it follows its chain of appended chunks to the end).
    func testIndexesAfterAnAppendInTheSameCall() throws {
        try assertSameAsSQLite([
            "SELECT json_set('[5]', '$[1][0]', json('[]')), json_set('[5]', '$[1][0]', json('[]'), '$[0]', -1)",
            "SELECT json_set('[5]', '$[1]', 7, '$[0]', -1), json_set('[5]', '$[1].a', 7, '$[0]', -1)",
            "SELECT json_set('[5]', '$[1]', 7, '$[1]', 8), json_set('[5,6]', '$[2]', 7, '$[1]', 8, '$[0]', 9)",
            "SELECT json_set('[5]', '$[1]', 7, '$[2]', 8, '$[0]', 9), json_set('[[5]]', '$[0][1]', 7, '$[0][0]', 9)",
            "SELECT json_set('[5]', '$[1]', 7, '$[#]', 8, '$[#-1]', 9, '$[1]', 10, '$[3]', 11, '$[4]', 12)",
            "SELECT json_insert('[[1],2]', '$[2].a', 1, '$[0].c', 2), json_set('[1,2]', '$[2]', x'', '$[0]', 3)",
            "SELECT json_set('{\"a\":1}', '$.b', 7, '$.a', 8), json_set('{\"a\":1}', '$.b.c', 7, '$.b.d', 8)",
        ])
    }

    func testPatch() throws {
        try assertSameAsSQLite([
            "SELECT json_patch('{\"a\":1,\"b\":2}', '{\"a\":null,\"c\":3}')",
            "SELECT json_patch('{\"a\":{\"x\":1}}', '{\"a\":{\"y\":{\"z\":null,\"w\":1},\"x\":null}}')",
            "SELECT json_patch('[1]', '{\"a\":null,\"b\":{\"c\":null}}'), json_patch('{}', '[1,null]')",
            "SELECT json_patch('{\"a\":1}', '{\"a\":null,\"a\":5}'), json_patch('{}', '{\"x\":1,\"x\":2}')",
            "SELECT json_patch('{\"a\":{}}', '{\"a\":{\"b\":1},\"a\":{\"c\":2}}')",
            "SELECT json_patch('{\"a\":1}', '{\"a\":[1],\"a\":{\"c\":2}}')",
            "SELECT json_patch('{\"\\u0061\":1}', '{\"a\":2}'), json_patch(NULL, '{}'), json_patch('{}', NULL)",
            "SELECT json_patch('{', '{}')", "SELECT json_patch('{}', '}')",
        ])
    }

    func testJSONSubtypeOnlyReachesDirectArguments() throws {
        try assertSameAsSQLite(
            [
                "SELECT json_array(json('[1]'), json_extract('{\"a\":[2]}', '$.a'))",
                "SELECT json_array(json_extract('{\"a\":\"s\"}', '$.a'))",
                "SELECT json_object('k', '{\"a\":1}' -> 'a', 'l', '{\"a\":\"q\"}' ->> 'a', 'm', json_quote('x'))",
                "SELECT json_array(json_extract('[1,[2]]', '$[0]', '$[1]')), json_set('[]', '$[0]', json_array(1))",
                "SELECT json_array(json_set('[]', '$', 'x')), json_array(json_insert('{}', '$', 1))",
                "SELECT json_array(json_array(1) || ''), json_array(CAST(json_array(1) AS TEXT))",
                "SELECT json_array(+json('[1]')), json_array(min(json('[1]'), json('[2]')), max(json_array(x), '[9]'))",
                "SELECT json_array(max(json('[1]'), json('[1]'), '[1]'), min('[1]', json('[1]')), min(json('1'), 2))",
                "SELECT json_array(CASE WHEN x THEN json('[1]') END), json_array(coalesce(json('[1]'), x)) FROM t",
                "SELECT json_array(iif(x, json('[1]'), 0), ifnull(json('[2]'), 0), nullif(json('[3]'), x)) FROM t",
                "SELECT json_array(CASE x WHEN 1 THEN json_array(x) ELSE 0 END, likely(json_array(x))) FROM t",
                "SELECT json_array(json_array(x) COLLATE nocase, (json_array(x)), CAST(json_array(x) AS INT)) FROM t",
                "SELECT json_array(j) FROM (SELECT json('[1]') AS j FROM t)",
            ], setup: ["CREATE TABLE t(x)", "INSERT INTO t VALUES (1)"])
    }

    func testGroupAggregates() throws {
        let setup = [
            "CREATE TABLE t(g INTEGER, k, v)",
            "INSERT INTO t VALUES (1, 'a', 1), (1, 'b', 'x'), (2, NULL, NULL), (2, 3, 1.5), (2, 'j', '[1]')",
            "CREATE TABLE d(v)", "INSERT INTO d VALUES (NULL), (1), (1.0), (NULL), ('1'), ('a'), ('a'), (2)",
        ]
        try assertSameAsSQLite(
            [
                "SELECT json_group_array(v), json_group_object(k, v) FROM t",
                "SELECT g, json_group_array(v), json_group_object(k, json(v)) FROM t WHERE k <> 'b' GROUP BY g",
                "SELECT json_group_array(v) FROM t WHERE 0", "SELECT json_group_object(k, v) FROM t WHERE 0",
                "SELECT json_array(json_group_array(k)) FROM t", "SELECT json_group_array(json_array(v)) FROM t",
                "SELECT json_group_array(DISTINCT g) FROM t", "SELECT json_group_array(DISTINCT v) FROM d",
                "SELECT json_group_array(DISTINCT json_array(v)) FROM d", "SELECT json_group_array(x'00') FROM t",
                "SELECT json_group_array(v) FILTER (WHERE g = 1) FROM t", "SELECT json_group_object(k) FROM t",
            ], setup: setup)
    }

    /// JSON functions in schema expressions: a CHECK constraint, an index on an extracted member (used by
    /// queries that repeat the expression), a generated column.
    func testJSONInSchemaExpressions() throws {
        let setup = [
            "CREATE TABLE t(id INTEGER PRIMARY KEY, j TEXT CHECK (json_valid(j)))",
            "CREATE INDEX t_a ON t(json_extract(j, '$.a'))", "CREATE INDEX t_b ON t(j ->> 'b')",
            "INSERT INTO t(j) VALUES ('{\"a\":1,\"b\":\"x\"}'), ('{\"a\":2,\"b\":\"y\"}'), ('[]')",
        ]
        try assertSameAsSQLite(
            [
                "INSERT INTO t(j) VALUES ('{')", "SELECT id FROM t WHERE json_extract(j, '$.a') = 2",
                "SELECT id, j ->> 'a' FROM t WHERE j ->> 'b' = 'x'",
                "SELECT id FROM t ORDER BY json_extract(j, '$.a') DESC",
                "UPDATE t SET j = json_set(j, '$.a', 5) WHERE id = 1", "SELECT id, j FROM t ORDER BY id",
                "SELECT count(*) FROM t WHERE json_type(j) = 'object'",
            ], setup: setup)
    }

    /// Granite compresses large texts in its rows; the JSON functions see the text as it was stored.
    func testLargeCompressibleJSONColumn() throws {
        let path = try makeTemporaryDatabasePath()
        let db = try SQLConnection(engine: try StorageEngine(path: path))
        let items = (0..<5000).map { "{\"id\":\($0),\"name\":\"item\",\"tags\":[\"a\",\"b\",\"c\"]}" }
        let document = "[" + items.joined(separator: ",") + "]"
        try db.execute("CREATE TABLE docs(body TEXT)")
        try db.execute("INSERT INTO docs VALUES (?)", arguments: [.text(document)])
        let result = try db.query(
            "SELECT length(body), json_valid(body), json_array_length(body), body -> '$[4999].id', "
                + "json_extract(body, '$[2500].tags[#-1]'), json(body) = body FROM docs")
        XCTAssertEqual(
            result.rows,
            [
                [
                    .integer(Int64(document.utf8.count)), .integer(1), .integer(5000), .text("4999"), .text("c"),
                    .integer(1),
                ]
            ])
    }

    /// Strings are scanned eight bytes at a time: a quote, backslash escape, control character or non-ASCII
    /// byte at every offset of a long string, and strings cut short at every offset, read as SQLite reads them.
    func testStringDelimitersAtEveryOffset() throws {
        var statements: [String] = []
        for length in 0..<20 {
            for offset in 0...length {
                let head = String(repeating: "a", count: offset)
                let tail = String(repeating: "b", count: length - offset)
                for middle in ["\\\"", "\\\\", "\\u00e9", "\\n", "é", "\t", "\u{1}", "\"", "\\x", "\u{7f}"] {
                    let document = "{\"k\":\"\(head)\(middle)\(tail)\",\"n\":1}"
                    let literal = "'" + document.replacingOccurrences(of: "'", with: "''") + "'"
                    statements.append("SELECT json_valid(\(literal)), \(literal) ->> '$.k'")
                }
                let cut = "'{\"k\":\"\(head)\(tail)'"
                statements.append("SELECT json_valid(\(cut)), json_extract(\(cut), '$.z')")
            }
        }
        try assertSameAsSQLite(statements)
    }
}
