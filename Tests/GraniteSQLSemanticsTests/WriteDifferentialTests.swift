import CSQLiteOracle
import Foundation
import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// Compares Granite's writing statements (conflict resolution, upsert, RETURNING, AUTOINCREMENT, foreign keys)
/// with SQLite's on a seeded random workload: outcomes, RETURNING column names, change counters, the last
/// inserted rowid, the transaction state and every table's contents after each statement.
final class WriteDifferentialTests: XCTestCase {
    static let schema = [
        "CREATE TABLE p(id INTEGER PRIMARY KEY, code TEXT UNIQUE, name TEXT NOT NULL DEFAULT 'anon', "
            + "score INTEGER CHECK (score >= 0))",
        "CREATE TABLE c(id INTEGER PRIMARY KEY AUTOINCREMENT, pid INTEGER REFERENCES p(id) ON DELETE CASCADE "
            + "ON UPDATE CASCADE, pcode TEXT REFERENCES p(code) ON DELETE SET NULL ON UPDATE SET NULL, "
            + "tag TEXT UNIQUE ON CONFLICT REPLACE, n INTEGER NOT NULL ON CONFLICT IGNORE)",
        "CREATE TABLE r(id INTEGER PRIMARY KEY ON CONFLICT REPLACE, a INTEGER, b TEXT, "
            + "parent INTEGER REFERENCES r(id) ON DELETE RESTRICT, UNIQUE(a, b))",
        "CREATE TABLE s(k TEXT PRIMARY KEY, v INTEGER NOT NULL ON CONFLICT REPLACE DEFAULT 0, "
            + "w TEXT COLLATE NOCASE UNIQUE, pk INTEGER DEFAULT 1 REFERENCES p ON DELETE SET DEFAULT)",
        "CREATE INDEX c_pid ON c(pid)",
        "CREATE TABLE q(x INTEGER, y TEXT, z, FOREIGN KEY (y, x) REFERENCES r(b, a) ON UPDATE CASCADE "
            + "ON DELETE SET NULL)",
        "CREATE TABLE mp(name TEXT)",
        "CREATE TABLE m(z REFERENCES mp(name))",
    ]
    static let contents = [
        "SELECT rowid, * FROM p ORDER BY rowid", "SELECT rowid, * FROM c ORDER BY rowid",
        "SELECT rowid, * FROM r ORDER BY rowid", "SELECT rowid, * FROM s ORDER BY rowid",
        "SELECT rowid, * FROM q ORDER BY rowid", "SELECT rowid, * FROM mp ORDER BY rowid",
    ]

    struct Workload {
        var src: ValueSource

        mutating func orAction() -> String {
            src.pick(["", "", "", "OR REPLACE ", "OR IGNORE ", "OR ABORT ", "OR FAIL ", "OR ROLLBACK "])
        }

        mutating func id() -> String {
            src.pick(["NULL", "1", "2", "3", "4", "5", "6", "7", "8", "'3'", "2.0", "10"])
        }
        mutating func code() -> String { src.pick(["NULL", "'a'", "'b'", "'c'", "'d'", "'e'", "'A'"]) }
        mutating func name() -> String { src.pick(["NULL", "'x'", "'y'", "'z'"]) }
        mutating func score() -> String { src.pick(["NULL", "-1", "0", "1", "2", "3", "'7'"]) }
        mutating func tag() -> String { src.pick(["NULL", "'t1'", "'t2'", "'t3'", "'t4'"]) }
        mutating func small() -> String { src.pick(["NULL", "0", "1", "2", "3"]) }
        mutating func returning() -> String {
            src.pick(["", "", " RETURNING *", " RETURNING id, id * 2 AS twice", " RETURNING rowid, *"])
        }

        /// A rowid given explicitly: with `valid`, always an integer or convertible to one.
        mutating func rowid(valid: Bool = false) -> String {
            valid
                ? src.pick(["1", "2", "3", "5", "8", "'3'", "2.0", "-1"])
                : src.pick(["NULL", "1", "2", "3", "5", "8", "'3'", "2.0", "2.5", "'x'", "-1"])
        }

