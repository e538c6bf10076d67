import CSQLiteOracle
import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// `GROUP BY` over rows that the first join level yields in key order (a rowid scan, an index scan whose leading
/// columns are the keys, an equality-fixed prefix, a `WITHOUT ROWID` primary key): groups are aggregated as they
/// arrive, and results must equal SQLite's in order, since both engines emit the groups in the plan's order.
final class StreamedGroupByDifferentialTests: XCTestCase {
    static let schema = [
        "CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT, country TEXT COLLATE NOCASE)",
        "CREATE INDEX author_country ON author(country)",
        "CREATE TABLE book(id INTEGER PRIMARY KEY, authorId INTEGER, title TEXT, year INTEGER, price REAL)",
        "CREATE INDEX book_author ON book(authorId)",
        "CREATE INDEX book_year_title ON book(year, title)",
        "CREATE TABLE w(a, b, c, PRIMARY KEY(a DESC, b)) WITHOUT ROWID",
        "CREATE TABLE v(k TEXT PRIMARY KEY, n INTEGER) WITHOUT ROWID",
    ]

    struct Workload {
        var src: ValueSource

        mutating func text() -> Value {
            .text(src.pick(["a", "A", "b", "B", "ab", "AB", "x", "", "é", "a "]))
        }

        mutating func number() -> Value {
            switch src.int(0...5) {
            case 0: return .null
            case 1: return .real(Double(src.int(-2...6)) / 2)
            case 2: return .text(src.pick(["3", "2.0", "x", " 4"]))
            default: return .integer(Int64(src.int(-2...8)))
            }
        }

        mutating func authorRow() -> [Value] {
            [
                .integer(Int64(src.int(1...40))), src.int(0...6) == 0 ? .null : text(),
                src.int(0...5) == 0 ? .null : text(),
            ]
        }

        mutating func bookRow() -> [Value] {
            let author: Value = src.int(0...7) == 0 ? number() : .integer(Int64(src.int(1...45)))
            return [.integer(Int64(src.int(1...200))), author, text(), number(), number()]
        }

        /// A row of `w`, whose key `a` holds no REAL: equal keys of different types would make its group's key
        /// value depend on the order of the group's rows, which differs (see ``query()``).
        mutating func wRow() -> [Value] {
            var a = number()
            if case .real(let r) = a { a = .integer(Int64(r)) }
            // `w` is read in another order within a group than SQLite's (below), so an integer and an equal real
            // in `c` (2 and 2.0) would make min, max and sum(DISTINCT) keep whichever comes first: c's reals are
            // never whole.
            var c = number()
            if case .real(let r) = c, r.rounded() == r { c = .real(r + 0.25) }
            return [a, number(), c]
        }
        mutating func vRow() -> [Value] { [text(), number()] }

        /// One to three aggregate calls over `x` and `y`; with `inAnyOrder`, only those whose result does not depend
        /// on the order of a group's rows; with `bareColumns` (the query reads columns that are not keys), no `min`
        /// or `max`: which row such columns come from then is a difference from SQLite that does not depend on
        /// streaming (SQLite follows the last min/max call, and takes every row while its argument is NULL).
        mutating func aggregates(_ x: String, _ y: String, inAnyOrder: Bool = false, bareColumns: Bool = false)
            -> String
        {
            var choices = [
                "count(*)", "count(\(x))", "count(DISTINCT \(x))", "sum(DISTINCT \(x))", "total(\(y))",
                "count(*) FILTER (WHERE \(y) > 1)",
            ]
            if !bareColumns { choices += ["min(\(x))", "max(\(y))", "max(\(x)) + count(*)"] }
            if !inAnyOrder { choices += ["group_concat(\(x))", "avg(\(y))", "group_concat(DISTINCT \(x))"] }
            var calls: [String] = []
            for _ in 0..<src.int(1...3) { calls.append(src.pick(choices)) }
            return calls.joined(separator: ", ")
        }

