import CSQLiteOracle
import Foundation
import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// The outcome of one statement: its rows, or an error message.
enum StatementOutcome {
    case rows([[Value]])
    case failure(String)
}

extension StatementOutcome {
    /// Runs `sql` on Granite and captures its rows or its error message.
    static func granite(_ db: SQLConnection, _ sql: String, _ args: [Value]) -> StatementOutcome {
        do {
            return .rows(try db.query(sql, arguments: args).rows)
        } catch {
            return .failure(graniteMessage(error))
        }
    }

    /// The outcome with its rows sorted by their description, to compare queries whose row order is not defined.
    var sortedRows: StatementOutcome {
        guard case .rows(let rows) = self else { return self }
        return .rows(rows.sorted { "\($0)" < "\($1)" })
    }

    /// The number of rows of the outcome (0 for a failure).
    var rowCount: Int {
        guard case .rows(let rows) = self else { return 0 }
        return rows.count
    }

    /// Why Granite's outcome differs from SQLite's, or nil when they agree:
    /// same rows with the same types, or both failing (with the same message
    /// for constraint and datatype errors, which applications match on).
    static func mismatch(sqlite expected: StatementOutcome, granite actual: StatementOutcome, what: String) -> String? {
        switch (expected, actual) {
        case (.rows(let e), .rows(let a)):
            if e.count != a.count {
                return "\(what): sqlite \(e.count) rows, granite \(a.count) rows\n  \(e)\n  \(a)"
            }
            if let k = e.indices.first(where: { !sameRow(e[$0], a[$0]) }) {
                return "\(what): row \(k): sqlite \(e[k]) granite \(a[k])"
            }
            return nil
        case (.failure(let e), .failure(let a)):
            if (e.contains("constraint failed") || e == "datatype mismatch") && e != a {
                return "\(what): sqlite error '\(e)', granite error '\(a)'"
            }
            return nil
        case (.failure(let e), .rows):
            return "\(what): sqlite failed '\(e)', granite succeeded"
        case (.rows, .failure(let a)):
            return "\(what): sqlite succeeded, granite failed '\(a)'"
        }
    }

    /// Whether two rows hold the same values with the same types.
    static func sameRow(_ x: [Value], _ y: [Value]) -> Bool {
        x.count == y.count && !zip(x, y).contains(where: { $0.type != $1.type || $0 != $1 })
    }
}

/// What running `sql` on SQLite did: nil, or its error message.
func sqliteOutcome(_ oracle: Oracle, _ sql: String) -> String? {
    guard sqlite3_exec(oracle.db, sql, nil, nil, nil) != SQLITE_OK else { return nil }
    return String(cString: sqlite3_errmsg(oracle.db))
}

/// What running `sql` on Granite did: nil, or its error message.
func graniteOutcome(_ db: SQLConnection, _ sql: String) -> String? {
    do {
        try db.execute(sql)
        return nil
    } catch {
        return graniteMessage(error)
    }
}

func graniteMessage(_ error: any Error) -> String {
    if let e = error as? SQLExecutionError { return e.message }
    if let e = error as? SQLEvaluationError { return e.message }
    if let e = error as? SchemaError { return e.message }
    if let e = error as? SQLSyntaxError { return e.message }
    return "\(error)"
}

extension Oracle {
    /// Runs `sql` with `args` and returns every row, or the error message.
    func all(_ sql: String, _ args: [Value]) -> StatementOutcome {
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &stmt, nil) == SQLITE_OK, let stmt else {
            return .failure(String(cString: sqlite3_errmsg(db)))
        }
        defer { sqlite3_finalize(stmt) }
        for (k, a) in args.enumerated() { bind(stmt, Int32(k + 1), a) }
        var rows: [[Value]] = []
        while true {
            let rc = sqlite3_step(stmt)
            if rc == SQLITE_DONE { return .rows(rows) }
            guard rc == SQLITE_ROW else { return .failure(String(cString: sqlite3_errmsg(db))) }
            rows.append((0..<sqlite3_column_count(stmt)).map { column(stmt, $0) })
        }
    }
}

final class ExecutorDifferentialTests: XCTestCase {
    static let schema = [
        "CREATE TABLE t(id INTEGER PRIMARY KEY, u TEXT UNIQUE, n INTEGER NOT NULL, x, r REAL DEFAULT 1.5, "
            + "c TEXT COLLATE NOCASE)",
        "CREATE INDEX t_x ON t(x)",
        "CREATE INDEX t_cn ON t(c, n)",
    ]

    struct Workload {
        var src: ValueSource