        /// INSERT, upsert and UPDATE naming the hidden rowid of `q` and `mp` (`rowid`, `oid`, `_rowid_`).
        ///
        /// Under `OR IGNORE` and `OR REPLACE` the rowids are valid: SQLite opens no statement journal for a statement
        /// that cannot abort, so inside a transaction a `datatype mismatch` keeps the rows it already changed, where
        /// Granite undoes the whole statement.
        mutating func explicitRowid() -> String {
            let key = src.pick(["rowid", "oid", "_ROWID_"])
            let action = orAction()
            let valid = action.contains("IGNORE") || action.contains("REPLACE")
            switch src.int(0...6) {
            case 0, 1:
                let rows = (0..<src.int(1...3)).map { _ in
                    "(\(rowid(valid: valid)), \(small()), \(src.pick(["'u'", "'v'", "NULL"])), \(small()))"
                }
                return "INSERT \(action)INTO q(\(key), x, y, z) VALUES \(rows.joined(separator: ", "))"
                    + src.pick(["", " RETURNING rowid, *", " RETURNING \(key)"])
            case 2:
                return "INSERT \(action)INTO q(z, \(key)) SELECT id, id + \(src.int(0...4)) FROM p"
                    + " WHERE \(condition(["id", "score"])) ORDER BY id"
            case 3:
                let value =
                    valid
                    ? src.pick([rowid(valid: true), "rowid + 1", "rowid * 2"])
                    : src.pick([rowid(), "rowid + 1", "rowid * 2", "z"])
                return "UPDATE \(action)q SET \(key) = \(value) "
                    + "WHERE \(condition(["rowid", "x", "z"]))" + src.pick(["", " RETURNING rowid, x"])
            case 4:
                return "INSERT INTO mp(\(key), name) VALUES (\(rowid()), \(name())) "
                    + "ON CONFLICT(rowid) DO UPDATE SET name = excluded.name || excluded.rowid RETURNING rowid, name"
            case 5:
                return "INSERT INTO mp(\(key), name) VALUES (\(rowid()), \(name())) "
                    + "ON CONFLICT DO UPDATE SET rowid = excluded.rowid + \(src.int(1...3))"
            default:
                return "UPDATE \(action)mp SET \(key) = \(rowid(valid: valid)), name = \(name()) "
                    + "WHERE \(condition(["rowid", "name"]))"
            }
        }

        mutating func condition(_ columns: [String]) -> String {
            let column = src.pick(columns)
            switch src.int(0...4) {
            case 0: return "\(column) IS NULL"
            case 1: return "\(column) IN (\(small()), \(small()), \(id()))"
            case 2: return "\(column) > \(src.int(0...6))"
            case 3: return "1"
            default: return "\(column) = \(id())"
            }
        }