        /// `HAVING`, `ORDER BY` and `LIMIT` clauses, at random; `ORDER BY` and `LIMIT` only when `limited`.
        mutating func tail(keys: [String], positions: Int, limited: Bool = true) -> String {
            var sql = ""
            if !limited { return src.int(0...3) == 0 ? " HAVING count(*) > 1" : "" }
            if src.int(0...3) == 0 { sql += " HAVING count(*) \(src.pick([">", "<=", "="])) \(src.int(0...3))" }
            switch src.int(0...5) {
            case 0: sql += " ORDER BY \(keys[0]) DESC"
            case 1: sql += " ORDER BY " + keys.joined(separator: ", ")
            case 2: sql += " ORDER BY \(positions) DESC, " + (1...keys.count).map(String.init).joined(separator: ", ")
            default: break
            }
            if src.int(0...3) == 0 {
                sql += " LIMIT \(src.int(0...4))"
                if src.bool() { sql += " OFFSET \(src.int(0...3))" }
            }
            return sql
        }

        /// A grouped query, and whether SQLite's order of its rows is one Granite keeps. Granite walks `w`'s
        /// `(a DESC, b)` key backwards, which orders `b` descending where SQLite's order is ascending: queries of `w`
        /// read no bare column and no order-dependent aggregate, and those grouped by `(a, b)` are compared as sets.
        mutating func query() -> (sql: String, ordered: Bool) {
            switch src.int(0...10) {
            case 0, 1:
                let join = src.pick(["LEFT JOIN", "JOIN", "LEFT JOIN"])
                let filter = src.bool() ? " WHERE author.id > \(src.int(0...20))" : ""
                let sql =
                    "SELECT author.*, \(aggregates("book.id", "book.year")) FROM author \(join) book "
                    + "ON book.authorId = author.id\(filter) GROUP BY author.id"
                return (sql + tail(keys: ["author.id"], positions: 4), true)
            case 2:
                let sql =
                    "SELECT authorId, title, \(aggregates("price", "year", bareColumns: true)) FROM book "
                    + "GROUP BY authorId"
                return (sql + tail(keys: ["authorId"], positions: 3), true)
            case 3:
                let filter = src.bool() ? " WHERE year = \(src.int(0...4))" : " WHERE year > 1"
                let sql = "SELECT year, title, \(aggregates("title", "price")) FROM book\(filter) GROUP BY year, title"
                return (sql + tail(keys: ["year", "title"], positions: 3), true)
            case 4:
                let sql =
                    "SELECT country, name, \(aggregates("name", "id", bareColumns: true)) FROM author GROUP BY country"
                return (sql + tail(keys: ["country"], positions: 3), true)
            case 5:
                let sql = "SELECT a, \(aggregates("c", "b", inAnyOrder: true)) FROM w GROUP BY a"
                return (sql + tail(keys: ["a"], positions: 2), true)
            case 6:
                let sql = "SELECT a, b, \(aggregates("c", "c")) FROM w GROUP BY a, b"
                return (sql + tail(keys: ["a", "b"], positions: 3, limited: false), false)
            case 7:
                let sql = "SELECT k, \(aggregates("n", "n")) FROM v GROUP BY k"
                return (sql + tail(keys: ["k"], positions: 2), true)
            case 8:
                // A correlated subquery grouped over an equality-fixed index prefix.
                let sql =
                    "SELECT id, (SELECT count(DISTINCT year) FROM book WHERE authorId = author.id "
                    + "GROUP BY authorId) FROM author ORDER BY id"
                return (sql, true)
            case 9:
                let sql =
                    "SELECT authorId, count(*), sum(count(*)) OVER (ORDER BY authorId), "
                    + "rank() OVER (ORDER BY count(*) DESC, authorId) FROM book GROUP BY authorId ORDER BY authorId"
                return (sql, true)
            default:
                let sql =
                    "SELECT DISTINCT count(*) FROM book GROUP BY authorId"
                return (sql + tail(keys: ["authorId"], positions: 1), true)
            }
        }
    }

