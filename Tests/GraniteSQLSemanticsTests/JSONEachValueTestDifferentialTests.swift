import CSQLiteOracle
import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// `json_each.value <op> operand` as the first filter of a json_each level, which the walk over the document's
/// text tests on each element's bytes before computing its columns: the same rows as SQLite for every element
/// type (strings with and without escapes, numbers, literals, containers, a scalar start node), under each
/// collation and operator, with parameters rebound between executions, with the skipped elements still counted
/// in `id`, `key`, `fullkey` and the rowid of the rows kept, and malformed documents still an error.
final class JSONEachValueTestDifferentialTests: XCTestCase {
    static let setup = [
        "CREATE TABLE t(id INTEGER PRIMARY KEY, doc TEXT)",
        #"INSERT INTO t VALUES (1, '{"tags":["a","b","B","b ","é","a\"b","1",1,1.5,true,null,[1],{"x":"b"}]}')"#,
        #"INSERT INTO t VALUES (2, '{"tags":{"k":"b","l":"c","m":"b","n":2}}')"#,
        #"INSERT INTO t VALUES (3, '{"tags":"b"}')"#,
        #"INSERT INTO t VALUES (4, '{"tags":[]}')"#,
        #"INSERT INTO t VALUES (5, '{"other":["b"]}')"#,
        #"INSERT INTO t VALUES (6, NULL)"#,
        #"INSERT INTO t VALUES (7, '{"tags":["\u0062","b\n","null","true","[1]", "B"]}')"#,
        "CREATE TABLE bad(id INTEGER PRIMARY KEY, doc TEXT)",
        #"INSERT INTO bad VALUES (1, '{"tags":["b"]}'), (2, '{"tags":["b"],}'), (3, '{"tags":["c"]}')"#,
    ]

    static let columns = "group_concat(t.id || ':' || j.key || ':' || j.id || ':' || j.rowid || ':' || j.fullkey, ' ')"

    func testValueConditionsMatchSQLite() throws {
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        for statement in Self.setup {
            oracle.execute(statement)
            try db.execute(statement)
        }
        let conditions = [
            "j.value = ?", "j.value IS ?", "j.value != ?", "j.value IS NOT ?", "j.value < ?", "j.value >= ?",
            "j.value = ? COLLATE NOCASE", "j.value = ? COLLATE RTRIM", "j.value = ? AND j.key IS NOT NULL",
            "j.value = ? AND t.id > 1", "j.type = 'text' AND j.value = ?", "? = j.value",
        ]
        let operands: [Value] = [
            .text("b"), .text("B"), .text("a\"b"), .text("é"), .text("1"), .text("null"), .text("true"), .text("[1]"),
            .text("{\"x\":\"b\"}"), .text(""), .text("zz"), .integer(1), .real(1.5), .null, .blob([0x62]),
        ]
        var failures: [String] = []
        for path in ["'$.tags'", "'$'", "'$.tags[0]'"] {
            for condition in conditions {
                let sql = "SELECT \(Self.columns), count(*) FROM t, json_each(t.doc, \(path)) AS j WHERE \(condition)"
                let statement = try db.prepare(sql)
                // One prepared statement, its operand rebound for each execution.
                for operand in operands {
                    let expected = oracle.row(sql, [operand])
                    let actual = try statement.firstRow(binding: operand)
                    if actual != expected { failures.append("\(sql) with \(operand): \(actual) != \(expected)") }
                }
            }
        }
        XCTAssert(failures.isEmpty, failures.prefix(10).joined(separator: "\n"))
    }

    /// Constant operands, a LEFT JOIN (whose filters also decide its NULL row), and malformed documents: the error
    /// is raised whether or not an earlier document's elements matched.
    func testValueConditionShapesMatchSQLite() throws {
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        for statement in Self.setup {
            oracle.execute(statement)
            try db.execute(statement)
        }
        SelectDifferentialTests.compareInOrder(
            [
                "SELECT \(Self.columns) FROM t, json_each(t.doc, '$.tags') AS j WHERE j.value = 'b'",
                "SELECT \(Self.columns) FROM t, json_each(t.doc, '$.tags') AS j WHERE j.value = 'B' COLLATE NOCASE",
                "SELECT \(Self.columns) FROM t, json_each(t.doc, '$.tags') AS j WHERE j.value > 'a'",
                "SELECT \(Self.columns) FROM t, json_each(t.doc, '$.tags') AS j WHERE value = 1",
                "SELECT t.id, j.key FROM t LEFT JOIN json_each(t.doc, '$.tags') AS j ON j.value = 'b' ORDER BY 1, 2",
                "SELECT t.id, j.key FROM t LEFT JOIN json_each(t.doc, '$.tags') AS j WHERE j.value = 'b' ORDER BY 1, 2",
                "SELECT j.key, j.value FROM json_each('[\"b\",\"c\",\"b\"]') AS j WHERE j.value = 'b'",
                "SELECT count(*) FROM bad, json_each(bad.doc, '$.tags') AS j WHERE j.value = 'b'",
                "SELECT count(*) FROM bad, json_each(bad.doc, '$.tags') AS j WHERE j.value = 'zz'",
                "SELECT count(*) FROM bad, json_each(bad.doc) AS j WHERE j.value = 'zz'",
            ], oracle, db)
    }
}
