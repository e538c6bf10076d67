import CSQLiteOracle
import GraniteSQL
import GraniteStorage
import XCTest

/// A table scan tests `column <op> ?` and `column <op> 'constant'` on the row's encoded bytes when the column holds
/// plain TEXT: these queries compare every operator, collation and affinity of such a filter, on plain, compressed,
/// non-ASCII, numeric, NULL, BLOB and missing (added column) values, with SQLite.
final class TextFilterDifferentialTests: XCTestCase {
    static let schema = """
        CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b TEXT COLLATE NOCASE, c TEXT COLLATE RTRIM, d, e NUMERIC,
          f INTEGER, g TEXT NOT NULL DEFAULT 'x');
        """

    static let operands: [Value] = [
        .text("abc"), .text("ABC"), .text("abc  "), .text(""), .text("ab"), .text("abd"), .text("é"), .text("e\u{301}"),
        .text("10"),
        .text(" 10"), .text(String(repeating: "long text ", count: 30)), .text("Zz"), .integer(10), .real(10.0),
        .null, .blob([0x61, 0x62, 0x63]),
    ]

    static let stored: [Value] = [
        .text("abc"), .text("ABC"), .text("abc  "), .text("abc "), .text(""), .text("ab"), .text("abd"), .text("é"),
        .text("e\u{301}"), .text("É"), .text("10"), .text("10.0"), .text(" 10"),
        .text(String(repeating: "long text ", count: 30)),
        .text(String(repeating: "long text ", count: 30) + "!"), .text("Zz"), .text("zZ"), .integer(10),
        .real(10.0), .null, .blob([0x61, 0x62, 0x63]),
    ]

    func testTextFiltersOnTheEncodedRowMatchSQLite() throws {
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        // Half of the rows are inserted before `h` is added: they have no value for it (its default applies).
        let create = Self.schema
        oracle.execute(create)
        try db.execute(create)
        let insert = "INSERT INTO t(a, b, c, d, e, f) VALUES (?, ?, ?, ?, ?, ?)"
        let n = Self.stored.count
        func add(_ i: Int) throws {
            let values = (0..<6).map { Self.stored[(i * (2 * $0 + 1) + $0) % n] }
            oracle.run(insert, values)
            try db.execute(insert, arguments: values)
        }
        for i in 0..<n * 3 { try add(i) }
        let alter = "ALTER TABLE t ADD COLUMN h TEXT COLLATE NOCASE DEFAULT 'abc'"
        oracle.execute(alter)
        try db.execute(alter)
        for i in n * 3..<n * 6 { try add(i) }
        let update = "UPDATE t SET h = a WHERE id % 3 = 0 AND id > \(n * 3)"
        oracle.execute(update)
        try db.execute(update)

        let checker = Checker("text filters", seed: 0)
        let operators = ["=", "==", "<>", "<", "<=", ">", ">=", "IS", "IS NOT"]
        for column in ["a", "b", "c", "d", "e", "f", "g", "h", "a COLLATE NOCASE", "b COLLATE BINARY"] {
            for op in operators {
                let sql = "SELECT count(*), group_concat(id) FROM t WHERE \(column) \(op) ?"
                // Both with a parameter (each operand in turn, through one prepared statement) and a constant.
                for operand in Self.operands {
                    check(checker, oracle, db, sql, [operand])
                    let literal = Self.literal(operand)
                    check(checker, oracle, db, sql.replacingOccurrences(of: "?", with: literal), [])
                }
            }
        }
        // Several filters: the leading byte-tested ones, then others.
        for sql in [
            "SELECT count(*), group_concat(id) FROM t WHERE a = ? AND b = ?",
            "SELECT count(*), group_concat(id) FROM t WHERE b <> ? AND length(c) > 2 AND a >= ?",
            "SELECT count(*), group_concat(id) FROM t WHERE f = ? AND a = ?",
            "SELECT count(*), group_concat(id) FROM t WHERE a = ? OR b = ?",
            "SELECT count(*), group_concat(t.id) FROM t JOIN t AS u ON u.id = t.id + 1 WHERE t.a = ? AND u.b > ?",
        ] {
            for x in Self.operands {
                for y in [Value.text("abc"), .text("ABC"), .integer(10), .text("10")] {
                    check(checker, oracle, db, sql, [x, y])
                }
            }
        }
        checker.finish()
    }

    /// The prepared statements, reused so that a statement runs again with other parameters.
    var statements: [String: PreparedStatement] = [:]

    func check(_ checker: Checker, _ oracle: Oracle, _ db: SQLConnection, _ sql: String, _ args: [Value]) {
        let expected = oracle.row(sql, args)
        let actual: [Outcome]
        do {
            let statement = try statements[sql] ?? db.prepare(sql)
            statements[sql] = statement
            statement.reset()
            try statement.bind(args)
            let rows = try statement.all()
            actual = (rows.first ?? []).map { .value($0) }
        } catch {
            actual = [.error("\(error)")]
        }
        checker.check(
            .value(.text("\(expected)")), .value(.text("\(actual)")), "\(sql) with \(args)")
    }

    static func literal(_ value: Value) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let i): return "\(i)"
        case .real(let r): return "\(r)"
        case .text(let s): return "'\(s.replacingOccurrences(of: "'", with: "''"))'"
        case .invalidUTF8Text(let b): return "CAST(\(literal(.blob(b))) AS TEXT)"
        case .blob(let b):
            return "x'" + b.map { String($0, radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined() + "'"
        }
    }
}
