import GraniteSQL
import GraniteStorage
import XCTest

/// Table-valued functions in FROM (json_each, json_tree): parsing and printing, hidden columns, the JSON subtype
/// of `value`, the query plan, and re-execution with new arguments. (Differential tests against SQLite:
/// JSONEachDifferentialTests.)
final class TableFunctionTests: XCTestCase {
    private func connection() throws -> SQLConnection {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        try db.execute(
            """
            CREATE TABLE t(id INTEGER PRIMARY KEY, tags TEXT);
            INSERT INTO t VALUES (1, '["a","b"]'), (2, '["b",{"c":[1]}]'), (3, NULL);
            """)
        return db
    }

    func testCallsParseAndPrint() {
        assertCanonical(
            "select key from json_each(t.tags, '$.a') as j",
            "SELECT key FROM json_each(t.tags, '$.a') AS j")
        assertCanonical("SELECT * FROM main.json_tree(?)", "SELECT * FROM main.json_tree(?)")
        assertCanonical("SELECT * FROM json_each()", "SELECT * FROM json_each()")
        assertCanonical(
            "SELECT * FROM t LEFT JOIN json_each(t.tags) e ON e.value = 'a'",
            "SELECT * FROM t LEFT JOIN json_each(t.tags) AS e ON (e.value = 'a')")
    }

    func testHiddenColumnsAreReadByNameButNotByStar() throws {
        let db = try connection()
        let all = try db.query("SELECT * FROM json_each('[1]')")
        XCTAssertEqual(all.columns, ["key", "value", "type", "atom", "id", "parent", "fullkey", "path"])
        let qualified = try db.query("SELECT j.* FROM json_each('[1]') AS j")
        XCTAssertEqual(qualified.columns.count, 8)
        let hidden = try db.query("SELECT json, root, j.json FROM json_each('[1]', '$') AS j")
        XCTAssertEqual(hidden.rows, [[.text("[1]"), .text("$"), .text("[1]")]])
    }

    func testValueKeepsTheJSONSubtypeAsAJSONArgument() throws {
        let db = try connection()
        let rows = try db.query(
            "SELECT json_array(value), json_array(atom), json_array(value || '') FROM json_each('[[1],{\"a\":2},\"s\"]')"
        ).rows
        XCTAssertEqual(
            rows,
            [
                [.text("[[1]]"), .text("[null]"), .text("[\"[1]\"]")],
                [.text("[{\"a\":2}]"), .text("[null]"), .text("[\"{\\\"a\\\":2}\"]")],
                [.text("[\"s\"]"), .text("[\"s\"]"), .text("[\"s\"]")],
            ])
        let grouped = try db.query("SELECT json_group_array(value) FROM t, json_each(t.tags)").rows
        XCTAssertEqual(grouped, [[.text("[\"a\",\"b\",\"b\",{\"c\":[1]}]")]])
    }

    func testQueryPlanNamesTheFunctionLevel() throws {
        let db = try connection()
        let plan = try db.query("EXPLAIN QUERY PLAN SELECT * FROM t, json_each(t.tags, '$') AS j, json_tree('1') k")
            .rows.map { $0[3] }
        XCTAssertEqual(
            plan,
            [.text("SCAN t"), .text("SCAN j VIRTUAL TABLE INDEX 3:"), .text("SCAN k VIRTUAL TABLE INDEX 1:")])
    }

    func testPreparedStatementRunsAgainWithNewArguments() throws {
        let db = try connection()
        let statement = try db.prepare(
            "SELECT count(*) FROM t, json_each(t.tags) AS j WHERE j.value = ?")
        var counts: [Value] = []
        for tag in ["a", "b", "z"] {
            statement.reset()
            try statement.bind(.text(tag), at: 1)
            XCTAssertTrue(try statement.stepRow())
            counts.append(statement.column(at: 0))
        }
        XCTAssertEqual(counts, [.integer(1), .integer(2), .integer(0)])
    }

    func testNaturalJoinIgnoresHiddenColumns() throws {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        try db.execute("CREATE TABLE r(json TEXT, key INTEGER); INSERT INTO r VALUES ('x', 0), ('y', 5)")
        let rows = try db.query("SELECT r.json, j.value FROM r NATURAL JOIN json_each('[7]') AS j").rows
        XCTAssertEqual(rows, [[.text("x"), .integer(7)]])
    }

    func testDeepDocumentsNeedNoDeepStack() throws {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        let depth = 1999
        let document = String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth)
        let rows = try db.query("SELECT count(*), max(id), max(length(fullkey)) FROM json_tree(?)", arguments: [
            .text(document)
        ]).rows
        XCTAssertEqual(rows, [[.integer(Int64(depth + 1)), .integer(Int64(depth)), .integer(Int64(1 + 3 * depth))]])
    }

    func testPathsChangingFromRowToRowKeepSQLiteNumbering() throws {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        let document = #"{"a":[1,{"b":2}],"c":"x","d":[3,[4]]}"#
        try db.execute("CREATE TABLE p(id INTEGER PRIMARY KEY, doc TEXT, path TEXT)")
        for (id, path) in [(1, "$.d"), (2, "$.a[#-1]"), (3, nil), (4, "$.d"), (5, "$")] as [(Int64, String?)] {
            try db.execute(
                "INSERT INTO p VALUES (?, ?, ?)",
                arguments: [.integer(id), .text(document), path.map { .text($0) } ?? .null])
        }
        let rows = try db.query(
            "SELECT p.id, j.key, j.value, j.id, j.fullkey FROM p, json_each(p.doc, p.path) j ORDER BY p.id, j.id"
        ).rows
        XCTAssertEqual(
            rows,
            [
                [.integer(1), .integer(0), .integer(3), .integer(11), .text("$.d[0]")],
                [.integer(1), .integer(1), .text("[4]"), .integer(12), .text("$.d[1]")],
                [.integer(2), .text("b"), .integer(2), .integer(6), .text("$.a[#-1].b")],
                [.integer(4), .integer(0), .integer(3), .integer(11), .text("$.d[0]")],
                [.integer(4), .integer(1), .text("[4]"), .integer(12), .text("$.d[1]")],
                [.integer(5), .text("a"), .text(#"[1,{"b":2}]"#), .integer(2), .text("$.a")],
                [.integer(5), .text("c"), .text("x"), .integer(8), .text("$.c")],
                [.integer(5), .text("d"), .text("[3,[4]]"), .integer(10), .text("$.d")],
            ])
    }
}