        mutating func statement() -> String {
            switch src.int(0...35) {
            case 0...4:
                let rows = (0..<src.int(1...3)).map { _ in "(\(id()), \(code()), \(name()), \(score()))" }
                return "INSERT \(orAction())INTO p(id, code, name, score) VALUES \(rows.joined(separator: ", "))"
                    + returning()
            case 5:
                return "INSERT INTO p(id, code, name, score) VALUES (\(id()), \(code()), \(name()), \(score())) "
                    + "ON CONFLICT(code) DO UPDATE SET score = excluded.score + p.score, name = 'up' "
                    + "WHERE excluded.score IS NOT NULL" + returning()
            case 6:
                return "INSERT INTO p(id, code, score) VALUES (\(id()), \(code()), \(score())) "
                    + "ON CONFLICT(id) DO NOTHING" + returning()
            case 7:
                return "INSERT INTO p(id, code) VALUES (\(id()), \(code())), (\(id()), \(code())) "
                    + "ON CONFLICT DO NOTHING" + returning()
            case 8:
                return "INSERT \(orAction())INTO p(id, code, name) VALUES (\(id()), \(code()), \(name())) "
                    + "ON CONFLICT(code) DO NOTHING ON CONFLICT(id) DO UPDATE SET name = excluded.name || p.name"
                    + returning()
            case 9:
                return "REPLACE INTO p(id, code, name, score) VALUES (\(id()), \(code()), 'r', \(score()))"
            case 10...13:
                let rows = (0..<src.int(1...2)).map { _ in "(\(id()), \(code()), \(tag()), \(small()))" }
                return "INSERT \(orAction())INTO c(pid, pcode, tag, n) VALUES \(rows.joined(separator: ", "))"
                    + returning()
            case 14:
                return "INSERT INTO c(id, pid, tag, n) VALUES (\(id()), \(id()), \(tag()), 1)"
            case 15, 16:
                return "UPDATE \(orAction())p SET \(src.pick(["id", "code", "score", "name"])) = "
                    + "\(src.pick([id(), code(), score(), name()])) WHERE \(condition(["id", "score", "code"]))"
                    + returning()
            case 17:
                return "UPDATE \(orAction())p SET id = id + \(src.int(1...3)) WHERE \(condition(["id", "score"]))"
            case 18, 19:
                return "UPDATE \(orAction())c SET \(src.pick(["tag", "n", "pid", "pcode"])) = "
                    + "\(src.pick([tag(), small(), id(), code()])) WHERE \(condition(["id", "pid", "n"]))"
                    + returning()
            case 20, 21:
                return "DELETE FROM p WHERE \(condition(["id", "score", "code"]))" + returning()
            case 22:
                return "DELETE FROM c WHERE \(condition(["id", "pid", "n"]))" + returning()
            case 23, 24:
                return "INSERT \(orAction())INTO r(id, a, b, parent) VALUES (\(id()), \(small()), "
                    + "\(src.pick(["'u'", "'v'", "NULL"])), \(id()))" + returning()
            case 25:
                return "UPDATE \(orAction())r SET \(src.pick(["parent", "a", "id"])) = \(id()) "
                    + "WHERE \(condition(["id", "a", "parent"]))"
            case 26:
                return "DELETE FROM r WHERE \(condition(["id", "a", "parent"]))"
            case 27, 28:
                return "INSERT \(orAction())INTO s(k, v, w, pk) VALUES (\(code()), \(small()), "
                    + "\(src.pick(["'m'", "'M'", "'n'", "NULL"])), \(id())) "
                    + src.pick(["", "ON CONFLICT(k) DO UPDATE SET v = v + 1, w = excluded.w "])
                    + src.pick(["", " RETURNING *", " RETURNING k, v + 1 AS next, rowid"])
            case 29:
                return "UPDATE \(orAction())s SET v = \(small()), pk = \(id()) WHERE \(condition(["v", "pk"]))"
            case 30:
                switch src.int(0...7) {
                case 0:
                    return
                        "INSERT \(orAction())INTO q(x, y, z) VALUES (\(small()), \(src.pick(["'u'", "'v'", "NULL"])), "
                        + "\(small()))" + src.pick(["", " RETURNING *"])
                case 1:
                    return "UPDATE r SET a = \(small()) WHERE \(condition(["id", "a"]))"
                case 2:
                    return src.pick([
                        "INSERT INTO m VALUES (\(name()))", "INSERT INTO mp VALUES (\(name()))",
                        "INSERT INTO mp VALUES ('x'), ('y')", "DELETE FROM mp", "UPDATE mp SET name = 'w'",
                        "INSERT INTO mp VALUES ('x') RETURNING *",
                    ])
                case 3:
                    return "DELETE FROM q WHERE \(condition(["x", "z"]))"
                case 4:
                    return "INSERT INTO p(id, code, name) VALUES (\(id()), \(code()), \(name())) "
                        + "ON CONFLICT DO UPDATE SET name = 'any' || excluded.id" + returning()
                default:
                    return src.pick(["BEGIN", "COMMIT", "ROLLBACK"])
                }
            case 31:
                return "INSERT INTO p(id, code) VALUES (\(id()), \(code())) ON CONFLICT(name) DO NOTHING"
            case 32:
                return "DELETE FROM c WHERE id > (\(src.int(0...20)))"
            case 34, 35:
                return explicitRowid()
            default:
                return "SELECT * FROM granite_sequence"
            }
        }
    }

