import CSQLiteOracle
import Foundation
import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// The table-valued functions `json_each` and `json_tree` (SQLite 3.40's JSON1, before JSONB) run on SQLite and
/// Granite: every column, hidden ones included, of random documents (nested arrays and objects, every value type,
/// unicode, escapes, big and small numbers) walked from the root or from paths into them; joined to and
/// correlated with a table of JSON values (long ones stored compressed), through subqueries, views and common
/// tables, with parameters; and each error.
final class JSONEachDifferentialTests: XCTestCase {
    typealias Generator = JSONFunctionDifferentialTests.Generator

    static let allColumns = "key, value, type, atom, id, parent, fullkey, path, json, root"

    /// A path into `document` that usually names one of its nodes: steps read off the document itself, with
    /// now and then a step that names nothing or is malformed.
    static func path(into document: String, _ generator: inout Generator) -> String {
        guard var node = try? JSONSerialization.jsonObject(with: Data(document.utf8), options: [.fragmentsAllowed])
        else { return generator.path() }
        var path = "$"
        for _ in 0..<generator.src.int(0...3) {
            if let array = node as? [Any], !array.isEmpty {
                let index = generator.src.int(0...(array.count - 1))
                path += generator.src.int(0...5) == 0 ? "[#-\(array.count - index)]" : "[\(index)]"
                node = array[index]
            } else if let object = node as? [String: Any], !object.isEmpty {
                let chosen = generator.src.pick(object.keys.sorted())
                // A path names a key by its text as written: one needing escapes is left to the random paths.
                if chosen.unicodeScalars.contains(where: { $0.value < 0x20 || $0 == "\"" || $0 == "\\" }) { break }
                let plain = !chosen.isEmpty && chosen.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
                path += plain && generator.src.bool() ? ".\(chosen)" : ".\"\(chosen)\""
                node = object[chosen] ?? NSNull()
            } else {
                break
            }
        }
        if generator.src.int(0...9) == 0 { path += generator.step() }
        return Generator.literal(path)
    }

    /// The arguments of a call over a random document: the document, and often a path.
    static func arguments(_ generator: inout Generator) -> String {
        let document = generator.src.int(0...7) == 0 ? generator.maybeMalformed() : generator.document()
        switch generator.src.int(0...5) {
        case 0: return generator.documentSQL()
        case 1, 2: return Generator.literal(document)
        default: return Generator.literal(document) + ", " + path(into: document, &generator)
        }
    }

    func testRandomDocumentsMatchSQLite() throws {
        let seed = testSeed()
        var generator = Generator(src: ValueSource(seed: seed))
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        var failures: [String] = []
        var counts = JSONFunctionDifferentialTests.OutcomeCounts()
        var cases = 0
        for _ in 0..<(700 * stressFactor) {
            let arguments = Self.arguments(&generator)
            let function = generator.src.pick(["json_each", "json_tree"])
            let queries = [
                "SELECT \(Self.allColumns) FROM \(function)(\(arguments))",
                generator.src.pick([
                    "SELECT * FROM \(function)(\(arguments)) AS j ORDER BY j.id DESC",
                    "SELECT j.*, typeof(value), typeof(atom) FROM \(function)(\(arguments)) j",
                    "SELECT json_array(value), json_array(atom), json_object('v', value) FROM \(function)(\(arguments))",
                    "SELECT json_group_array(value), count(*), sum(id) FROM \(function)(\(arguments))",
                    "SELECT key, value FROM \(function)(\(arguments)) WHERE type IN ('integer', 'real', 'text')",
                    "SELECT fullkey, path FROM \(function)(\(arguments)) WHERE atom IS NULL",
                    "SELECT count(*) FROM \(function)(\(arguments)) a, \(function)(\(arguments)) b WHERE a.id = b.parent",
                    "SELECT rowid, j.oid, id, key FROM \(function)(\(arguments)) AS j WHERE _rowid_ % 2 = 0 "
                        + "ORDER BY rowid DESC",
                ]),
            ]
            for sql in queries {
                let expected = SelectDifferentialTests.sqlite(oracle, sql)
                counts.count(expected)
                cases += 1
                let actual = SelectDifferentialTests.granite(db, sql)
                if let why = SelectDifferentialTests.mismatch(expected, actual, ordered: true) {
                    failures.append("\(sql): \(why)")
                }
            }
        }
        XCTAssertGreaterThanOrEqual(cases, 1000)
        counts.assertMixed(total: cases, share: 0.02, seed: seed)
        XCTAssert(
            failures.isEmpty,
            "\(failures.count) mismatches (GRANITE_SEED=\(seed)):\n" + failures.prefix(30).joined(separator: "\n"))
    }