    func testRandomStreamedGroupsMatchSQLiteInOrder() throws {
        let seed = testSeed()
        var workload = Workload(src: ValueSource(seed: seed))
        var failures: [String] = []
        var compared = 0
        var rowsCompared = 0
        for round in 0..<(4 * stressFactor) {
            let oracle = Oracle()
            let db = try SQLConnection(engine: try StorageEngine.inMemory())
            for sql in Self.schema {
                oracle.execute(sql)
                try db.execute(sql)
            }
            // The first round queries empty tables.
            let rows = round == 0 ? 0 : workload.src.int(5...120)
            for _ in 0..<rows {
                let (sql, args): (String, [Value])
                switch workload.src.int(0...3) {
                case 0: (sql, args) = ("INSERT OR REPLACE INTO author VALUES (?, ?, ?)", workload.authorRow())
                case 1: (sql, args) = ("INSERT OR REPLACE INTO w VALUES (?, ?, ?)", workload.wRow())
                case 2: (sql, args) = ("INSERT OR REPLACE INTO v VALUES (?, ?)", workload.vRow())
                default: (sql, args) = ("INSERT OR REPLACE INTO book VALUES (?, ?, ?, ?, ?)", workload.bookRow())
                }
                _ = oracle.all(sql, args)
                _ = StatementOutcome.granite(db, sql, args)
            }
            for _ in 0..<150 {
                let (sql, ordered) = workload.query()
                var expected = oracle.all(sql, [])
                var actual = StatementOutcome.granite(db, sql, [])
                if !ordered, case .rows(let e) = expected, case .rows(let a) = actual {
                    expected = .rows(e.sorted(by: Self.precedes))
                    actual = .rows(a.sorted(by: Self.precedes))
                }
                if case .rows(let e) = expected { rowsCompared += e.count }
                compared += 1
                if let failure = StatementOutcome.mismatch(sqlite: expected, granite: actual, what: sql) {
                    let plans =
                        "sqlite plan \(sqlitePlan(oracle, sql) ?? []), granite plan \((try? explain(db, sql)) ?? [])"
                    failures.append(failure + "\n  " + plans)
                }
                if failures.count >= 10 { break }
            }
        }
        print("streamed group by: \(compared) queries, \(rowsCompared) rows compared, seed \(seed)")
        XCTAssertGreaterThan(rowsCompared, 0)
        if !failures.isEmpty {
            XCTFail(
                "streamed GROUP BY differs from SQLite (GRANITE_SEED=\(seed)):\n" + failures.joined(separator: "\n"))
        }
    }

    /// A total order on rows, by each value's description (to compare results whose order is not the plan's).
    static func precedes(_ x: [Value], _ y: [Value]) -> Bool {
        "\(x)" < "\(y)"
    }

    // MARK: Plans

    func explain(_ db: SQLConnection, _ sql: String) throws -> [String] {
        try db.query("EXPLAIN QUERY PLAN " + sql).rows.map { row in
            if case .text(let s) = row[3] { return s }
            return "?"
        }
    }

    /// SQLite's `EXPLAIN QUERY PLAN` details, without its `USE TEMP B-TREE FOR count(DISTINCT)` lines (Granite keeps
    /// a `DISTINCT` aggregate's values in memory and shows no line for them).
    func sqlitePlan(_ oracle: Oracle, _ sql: String) -> [String]? {
        guard case .rows(let rows) = oracle.all("EXPLAIN QUERY PLAN " + sql, []) else { return nil }
        return rows.compactMap { row in
            guard case .text(let s) = row[3] else { return "?" }
            return s.hasSuffix("(DISTINCT)") ? nil : s
        }
    }

