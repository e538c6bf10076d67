import CSQLiteOracle
import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// Views, run on SQLite and Granite: random views (projections, expressions, joins, aggregates, DISTINCT, LIMIT,
/// column lists, views of views) over random tables, and random queries reading them (filters, joins, subqueries,
/// aggregates, `*` names, PRAGMA table_info), compared row for row, name for name and error for error.
final class ViewDifferentialTests: XCTestCase {
    static let schema = [
        "CREATE TABLE t1(a INTEGER, b TEXT COLLATE NOCASE, c REAL, d)",
        "CREATE TABLE t2(x INTEGER, y TEXT, z BLOB)",
        "CREATE INDEX t1a ON t1(a)",
    ]

    /// A generated view: its name and the names its columns have.
    struct View {
        var name: String
        var columns: [String]
    }

    struct Generator {
        var src: ValueSource
        var views: [View] = []
        /// Whether a view reads another view (whose columns Granite's column rename does not follow).
        var hasViewOfView = false

        mutating func value() -> String {
            src.pick([
                "NULL", "\(src.int(-3...5))", "'\(src.pick(["x", "X", "y", "", "1", "2"]))'", "\(src.int(-2...3)).5",
            ])
        }

        mutating func rows() -> [String] {
            (0..<src.int(0...8)).map { _ in "INSERT INTO t1 VALUES (\(value()), \(value()), \(value()), \(value()))" }
                + (0..<src.int(0...6)).map { _ in "INSERT INTO t2 VALUES (\(value()), \(value()), \(value()))" }
        }

        /// A condition on `columns` (qualified by `qualifier` when given).
        mutating func condition(_ columns: [String], _ qualifier: String? = nil) -> String {
            let column = (qualifier.map { "\($0)." } ?? "") + ViewSQL.quoted(src.pick(columns))
            switch src.int(0...6) {
            case 0: return "\(column) IS NOT NULL"
            case 1: return "\(column) > \(value())"
            case 2: return "\(column) = \(value())"
            case 3: return "\(column) IN (\(value()), \(value()))"
            case 4: return "\(column) BETWEEN \(value()) AND \(value())"
            case 5: return "NOT (\(column) < \(value()))"
            default:
                return "\(condition(columns, qualifier)) \(src.pick(["AND", "OR"])) \(condition(columns, qualifier))"
            }
        }

        /// A view body over `t1`, `t2` or an earlier view, with the names SQLite gives its columns.
        mutating func body() -> (sql: String, columns: [String]) {
            switch src.int(0...7) {
            case 0:
                return ("SELECT * FROM t1" + whereClause(["a", "b", "c", "d"]), ["a", "b", "c", "d"])
            case 1:
                // Plain columns, expressions (aliased or named after their text), repeated names.
                let picks: [(String, String)] = [
                    ("a", "a"), ("b", "b"), ("c", "c"), ("d", "d"), ("t1.a", "a"), ("a + 1 AS k", "k"),
                    ("b || 'z' AS bz", "bz"), ("upper(b)", "upper(b)"), ("b COLLATE BINARY AS bb", "bb"),
                    ("CAST(d AS INTEGER) AS di", "di"), ("-c", "-c"), ("a*2", "a*2"), ("+a AS pa", "pa"),
                ]
                var chosen: [(String, String)] = []
                for _ in 0..<src.int(1...4) { chosen.append(src.pick(picks)) }
                let names = Self.uniqued(chosen.map(\.1))
                let sql =
                    "SELECT \(chosen.map(\.0).joined(separator: ", ")) FROM t1" + whereClause(["a", "b", "c", "d"])
                return (sql, names)
            case 2:
                let join = src.pick(["JOIN", "LEFT JOIN"])
                return (
                    "SELECT t1.a, t1.b, t2.y, t2.x AS x FROM t1 \(join) t2 ON t1.a = t2.x"
                        + whereClause(["a", "b", "y"]), ["a", "b", "y", "x"]
                )
            case 3:
                return (
                    "SELECT b, count(*) AS n, sum(a) AS s, max(c) FROM t1 GROUP BY b", ["b", "n", "s", "max(c)"]
                )
            case 4:
                return ("SELECT DISTINCT b, d FROM t1", ["b", "d"])
            case 5:
                return ("SELECT a, b FROM t1 ORDER BY a DESC, b LIMIT \(src.int(0...4))", ["a", "b"])
            case 6:
                return ("SELECT x, y, z FROM t2" + whereClause(["x", "y", "z"]), ["x", "y", "z"])
            default:
                guard !views.isEmpty else {
                    return ("SELECT a AS a, c FROM t1 WHERE a IN (SELECT x FROM t2)", ["a", "c"])
                }
                // A view of an earlier view.
                hasViewOfView = true
                let base = src.pick(views)
                return ("SELECT * FROM \(base.name) WHERE \(condition(base.columns))", base.columns)
            }
        }