    /// A table of JSON values read through json_each and json_tree: correlated calls in joins (comma, JOIN …
    /// ON, LEFT JOIN), in EXISTS and scalar subqueries, in views and common tables.
    func testCorrelatedCallsMatchSQLite() throws {
        let seed = testSeed()
        var generator = Generator(src: ValueSource(seed: seed))
        var failures: [String] = []
        var cases = 0
        for _ in 0..<(60 * stressFactor) {
            let oracle = Oracle()
            let db = try SQLConnection(engine: try StorageEngine.inMemory())
            var statements = [
                "CREATE TABLE t(id INTEGER PRIMARY KEY, doc TEXT, p TEXT)",
                "CREATE VIEW v AS SELECT t.id AS tid, j.key, j.value, j.type FROM t, json_tree(t.doc) AS j",
            ]
            for k in 0..<generator.src.int(0...8) {
                var document = generator.src.int(0...9) == 0 ? generator.maybeMalformed() : generator.document()
                if generator.src.int(0...3) == 0 {
                    // Long enough to be stored compressed.
                    document = "{\"pad\":\"\(String(repeating: "abc", count: 80))\",\"d\":\(generator.document())}"
                }
                if generator.src.int(0...9) == 0 { document = "NULL" }
                // A lone surrogate decodes to bytes that are not UTF-8, which a Swift string cannot keep apart
                // from U+FFFD: grouping by such values would differ for that reason alone.
                document = document.replacingOccurrences(of: "\\ud800", with: "\\u00e8")
                    .replacingOccurrences(of: "\\udc00", with: "\\u00e9")
                let doc = document == "NULL" ? "NULL" : Generator.literal(document)
                let path = generator.src.pick(["'$'", "'$.a'", "'$[0]'", "NULL", "'$.d'", "'$[1]'"])
                statements.append("INSERT INTO t VALUES (\(k + 1), \(doc), \(path))")
            }
            for statement in statements {
                oracle.execute(statement)
                try db.execute(statement)
            }
            let value = generator.src.pick(["1", "'a'", "'b'", "NULL", "1.5", "'xyz'", "0"])
            let function = generator.src.pick(["json_each", "json_tree"])
            let queries = [
                "SELECT t.id, j.key, j.value, j.type, j.id, j.fullkey FROM t, \(function)(t.doc) AS j ORDER BY t.id, j.id",
                "SELECT t.id, j.* FROM t JOIN \(function)(t.doc, t.p) j ON j.type <> 'null' ORDER BY 1, j.id",
                "SELECT t.id, j.key, j.atom FROM t LEFT JOIN \(function)(t.doc, t.p) AS j ON j.atom = \(value) ORDER BY 1, j.id",
                "SELECT id FROM t WHERE EXISTS (SELECT 1 FROM \(function)(t.doc) WHERE value = \(value)) ORDER BY id",
                "SELECT id, (SELECT count(*) FROM \(function)(t.doc, '$.d')) FROM t ORDER BY id",
                "SELECT count(*) FROM t, \(function)(t.doc) WHERE \(function).value = \(value)",
                "SELECT tid, key, value, type FROM v WHERE type <> 'object' ORDER BY tid, key, value",
                "WITH c AS (SELECT id, doc FROM t WHERE id > 1) SELECT c.id, e.fullkey FROM c, \(function)(c.doc) e ORDER BY 1, e.id",
                "SELECT t.id, json_group_array(j.value) FROM t, \(function)(t.doc) j GROUP BY t.id ORDER BY t.id",
                "SELECT j.value, count(*) FROM t, \(function)(t.doc) j WHERE j.atom IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1",
            ]
            for sql in queries {
                cases += 1
                let expected = SelectDifferentialTests.sqlite(oracle, sql)
                let actual = SelectDifferentialTests.granite(db, sql)
                if let why = SelectDifferentialTests.mismatch(expected, actual, ordered: true) {
                    failures.append("\(statements.dropFirst(2)) \(sql): \(why)")
                }
            }
        }
        XCTAssertGreaterThanOrEqual(cases, 500)
        XCTAssert(
            failures.isEmpty,
            "\(failures.count) mismatches (GRANITE_SEED=\(seed)):\n" + failures.prefix(30).joined(separator: "\n"))
    }

