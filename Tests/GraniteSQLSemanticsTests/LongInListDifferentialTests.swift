import CSQLiteOracle
import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// `x [NOT] IN (list)` with lists long enough to be searched sorted (see `SortedInList`), against SQLite: left
/// operands of every affinity and of the built-in collations, items mixing numbers, numeric-looking and other
/// texts, blobs and NULLs, as literals and as bound parameters, each statement run twice with other parameters
/// (the sorted values must follow the new bindings).
final class LongInListDifferentialTests: XCTestCase {
    static let schema = "CREATE TABLE t(i INTEGER, r REAL, n NUMERIC, s TEXT, c TEXT COLLATE NOCASE, b BLOB, x)"

    /// Values chosen to be equal in some comparisons and not in others (1 and 1.0 and '1', 'a' and 'A' and 'a ').
    static let pool: [(sql: String, value: Value)] = [
        ("NULL", .null), ("1", .integer(1)), ("2", .integer(2)), ("-3", .integer(-3)), ("1.0", .real(1.0)),
        ("2.5", .real(2.5)), ("'1'", .text("1")), ("'2.0'", .text("2.0")), ("' 3'", .text(" 3")),
        ("'a'", .text("a")), ("'A'", .text("A")), ("'a '", .text("a ")), ("''", .text("")),
        ("x'31'", .blob([0x31])), ("x'61'", .blob([0x61])), ("9007199254740993", .integer(9_007_199_254_740_993)),
        ("9007199254740992.0", .real(9_007_199_254_740_992)),
    ]

    static let leftOperands = [
        "i", "r", "n", "s", "c", "b", "x", "s COLLATE NOCASE", "x COLLATE RTRIM", "c COLLATE BINARY", "+i",
        "CAST(x AS INTEGER)", "x || ''",
    ]

    func testLongListsMatchSQLite() throws {
        let seed = testSeed()
        var src = ValueSource(seed: seed)
        var failures: [String] = []
        var compared = 0
        for _ in 0..<(40 * stressFactor) {
            let oracle = Oracle()
            let db = try SQLConnection(engine: try StorageEngine.inMemory())
            oracle.execute(Self.schema)
            try db.execute(Self.schema)
            for _ in 0..<src.int(5...25) {
                let values = (0..<7).map { _ in src.pick(Self.pool).sql }.joined(separator: ", ")
                let insert = "INSERT INTO t VALUES (\(values))"
                oracle.execute(insert)
                try db.execute(insert)
            }
            for _ in 0..<10 {
                let (sql, parameterCount) = Self.statement(&src)
                let prepared = try db.prepare(sql)
                for _ in 0..<2 {
                    let arguments = (0..<parameterCount).map { _ in src.pick(Self.pool).value }
                    let expected = Self.sqliteRows(oracle, sql, arguments)
                    prepared.reset()
                    let actual: Result<[[Value]], Error> = Result {
                        try prepared.bind(arguments)
                        return try prepared.all()
                    }
                    compared += 1
                    switch (expected, actual) {
                    case (.success(let e), .success(let a)) where e == a: continue
                    default:
                        failures.append("\(sql) with \(arguments): sqlite \(expected), granite \(actual)")
                    }
                }
            }
        }
        print("long IN lists: \(compared) runs compared, seed \(seed)")
        XCTAssert(
            failures.isEmpty,
            "\(failures.count) mismatches (GRANITE_SEED=\(seed)):\n" + failures.prefix(10).joined(separator: "\n"))
    }

    /// A query with a long IN list (as a result column or a filter), and its number of parameters.
    static func statement(_ src: inout ValueSource) -> (String, Int) {
        var parameters = 0
        let items = (0..<src.int(8...24)).map { _ -> String in
            if src.int(0...2) == 0 {
                parameters += 1
                return "?"
            }
            return src.pick(pool).sql
        }
        let left = src.pick(leftOperands)
        let condition = "\(left) \(src.bool() ? "NOT " : "")IN (\(items.joined(separator: ", ")))"
        let sql =
            src.bool()
            ? "SELECT rowid, \(condition) FROM t ORDER BY rowid"
            : "SELECT rowid FROM t WHERE \(condition) ORDER BY rowid"
        return (sql, parameters)
    }

    /// Every row of `sql` on SQLite with `arguments` bound, or its error message.
    static func sqliteRows(_ oracle: Oracle, _ sql: String, _ arguments: [Value]) -> Result<[[Value]], OracleError> {
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(oracle.db, sql, -1, &stmt, nil) == SQLITE_OK, let stmt else {
            return .failure(OracleError(message: String(cString: sqlite3_errmsg(oracle.db))))
        }
        defer { sqlite3_finalize(stmt) }
        for (k, argument) in arguments.enumerated() { oracle.bind(stmt, Int32(k + 1), argument) }
        var rows: [[Value]] = []
        while true {
            let rc = sqlite3_step(stmt)
            if rc == SQLITE_DONE { return .success(rows) }
            guard rc == SQLITE_ROW else {
                return .failure(OracleError(message: String(cString: sqlite3_errmsg(oracle.db))))
            }
            rows.append((0..<sqlite3_column_count(stmt)).map { oracle.column(stmt, $0) })
        }
    }

    struct OracleError: Error { var message: String }
}