        mutating func whereClause(_ columns: [String]) -> String {
            src.int(0...2) == 0 ? " WHERE \(condition(columns))" : ""
        }

        /// The `CREATE VIEW` statement of a new view (sometimes with a column list).
        mutating func createView() -> String {
            let name = "v\(views.count + 1)"
            let (sql, columns) = body()
            if src.int(0...3) == 0 {
                let renamed = columns.indices.map { "c\($0)" }
                views.append(View(name: name, columns: renamed))
                return "CREATE VIEW \(name)(\(renamed.joined(separator: ", "))) AS \(sql)"
            }
            views.append(View(name: name, columns: columns))
            return "CREATE VIEW \(name) AS \(sql)"
        }

        /// A query over the views, and whether its row order is defined.
        mutating func query() -> (sql: String, ordered: Bool) {
            let view = src.pick(views)
            let column = ViewSQL.quoted(src.pick(view.columns))
            switch src.int(0...12) {
            case 0: return ("SELECT * FROM \(view.name)", false)
            case 1: return ("SELECT * FROM \(view.name) WHERE \(condition(view.columns))", false)
            case 2: return ("SELECT \(column) FROM \(view.name) AS q WHERE \(condition(view.columns, "q"))", false)
            case 3:
                return ("SELECT \(column), typeof(\(column)) FROM \(view.name) ORDER BY \(column), 2", true)
            case 4:
                return ("SELECT q.*, t2.x FROM \(view.name) q JOIN t2 ON q.\(column) = t2.x", false)
            case 5:
                return ("SELECT x FROM t2 WHERE x IN (SELECT \(column) FROM \(view.name))", false)
            case 6:
                return ("SELECT count(*), max(\(column)), (SELECT count(*) FROM \(view.name)) FROM \(view.name)", true)
            case 7:
                let other = src.pick(views)
                let otherColumn = ViewSQL.quoted(src.pick(other.columns))
                return (
                    "SELECT * FROM \(view.name) AS l, \(other.name) AS r WHERE l.\(column) = r.\(otherColumn)", false
                )
            case 8: return ("PRAGMA table_info(\(view.name))", true)
            case 9:
                return ("SELECT * FROM (SELECT * FROM \(view.name)) WHERE \(column) = \(value())", false)
            case 10:
                // A view on the right of a LEFT JOIN, filtered on its NULL row.
                return (
                    "SELECT t2.x, q.* FROM t2 LEFT JOIN \(view.name) AS q ON q.\(column) = t2.x "
                        + "WHERE q.\(column) IS NULL OR \(condition(view.columns, "q"))", false
                )
            case 11:
                // Filters on both sides of a join of two views (each may be pushed into its view).
                let other = src.pick(views)
                return (
                    "SELECT * FROM \(view.name) AS l JOIN \(other.name) AS r ON 1 "
                        + "WHERE \(condition(view.columns, "l")) AND \(condition(other.columns, "r"))", false
                )
            default:
                return ("SELECT \(column) = '1', \(column) = 'X', \(column) < 2 FROM \(view.name)", false)
            }
        }