    func testPlansOfStreamedGroupsMatchSQLite() throws {
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        for sql in Self.schema {
            oracle.execute(sql)
            try db.execute(sql)
        }
        let streamed = [
            // The association request GRDB writes for `Author.annotated(with: Author.books.count)`.
            #"SELECT "author".*, COUNT(DISTINCT "book"."id") AS "bookCount" FROM "author" LEFT JOIN "book" "#
                + #"ON "book"."authorId" = "author"."id" GROUP BY "author"."id""#,
            "SELECT id, count(*) FROM author GROUP BY id",
            "SELECT id, count(*) FROM author GROUP BY id ORDER BY id",
            "SELECT id, count(*) FROM author GROUP BY id ORDER BY id DESC",
            "SELECT id, count(*) FROM author GROUP BY id LIMIT 2",
            "SELECT id, count(*) FROM author WHERE id > 3 GROUP BY id",
            "SELECT id, name, count(*) FROM author GROUP BY id, name",
            "SELECT authorId, count(*) FROM book GROUP BY authorId",
            "SELECT authorId, title, count(*) FROM book GROUP BY authorId",
            "SELECT authorId, max(year), title FROM book GROUP BY authorId HAVING count(*) > 1",
            "SELECT year, title, count(*) FROM book GROUP BY year, title",
            "SELECT year, count(*) FROM book GROUP BY year",
            "SELECT title, count(*) FROM book WHERE year = 3 GROUP BY title",
            "SELECT year, title, sum(price) FROM book WHERE year > 1 GROUP BY year, title",
            "SELECT country, name, count(*) FROM author GROUP BY country",
            "SELECT a, count(*) FROM w GROUP BY a",
            "SELECT a, count(*) FROM w GROUP BY a ORDER BY a",
            "SELECT a, b, count(*) FROM w GROUP BY a, b",
            "SELECT b, count(*) FROM w WHERE a = 1 GROUP BY b",
            "SELECT k, sum(n) FROM v GROUP BY k",
            "SELECT name, (SELECT count(*) FROM book WHERE authorId = author.id GROUP BY authorId) FROM author",
        ]
        let sortedAfterwards = [
            "SELECT id, count(*) FROM author GROUP BY id ORDER BY count(*)",
            "SELECT authorId, count(*) FROM book GROUP BY authorId ORDER BY 2 DESC",
        ]
        let tables = [
            "SELECT name, count(*) FROM author GROUP BY name",
            "SELECT country, name, count(*) FROM author GROUP BY country COLLATE BINARY",
            "SELECT authorId + 1, title, count(*) FROM book GROUP BY authorId + 1",
            "SELECT title, price, count(*) FROM book GROUP BY title",
        ]
        for sql in streamed + sortedAfterwards + tables {
            guard let expected = sqlitePlan(oracle, sql) else {
                XCTFail("sqlite failed on \(sql)")
                continue
            }
            let actual = try explain(db, sql)
            XCTAssertEqual(actual, expected, sql)
            let usesTable = actual.contains("USE TEMP B-TREE FOR GROUP BY")
            XCTAssertEqual(usesTable, tables.contains(sql), sql)
            XCTAssertEqual(
                actual.contains("USE TEMP B-TREE FOR ORDER BY"), sortedAfterwards.contains(sql), sql)
        }
    }

    /// Groups kept in the group table (no index on the key) whose bare columns follow `max()` or `min()`: the
    /// representative row is overwritten each time the aggregate changes (on every row when the column rises with
    /// the rowid), and must end as the row of the last change, as in SQLite.
    func testBareColumnsFollowingMinMaxMatchSQLite() throws {
        let setup = [
            "CREATE TABLE r(id INTEGER PRIMARY KEY, g TEXT, name TEXT, x REAL, y INTEGER)",
            """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60)
            INSERT INTO r SELECT i, 'g' || (i % 4), 'name ' || i, i * 1.5, (i * 37) % 23 FROM n
            """,
        ]
        let statements = [
            "SELECT g, name, count(*), max(x) FROM r GROUP BY g ORDER BY g",
            "SELECT g, name, y, max(y) FROM r GROUP BY g ORDER BY g",
            "SELECT g, name, min(y), id FROM r GROUP BY g ORDER BY g",
            "SELECT name, max(x), x FROM r",
            "SELECT g, name, max(x) FROM r WHERE y > 5 GROUP BY g HAVING count(*) > 3 ORDER BY g",
        ]
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
                XCTFail("\(sql): \(why)")
            }
        }
    }
}