    /// Runs `sql` on SQLite, returning the column names and rows, or the error message.
    func sqlite(_ db: OpaquePointer?, _ oracle: Oracle, _ sql: String) -> (names: [String], outcome: StatementOutcome) {
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &stmt, nil) == SQLITE_OK, let stmt else {
            return ([], .failure(String(cString: sqlite3_errmsg(db))))
        }
        defer { sqlite3_finalize(stmt) }
        let names = (0..<sqlite3_column_count(stmt)).map { String(cString: sqlite3_column_name(stmt, $0)) }
        var rows: [[Value]] = []
        while true {
            let rc = sqlite3_step(stmt)
            if rc == SQLITE_DONE { return (names, .rows(rows)) }
            guard rc == SQLITE_ROW else { return (names, .failure(String(cString: sqlite3_errmsg(db)))) }
            rows.append((0..<sqlite3_column_count(stmt)).map { oracle.column(stmt, $0) })
        }
    }

    func testRandomWritesMatchSQLite() throws {
        let seed = testSeed()
        let oracle = Oracle()
        oracle.execute("PRAGMA foreign_keys=ON")
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        XCTAssertTrue(db.foreignKeysEnabled)
        for sql in Self.schema {
            oracle.execute(sql)
            try db.execute(sql)
        }
        var workload = Workload(src: ValueSource(seed: seed))
        var failures: [String] = []
        var errors = 0
        let count = 600 * stressFactor
        var history: [String] = []
        for step in 0..<count {
            var sql = workload.statement()
            let readsSequence = sql.contains("granite_sequence")
            let sqliteSQL = readsSequence ? "SELECT * FROM sqlite_sequence" : sql
            if readsSequence { sql += " ORDER BY rowid" }
            history.append(sql)
            let expected = sqlite(oracle.db, oracle, readsSequence ? sqliteSQL + " ORDER BY rowid" : sqliteSQL)
            var names: [String] = []
            let actual: StatementOutcome
            do {
                let result = try db.query(sql)
                names = result.columns
                actual = .rows(result.rows)
            } catch {
                actual = .failure(graniteMessage(error))
            }
            let what = "#\(step) \(sql)"
            if case .failure(let message) = actual { history[history.count - 1] += "  -- \(message)" }
            if case .failure(let e) = expected.outcome, case .failure(let a) = actual {
                errors += 1
                if e != a { failures.append("\(what): sqlite error '\(e)', granite error '\(a)'") }
            } else if let failure = StatementOutcome.mismatch(sqlite: expected.outcome, granite: actual, what: what) {
                failures.append(failure)
            } else if case .rows = actual, expected.names != names {
                failures.append("\(what): columns sqlite \(expected.names) granite \(names)")
            }
            if sql.hasPrefix("INSERT") || sql.hasPrefix("UPDATE") || sql.hasPrefix("DELETE")
                || sql.hasPrefix("REPLACE")
            {
                let changes = Int(sqlite3_changes(oracle.db))
                let total = Int(sqlite3_total_changes(oracle.db))
                let rowid = sqlite3_last_insert_rowid(oracle.db)
                if changes != db.changes || total != db.totalChanges || rowid != db.lastInsertedRowid {
                    failures.append(
                        "\(what): changes/total/rowid sqlite \(changes)/\(total)/\(rowid) granite "
                            + "\(db.changes)/\(db.totalChanges)/\(db.lastInsertedRowid)")
                }
            }
            if (sqlite3_get_autocommit(oracle.db) == 0) != db.isInTransaction {
                failures.append("\(what): transaction state differs")
            }
            for query in Self.contents {
                let e = sqlite(oracle.db, oracle, query).outcome
                let a = StatementOutcome.granite(db, query, [])
                if let failure = StatementOutcome.mismatch(sqlite: e, granite: a, what: "after \(what): \(query)") {
                    failures.append(failure)
                    break
                }
            }
            if !failures.isEmpty { break }
        }
        print("writes/random: \(count) statements, \(errors) errors on both sides, seed \(seed)")
        if !failures.isEmpty {
            XCTFail(
                "write mismatches (GRANITE_SEED=\(seed)):\n" + failures.joined(separator: "\n") + "\nlast statements:\n"
                    + history.suffix(8).joined(separator: "\n"))
        }
    }
}