        /// `names` made unique the way SQLite names a view's columns (`a`, `a:1`, …).
        static func uniqued(_ names: [String]) -> [String] {
            var seen: Set<String> = []
            return names.map { name in
                var unique = name
                var n = 0
                while seen.contains(unique.lowercased()) {
                    n += 1
                    unique = "\(name):\(n)"
                }
                seen.insert(unique.lowercased())
                return unique
            }
        }
    }

    func testRandomViewsMatchSQLite() throws {
        let seed = testSeed()
        var generator = Generator(src: ValueSource(seed: seed))
        var failures: [String] = []
        var cases = 0
        for _ in 0..<(120 * stressFactor) {
            generator.views = []
            generator.hasViewOfView = false
            let oracle = Oracle()
            let db = try SQLConnection(engine: try StorageEngine.inMemory())
            for statement in Self.schema + generator.rows() {
                oracle.execute(statement)
                try db.execute(statement)
            }
            var statements: [(sql: String, ordered: Bool)] = []
            for _ in 0..<generator.src.int(1...4) { statements.append((generator.createView(), true)) }
            for _ in 0..<8 { statements.append(generator.query()) }
            // Sometimes a table the views read is renamed: SQLite and Granite rewrite the views' text alike.
            if generator.src.int(0...5) == 0 {
                let newName = generator.src.pick(["\"t1x\"", "T1", "\"renamed one\""])
                statements.append(("ALTER TABLE t1 RENAME TO \(newName)", true))
                statements.append(("SELECT name, sql FROM sqlite_schema WHERE type = 'view' ORDER BY name", true))
                for _ in 0..<3 { statements.append(generator.query()) }
            }
            // Sometimes a column the views read is renamed. Not when a view has a column named after an expression
            // (`upper(b)`): a view of it names that column in double quotes, which SQLite reads as a string once the
            // rename changed the name, where Granite (which has no such fallback) reports the missing column.
            // Nor when a view reads another: Granite refuses to rewrite it (see ViewColumnRenamer).
            let plainNames =
                !generator.hasViewOfView
                && generator.views.allSatisfy { view in
                    view.columns.allSatisfy { $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } }
                }
            if plainNames, generator.src.int(0...5) == 0 {
                let column = generator.src.pick(["a", "b", "x"])
                let table = column == "x" ? "t2" : "t1"
                statements.append(("ALTER TABLE \(table) RENAME COLUMN \(column) TO \(column)\(column)", true))
                statements.append(("SELECT name, sql FROM sqlite_schema WHERE type = 'view' ORDER BY name", true))
                statements.append(("ALTER TABLE \(table) RENAME COLUMN \(column)\(column) TO \(column)", true))
                for _ in 0..<3 { statements.append(generator.query()) }
            }
            // Sometimes a table the views read goes away: reading them is then an error.
            if generator.src.int(0...9) == 0 {
                statements.append(("DROP TABLE t2", true))
                for _ in 0..<3 { statements.append(generator.query()) }
            }
            for (sql, ordered) in statements {
                cases += 1
                let expected = SelectDifferentialTests.sqlite(oracle, sql)
                let actual = SelectDifferentialTests.granite(db, sql)
                // A column rename that would break a view of a view fails in both, but SQLite finds out after
                // rewriting ("error in view v after rename: …") where Granite refuses to rewrite: any error agrees.
                if sql.contains("RENAME COLUMN"), case .failure = expected, case .failure = actual { continue }
                if let why = SelectDifferentialTests.mismatch(expected, actual, ordered: ordered) {
                    let views = statements.map(\.sql).filter { $0.hasPrefix("CREATE VIEW") }
                    failures.append("\(sql): \(why)\n  views: " + views.joined(separator: "; "))
                }
            }
        }
        XCTAssertGreaterThanOrEqual(cases, 1000 * stressFactor)
        XCTAssert(
            failures.isEmpty,
            "\(failures.count) mismatches in \(cases) cases (GRANITE_SEED=\(seed)):\n"
                + failures.prefix(30).joined(separator: "\n"))
    }

    /// Fixed statements: the schema-level errors of views, their stored rows, names and declared types.
    func testFixedStatementsMatchSQLite() throws {
        let statements = [
            "CREATE VIEW v AS SELECT a, b, a + 1 AS k, c FROM t1",
            "CREATE VIEW v AS SELECT 1",
            "CREATE VIEW IF NOT EXISTS v AS SELECT 1",
            "CREATE VIEW t1 AS SELECT 1",
            "CREATE VIEW t1a AS SELECT 1",
            "CREATE TABLE v(x)",
            "CREATE TABLE IF NOT EXISTS v(x)",
            "CREATE INDEX v ON t1(a)",
            "CREATE INDEX vi ON v(a)",
            "DROP TABLE v",
            "DROP TABLE IF EXISTS v",
            "DROP VIEW t1",
            "DROP VIEW IF EXISTS t1",
            "DROP VIEW t1a",
            "DROP VIEW nosuch",
            "DROP VIEW IF EXISTS nosuch",
            "DROP INDEX v",
            "INSERT INTO v VALUES (1, 2, 3, 4)",
            "UPDATE v SET a = 1",
            "DELETE FROM v",
            "ALTER TABLE v RENAME TO w",
            "ALTER TABLE v RENAME COLUMN a TO aa",
            "ALTER TABLE v ADD COLUMN e",
            "ALTER TABLE v DROP COLUMN a",
            "ALTER TABLE t2 RENAME TO v",
            "CREATE VIEW other.w AS SELECT 1",
            "CREATE VIEW main.w AS SELECT 1 AS one",
            "SELECT * FROM main.w",
            "CREATE VIEW w2(p, q) AS SELECT 1",
            "SELECT * FROM w2",
            "PRAGMA table_info(w2)",
            "CREATE VIEW w3 AS SELECT * FROM nosuch",
            "SELECT * FROM w3",
            "PRAGMA table_info(w3)",
            "CREATE VIEW w4 AS SELECT * FROM w4",
            "SELECT * FROM w4",
            "CREATE VIEW w5 AS SELECT * FROM w6",
            "CREATE VIEW w6 AS SELECT * FROM w5",
            "SELECT * FROM w5",
            "CREATE VIEW w7 AS SELECT a, a, a AS \"a:1\", b || '' FROM t1",
            "SELECT * FROM w7",
            "PRAGMA table_info(w7)",
            "CREATE VIEW w8 AS SELECT (SELECT x FROM nosuch2) AS s",
            "SELECT * FROM w8",
            "CREATE VIEW w9 AS SELECT a FROM t1 ORDER BY 5",
            "SELECT * FROM w9",
            "CREATE VIEW w10 AS SELECT q.b, q.k FROM v AS q WHERE q.k > 1",
            "PRAGMA table_xinfo(w10)",
            "SELECT * FROM w10 ORDER BY k",
            "SELECT b FROM v WHERE b = 'x' ORDER BY a",
            "SELECT v.*, t2.* FROM v, t2 WHERE v.a = t2.x ORDER BY 1, 5",
            "SELECT * FROM v AS t1 ORDER BY 1",
            "SELECT * FROM v, v",
            "SELECT type, name, tbl_name, rootpage, sql FROM sqlite_schema WHERE type = 'view' ORDER BY name",
            // SQLite refuses to rename while a view does not compile.
            "ALTER TABLE t1 RENAME TO t1_renamed",
            "DROP VIEW w3",
            "ALTER TABLE t1 RENAME TO t1_renamed",
            "DROP VIEW w4",
            "ALTER TABLE t1 RENAME TO t1_renamed",
            "DROP VIEW w5",
            "ALTER TABLE t1 RENAME TO t1_renamed",
            "DROP VIEW w6",
            "ALTER TABLE t1 RENAME TO t1_renamed",
            "DROP VIEW w8",
            "ALTER TABLE t1 RENAME TO t1_renamed",
            "DROP VIEW w9",
            "ALTER TABLE t1 RENAME TO t1_renamed",
            "SELECT type, name, tbl_name, rootpage, sql FROM sqlite_schema WHERE type = 'view' ORDER BY name",
            "SELECT * FROM w10 ORDER BY k",
            "SELECT * FROM w7",
            "ALTER TABLE t1_renamed RENAME TO t1",
            "ALTER TABLE t1 RENAME COLUMN a TO aa",
            "SELECT type, name, tbl_name, rootpage, sql FROM sqlite_schema WHERE type = 'view' ORDER BY name",
            "SELECT * FROM w10 ORDER BY k",
            "SELECT * FROM w7",
            "ALTER TABLE t1 RENAME COLUMN aa TO \"a b\"",
            "SELECT type, name, tbl_name, rootpage, sql FROM sqlite_schema WHERE type = 'view' ORDER BY name",
            "ALTER TABLE t1 RENAME COLUMN \"a b\" TO a",
            "SELECT sql FROM sqlite_schema WHERE type = 'view' ORDER BY name",
            "DROP VIEW v",
            "SELECT * FROM w10",
            "DROP VIEW IF EXISTS v",
            "SELECT count(*) FROM sqlite_master WHERE name = 'v'",
        ]
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        let setup =
            Self.schema + [
                "INSERT INTO t1 VALUES (1, 'x', 1.5, 'p'), (2, 'X', NULL, 3), (3, 'y', -2.0, NULL), (NULL, NULL, 0.5, 'q')",
                "INSERT INTO t2 VALUES (1, 'one', x'01'), (3, 'three', NULL), (5, 'five', x'')",
            ]
        for statement in setup {
            oracle.execute(statement)
            try db.execute(statement)
        }
        for sql in statements {
            let expected = SelectDifferentialTests.sqlite(oracle, sql)
            let actual = SelectDifferentialTests.granite(db, sql)
            if let why = SelectDifferentialTests.mismatch(expected, actual, ordered: true) {
                XCTFail("\(sql): \(why)")
            }
        }
    }
}