    /// Parameters as the document, the path and in the WHERE clause.
    func testParametersMatchSQLite() throws {
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        let setup = [
            "CREATE TABLE t(id INTEGER PRIMARY KEY, tags TEXT)",
            "INSERT INTO t VALUES (1, '[\"a\",\"b\"]'), (2, '[\"b\",\"c\",\"b\"]'), (3, '{\"x\":\"b\"}'), (4, NULL)",
        ]
        for statement in setup {
            oracle.execute(statement)
            try db.execute(statement)
        }
        let cases: [(String, [Value])] = [
            ("SELECT count(*) FROM t, json_each(t.tags) AS j WHERE j.value = ?", [.text("b")]),
            ("SELECT count(*) FROM t, json_each(t.tags) AS j WHERE j.value = ?", [.text("zz")]),
            ("SELECT group_concat(value) FROM json_each(?)", [.text("[1,2,3]")]),
            ("SELECT group_concat(fullkey) FROM json_tree(?, ?)", [.text("{\"a\":[1,{\"b\":2}]}"), .text("$.a")]),
            ("SELECT count(*) FROM json_each(?, ?)", [.text("[1,2]"), .null]),
            ("SELECT count(*) FROM json_each(?)", [.integer(7)]),
            ("SELECT group_concat(key) FROM json_each(?1, ?2) WHERE value > ?3", [.text("[5,6,7]"), .text("$"), .integer(5)]),
            ("SELECT count(*) FROM json_each(?)", [.text("[1,")]),
            ("SELECT count(*) FROM json_each('[1]', ?)", [.text("$[")]),
            ("SELECT count(*) FROM json_each(:doc) WHERE value = :v", [.text("[1,1,2]"), .integer(1)]),
        ]
        for (sql, arguments) in cases {
            let expected = oracle.row(sql, arguments)
            let actual: [Outcome]
            do {
                actual = (try db.query(sql, arguments: arguments).rows.first ?? []).map { .value($0) }
            } catch {
                actual = [.error(graniteMessage(error))]
            }
            XCTAssertEqual(actual, expected, sql)
        }
    }