        mutating func value() -> Value {
            switch src.int(0...9) {
            case 0: return .null
            case 1, 2, 3: return .integer(Int64(src.int(-5...40)))
            case 4: return .real(Double(src.int(-20...20)) / 2)
            case 5, 6: return .text(src.pick(["a", "b", "A", "B", "c", "10", "7", " x", "abc", ""]))
            case 7: return .blob([UInt8(src.int(0...3))])
            default: return src.value()
            }
        }

        mutating func id() -> Value {
            switch src.int(0...9) {
            case 0...3: return .null
            case 4...7: return .integer(Int64(src.int(1...80)))
            default: return src.pick([.text("7"), .text("abc"), .real(2.5), .real(3.0), .text(" 12 ")])
            }
        }

        mutating func unique() -> Value {
            src.int(0...4) == 0 ? .null : .text(src.pick(["a", "b", "c", "d", "e", "f", "g", "h", "A", "1"]))
        }

        mutating func notNull() -> Value { src.int(0...12) == 0 ? .null : .integer(Int64(src.int(-3...30))) }

        mutating func literal() -> String {
            switch src.int(0...5) {
            case 0: return "NULL"
            case 1, 2: return "\(src.int(-3...40))"
            case 3: return "\(Double(src.int(-10...10)) / 4)"
            default: return "'" + src.pick(["a", "b", "A", "c", "7", "10", "abc", ""]) + "'"
            }
        }

        mutating func condition(_ depth: Int = 2) -> String {
            let columns = ["id", "u", "n", "x", "r", "c", "rowid", "t.n"]
            if depth > 0 && src.int(0...2) == 0 {
                return "(\(condition(depth - 1)) \(src.pick(["AND", "OR"])) \(condition(depth - 1)))"
            }
            switch src.int(0...6) {
            case 0: return "\(src.pick(columns)) IS \(src.bool() ? "" : "NOT ")NULL"
            case 1: return "(\(src.pick(columns)) \(src.pick(["+", "-", "*", "%"])) \(literal())) > \(literal())"
            case 2: return "\(src.pick(columns)) IN (\(literal()), \(literal()))"
            case 3: return "\(src.pick(columns)) BETWEEN \(literal()) AND \(literal())"
            default:
                return "\(src.pick(columns)) \(src.pick(["=", "<", "<=", ">", ">=", "!=", "IS"])) \(literal())"
            }
        }

        /// One random statement with its arguments.
        mutating func statement() -> (String, [Value]) {
            switch src.int(0...19) {
            case 0...6:
                return (
                    "INSERT INTO t(id, u, n, x, c) VALUES (?, ?, ?, ?, ?)",
                    [id(), unique(), notNull(), value(), value()]
                )
            case 7:
                return ("INSERT INTO t(u, n) VALUES (?, ?), (?, ?)", [unique(), notNull(), unique(), notNull()])
            case 8:
                return (
                    "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)", [id(), unique(), notNull(), value(), value(), value()]
                )
            case 9, 10:
                return ("UPDATE t SET n = ?, x = ? WHERE \(condition())", [notNull(), value()])
            case 11:
                return ("UPDATE t SET u = ? WHERE id = ?", [unique(), .integer(Int64(src.int(1...80)))])
            case 12:
                return ("UPDATE t SET c = ?, r = r + 1 WHERE \(condition())", [value()])
            case 13:
                return ("DELETE FROM t WHERE \(condition())", [])
            case 14:
                return ("SELECT count(*), sum(n), min(u), max(x), total(r) FROM t WHERE \(condition())", [])
            case 15:
                return ("SELECT id, c FROM t WHERE \(condition()) ORDER BY c, id DESC LIMIT 5 OFFSET 1", [])
            default:
                return ("SELECT *, rowid, n * 2 AS twice FROM t WHERE \(condition()) ORDER BY rowid", [])
            }
        }
    }

    func testRandomWorkloadMatchesSQLite() throws {
        let seed = testSeed()
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        for sql in Self.schema {
            oracle.execute(sql)
            try db.execute(sql)
        }
        var workload = Workload(src: ValueSource(seed: seed))
        var failures: [String] = []
        var errors = 0
        let count = 1000 * stressFactor
        for step in 0..<count {
            var (sql, args) = workload.statement()
            if step == count - 1 { (sql, args) = ("SELECT * FROM t ORDER BY rowid", []) }
            let expected = oracle.all(sql, args)
            let actual = StatementOutcome.granite(db, sql, args)
            if case .failure = expected, case .failure = actual { errors += 1 }
            if let failure = StatementOutcome.mismatch(
                sqlite: expected, granite: actual, what: "#\(step) \(sql) \(args)")
            {
                failures.append(failure)
            }
            if failures.count >= 10 { break }
        }
        print("executor/random: \(count) statements, \(errors) errors on both sides, seed \(seed)")
        if !failures.isEmpty {
            XCTFail("executor mismatches (GRANITE_SEED=\(seed)):\n" + failures.joined(separator: "\n"))
        }
    }