extension ViewDifferentialTests {
    /// Malformed view statements: SQLite's message and error offset.
    func testSyntaxErrorsMatchSQLite() {
        var db: OpaquePointer?
        sqlite3_open(":memory:", &db)
        defer { sqlite3_close(db) }
        let statements = [
            "CREATE VIEW v AS", "CREATE VIEW v SELECT 1", "CREATE VIEW AS SELECT 1", "CREATE VIEW v() AS SELECT 1",
            "CREATE VIEW v(a,) AS SELECT 1", "CREATE VIEW IF EXISTS v AS SELECT 1", "CREATE VIEW v AS DELETE FROM t",
            "DROP VIEW", "DROP VIEW IF v", "DROP VIEW v.", "CREATE VIEW v AS SELECT ?",
            "CREATE VIEW v AS SELECT * FROM t WHERE a = :name", "CREATE TEMP INDEX i ON t(a)",
        ]
        for sql in statements {
            var stmt: OpaquePointer?
            XCTAssertNotEqual(sqlite3_prepare_v2(db, sql, -1, &stmt, nil), SQLITE_OK, sql)
            sqlite3_finalize(stmt)
            let expected = String(cString: sqlite3_errmsg(db))
            let offset = Int(sqlite3_error_offset(db))
            do {
                _ = try Parser.parseScript(sql)
                XCTFail("no syntax error for \(sql); SQLite says \(expected)")
            } catch {
                XCTAssertEqual(error.message, expected, sql)
                if offset >= 0 { XCTAssertEqual(error.location.offset, offset, sql) }
            }
        }
    }
}

/// Identifier quoting for generated SQL.
private enum ViewSQL {
    static func quoted(_ name: String) -> String {
        name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } ? name : "\"\(name)\""
    }
}