    /// Paths SQLite treats specially: duplicate keys (the first wins), escaped labels (matched as written),
    /// `[#]` and `[#-N]`, steps past a scalar, quoted keys, indexes out of range, scalars as the start node.
    func testPathEdgeCasesMatchSQLite() throws {
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        let calls: [(String, [String])] = [
            (#"{"a":1,"a":[2,3]}"#, ["$.a", "$.a[0]", "$"]),
            (#"{"a":[1],"a":[2,3]}"#, ["$.a", "$.a[1]", "$.a[0]"]),
            ("[[1,2],[3],4]", ["$[1]", "$[#-1]", "$[#-3]", "$[#]", "$[3]", "$[0][1]", "$[2]", "$[#-4]"]),
            (#"{"a b":{"c":[true,false,null]}}"#, [#"$."a b".c"#, #"$."a b""#, "$.a b", #"$."a b".c[2]"#]),
            (#"{"a":[1],"a":[2]}"#, ["$.a", #"$."a""#]),
            (#"{"a":{"b":[1,{"c":2}]}}"#, ["$.a.b[1]", "$.a.b[1].c", "$.a.b.c", "$.a.b[1][0]", "$.a.", "$.a.b[x]"]),
            ("[1,2]", ["$[0]", "$[1].a", "$[1][0]", "$.x", "$[1]."]),
            (#"{"a":{"a":{"a":[1,[2]]}}}"#, ["$.a.a.a", "$.a.a.a[1]", "$.a.a"]),
            ("[1] x", ["$[0]", "$"]),
            (#"  {"k" : [ 1 , 2 ] }  "#, ["$.k", "$"]),
            ("[]", ["$", "$[0]"]),
            ("{}", ["$", "$.a"]),
            (#""s""#, ["$", "$[0]"]),
            (#"{"x":[{"y":[{"z":1}]}]}"#, ["$.x[0].y[0]", "$.x[0].y", "$.x[0]"]),
        ]
        for function in ["json_each", "json_tree"] {
            for (document, paths) in calls {
                for path in paths {
                    let sql =
                        "SELECT \(Self.allColumns) FROM \(function)(\(Generator.literal(document)), \(Generator.literal(path)))"
                    let expected = SelectDifferentialTests.sqlite(oracle, sql)
                    let actual = SelectDifferentialTests.granite(db, sql)
                    XCTAssertNil(SelectDifferentialTests.mismatch(expected, actual, ordered: true), sql)
                }
            }
        }
    }

    /// Each error, with SQLite's message.
    func testErrorsMatchSQLite() throws {
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        for statement in ["CREATE TABLE t(a)", "CREATE VIEW v AS SELECT 1", "INSERT INTO t VALUES ('[1')"] {
            oracle.execute(statement)
            try db.execute(statement)
        }
        let statements = [
            "SELECT * FROM json_each('[1')",
            "SELECT * FROM json_tree('{\"a\":}')",
            "SELECT * FROM json_each('[1]', 'x')",
            "SELECT * FROM json_each('[1]', '$[')",
            "SELECT * FROM json_tree('{\"a\":1}', '$.a.')",
            "SELECT * FROM json_each('{\"a\":1}', '$.\"a')",
            "SELECT * FROM json_each('[1]', '$', 3)",
            "SELECT * FROM json_tree('[1]', '$', 3, 4)",
            "SELECT * FROM json_each()",
            "SELECT * FROM json_each(NULL)",
            "SELECT * FROM json_each('[1]', NULL)",
            "SELECT * FROM no_such_function(1)",
            "SELECT * FROM t(1)",
            "SELECT * FROM v(1)",
            "WITH c AS (SELECT 1) SELECT * FROM c(1)",
            "SELECT * FROM other.json_each('[1]')",
            "SELECT * FROM other.no_such_function('[1]')",
            "SELECT * FROM main.json_each('[1]')",
            "SELECT json_each.json FROM json_each('[1]') AS j",
            "SELECT j.nope FROM json_each('[1]') AS j",
            "SELECT a FROM t, json_each(t.a)",
            "SELECT * FROM json_each(count(*))",
            "SELECT * FROM json_each('[1]') WHERE json_each.json = '[1]' AND root = '$'",
            // The text ends at its first NUL, as SQLite's C string does.
            "SELECT *, json FROM json_each('[1,2]' || char(0) || 'garbage')",
            "SELECT * FROM json_tree('{\"a\":[1]}' || char(0) || '{', '$.a')",
            "SELECT json_extract('{\"a\":1}' || char(0) || 'x', '$.a'), ('[5]' || char(0)) ->> 0",
            "SELECT json_extract('{\"a\":1' || char(0) || '}', '$.a')",
        ]
        for sql in statements {
            let expected = SelectDifferentialTests.sqlite(oracle, sql)
            let actual = SelectDifferentialTests.granite(db, sql)
            XCTAssertNil(SelectDifferentialTests.mismatch(expected, actual, ordered: true), sql)
        }
    }

    /// A path argument that changes from row to row, between simple paths (walked over the text from the start
    /// they name), the same text again, paths that need the document's tree, NULL and malformed ones: each row
    /// walks from its own path.
    func testPathChangingByRowMatchesSQLite() throws {
        let paths = ["'$.a'", "'$.a'", "'$[#-1]'", "'$.b'", "NULL", "'$'", "'$.a[1]'", "'$.a'", "'$[0]'", "'$.b'"]
        var statements = ["CREATE TABLE t(id INTEGER PRIMARY KEY, doc TEXT, p TEXT)"]
        for (k, path) in paths.enumerated() {
            statements.append(#"INSERT INTO t VALUES (\#(k + 1), '{"a":[1,"x",[2]],"b":{"c":"x"}}', \#(path))"#)
        }
        statements += [
            "SELECT t.id, j.key, j.value, j.id, j.fullkey, j.path, j.root FROM t, json_each(t.doc, t.p) AS j ORDER BY 1, 4",
            "SELECT t.id, count(*) FROM t, json_each(t.doc, t.p) AS j WHERE j.value = 'x' GROUP BY t.id ORDER BY 1",
            "SELECT t.id, j.fullkey FROM t, json_each('[[1,2],{\"a\":3}]', t.p) AS j ORDER BY 1, 2",
            "INSERT INTO t VALUES (20, '[1]', '$[')",
            "SELECT t.id, j.fullkey FROM t, json_each(t.doc, t.p) AS j ORDER BY 1, 2",
        ]
        SelectDifferentialTests.compareInOrder(
            statements, Oracle(), try SQLConnection(engine: try StorageEngine.inMemory()))
    }

    /// The rowid of json_each and json_tree (and of the pragma functions): the number of the row in its call,
    /// from 0 (from 1 for a pragma), counted again for each call of a correlated one; not part of `*`.
    func testRowidMatchesSQLite() throws {
        let statements = [
            "CREATE TABLE t(id INTEGER PRIMARY KEY, doc)",
            "INSERT INTO t(doc) VALUES ('[10,20,{\"a\":1}]'), ('{\"x\":[1,2]}'), ('5'), (NULL)",
            "SELECT rowid, id, key, value FROM json_each('[10,20,{\"a\":1}]')",
            "SELECT rowid, id, key, fullkey FROM json_tree('[10,20,{\"a\":[1,2]}]')",
            "SELECT rowid, id, key FROM json_each('{\"a\":1,\"b\":[2,3]}', '$.b')",
            "SELECT rowid, id, fullkey FROM json_tree('{\"a\":1,\"b\":[2,3]}', '$.b')",
            "SELECT j.rowid, j.oid, j._rowid_, typeof(j.rowid) FROM json_each('[1,2]') AS j",
            "SELECT rowid, * FROM json_each('[1]')",
            "SELECT json_each.* FROM json_each('[1]')",
            "SELECT * FROM json_each('[1, 2]') WHERE rowid = 1",
            "SELECT count(*) FROM json_each('[1,2,3]') WHERE rowid > 1",
            "SELECT rowid FROM json_each('[1]'), json_each('[2]')",
            "SELECT a.rowid, b.rowid FROM json_each('[1, 2]') AS a, json_tree('[3, [4]]') AS b",
            "SELECT t.id, j.rowid, j.key FROM t, json_tree(t.doc) AS j ORDER BY t.id, j.rowid",
            "SELECT t.id, j.rowid, j.value FROM t LEFT JOIN json_each(t.doc) AS j ORDER BY 1, 2",
            "SELECT t.id, (SELECT max(rowid) FROM json_tree(t.doc)) FROM t",
            "SELECT rowid FROM t, json_each(t.doc)",
            "SELECT j.rowid, j.id FROM json_each('[1,[2]]') AS j ORDER BY j.rowid DESC",
            "CREATE TABLE p(a, b)",
            "SELECT rowid, cid, name FROM pragma_table_info('p')",
            "SELECT p.rowid, p.cid FROM pragma_table_info('p') AS p, t WHERE t.id = 1",
        ]
        SelectDifferentialTests.compareInOrder(
            statements, Oracle(), try SQLConnection(engine: try StorageEngine.inMemory()))
    }
}