    func makeDatabase() throws -> SQLConnection {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, u TEXT UNIQUE, n NOT NULL)")
        return db
    }

    func ids(_ db: SQLConnection) throws -> [Value] {
        try db.query("SELECT id FROM t ORDER BY id").rows.map { $0[0] }
    }

    func expectError(_ message: String, _ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) {
        do {
            try body()
            XCTFail("expected error '\(message)'", file: file, line: line)
        } catch {
            XCTAssertEqual(graniteMessage(error), message, file: file, line: line)
        }
    }

    func testFailureInsideTransactionKeepsEarlierWork() throws {
        let db = try makeDatabase()
        try db.execute("BEGIN")
        try db.execute("INSERT INTO t VALUES (1, 'a', 1)")
        expectError("UNIQUE constraint failed: t.u") {
            try db.execute("INSERT INTO t VALUES (2, 'b', 2), (3, 'a', 3)")
        }
        expectError("UNIQUE constraint failed: t.id") { try db.execute("INSERT INTO t VALUES (1, 'z', 1)") }
        expectError("NOT NULL constraint failed: t.n") { try db.execute("INSERT INTO t(u) VALUES ('q')") }
        try db.execute("INSERT INTO t VALUES (4, 'd', 4)")
        try db.execute("COMMIT")
        XCTAssertEqual(try ids(db), [.integer(1), .integer(4)])
        XCTAssertEqual(try db.query("SELECT count(*) FROM t WHERE u = 'b'").rows, [[.integer(0)]])
    }

    func testRollbackAndSavepoints() throws {
        let db = try makeDatabase()
        try db.execute("BEGIN; INSERT INTO t VALUES (1, 'a', 1); ROLLBACK")
        XCTAssertEqual(try ids(db), [])
        try db.execute("SAVEPOINT s1; INSERT INTO t VALUES (1, 'a', 1); SAVEPOINT s2; INSERT INTO t VALUES (2, 'b', 2)")
        try db.execute("ROLLBACK TO s2")
        XCTAssertEqual(try ids(db), [.integer(1)])
        try db.execute("INSERT INTO t VALUES (3, 'c', 3); RELEASE s1")
        XCTAssertFalse(db.isInTransaction)
        XCTAssertEqual(try ids(db), [.integer(1), .integer(3)])
        try db.execute("BEGIN; CREATE TABLE u(a); INSERT INTO u VALUES (1); ROLLBACK")
        expectError("no such table: u") { _ = try db.query("SELECT * FROM u") }
        expectError("cannot commit - no transaction is active") { try db.execute("COMMIT") }
        expectError("no such savepoint: nope") { try db.execute("RELEASE nope") }
    }

    func testErrorsAndIndexes() throws {
        let db = try makeDatabase()
        expectError("no such table: missing") { try db.execute("INSERT INTO missing VALUES (1)") }
        expectError("no such column: zz") { _ = try db.query("SELECT zz FROM t") }
        expectError("datatype mismatch") { try db.execute("INSERT INTO t VALUES ('x', 'a', 1)") }
        XCTAssertThrowsError(try db.execute("INSERT INTO t VALUES (?, ?, ?)", arguments: [.integer(1)]))
        try db.execute("INSERT INTO t(u, n) VALUES ('a', 1), ('A', 2), (NULL, 3), (NULL, 4)")
        try db.execute("CREATE INDEX t_n ON t(n)")
        expectError("UNIQUE constraint failed: index 't_nu'") {
            try db.execute("CREATE UNIQUE INDEX t_nu ON t(n % 2)")
        }
        try db.execute("UPDATE t SET n = n + 10 WHERE u IS NULL")
        XCTAssertEqual(
            try db.query("SELECT id, n FROM t WHERE n > 5 ORDER BY n DESC").rows,
            [[.integer(4), .integer(14)], [.integer(3), .integer(13)]])
        try db.execute("DELETE FROM t WHERE n > 10")
        XCTAssertEqual(try db.query("SELECT count(*), max(id) FROM t").rows, [[.integer(2), .integer(2)]])
        XCTAssertEqual(try db.query("SELECT 1 + 2 AS three").columns, ["three"])
    }
}
