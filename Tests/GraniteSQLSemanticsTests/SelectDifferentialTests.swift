import CSQLiteOracle
import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// Random schemas, data and SELECT queries (joins, grouping, ordering, subqueries) run on SQLite and Granite.
final class SelectDifferentialTests: XCTestCase {
    struct Column {
        var name: String
        var type: String
        var nocase: Bool { type.contains("NOCASE") }
    }

    struct Table {
        var name: String
        var hasKey: Bool
        var columns: [Column]
        /// Every column name a query may reference, the key first.
        var names: [String] { (hasKey ? ["id"] : []) + columns.map(\.name) }
    }

    /// One FROM item as the query sees it: a qualifier and its column names.
    struct Source {
        var qualifier: String
        var columns: [String]
        /// A table (not a subquery), which has a rowid.
        var isTable = false
    }

    /// A generated query and how its rows are compared.
    struct Query {
        var sql: String
        /// The ORDER BY determines the row order (up to rows that compare equal).
        var ordered: Bool
    }

    struct Generator {
        var src: ValueSource
        var tables: [Table] = []
        var aliasCounter = 0
        /// Off while generating ON clauses: a name unique so far may be repeated by a later FROM item.
        var unqualified = true
        /// Set while generating the ON condition of a LEFT JOIN (see the LIKE case of ``condition(_:depth:)``).
        var inLeftJoinOn = false

        init(seed: UInt64) { src = ValueSource(seed: seed) }

        // MARK: Schema and data

        mutating func schema() -> [String] {
            let pool = ["a", "b", "c", "d", "e"]
            let types = ["INTEGER", "TEXT", "REAL", "", "TEXT COLLATE NOCASE", "NUMERIC", "BLOB", "INT", ""]
            var sql: [String] = []
            for k in 0..<src.int(2...4) {
                var names = pool
                names.shuffle(using: &src.rng)
                let columns = names.prefix(src.int(2...4)).sorted().map { Column(name: $0, type: src.pick(types)) }
                let table = Table(name: "t\(k)", hasKey: src.int(0...2) > 0, columns: columns)
                tables.append(table)
                let defs =
                    (table.hasKey ? ["id INTEGER PRIMARY KEY"] : [])
                    + columns.map { $0.type.isEmpty ? $0.name : "\($0.name) \($0.type)" }
                sql.append("CREATE TABLE \(table.name)(\(defs.joined(separator: ", ")))")
                for i in 0..<src.int(0...2) {
                    var cols = columns.map(\.name)
                    cols.shuffle(using: &src.rng)
                    // DESC only after the first column: SQLite 3.40 misses the NULLs of `x NOT IN (SELECT c …)`
                    // when it reads c from an index whose first column is DESC.
                    let picked = cols.prefix(src.int(1...2)).enumerated().map { k, c in
                        k > 0 && src.int(0...2) == 0 ? "\(c) DESC" : c
                    }
                    let unique = src.int(0...3) == 0 ? "UNIQUE " : ""
                    sql.append(
                        "CREATE \(unique)INDEX \(table.name)_i\(i) ON \(table.name)(\(picked.joined(separator: ", ")))")
                }
            }
            return sql
        }

        /// A value from a small domain, so that joins and groups match.
        mutating func value(for column: Column) -> String {
            switch src.int(0...12) {
            case 0, 1: return "NULL"
            case 2, 3, 4, 5: return "\(src.int(0...5))"
            case 6:
                // An integral real stays a real in a column without affinity, where it ties with the integer
                // (GROUP BY keeps either as the group's value).
                let typed = column.type.contains("INT") || column.type == "REAL" || column.type == "NUMERIC"
                return src.pick(typed ? ["2.5", "-0.5", "1.0", "3.0"] : ["2.5", "-0.5"])
            case 7, 8, 9: return src.pick(["'a'", "'A'", "'b'", "'B'", "'é'", "'É'", "'日本'", "'ab'", "''", "'a b'"])
            case 10: return src.pick(["'1'", "'2'", "' 3'", "'2.5'", "'x1'"])
            case 11: return src.pick(["x'61'", "x''", "x'6263'"])
            default: return column.nocase ? "'A'" : "\(src.int(-1...2))"
            }
        }

        mutating func inserts() -> [String] {
            var sql: [String] = []
            for table in tables {
                for _ in 0..<src.int(0...14) {
                    let key = table.hasKey ? [src.int(0...2) == 0 ? "NULL" : "\(src.int(1...12))"] : []
                    let values = key + table.columns.map { value(for: $0) }
                    sql.append("INSERT INTO \(table.name) VALUES (\(values.joined(separator: ", ")))")
                }
            }
            return sql
        }

        // MARK: Expressions

        mutating func literal() -> String {
            switch src.int(0...9) {
            case 0: return "NULL"
            case 1, 2, 3, 4: return "\(src.int(-1...5))"
            case 5: return src.pick(["2.5", "1.0", "-0.5"])
            case 6, 7: return src.pick(["'a'", "'A'", "'b'", "'é'", "'日本'", "''"])
            case 8: return src.pick(["'1'", "'2'", "'2.5'"])
            default: return "x'61'"
            }
        }

        mutating func columnRef(_ scope: [Source]) -> String {
            let source = src.pick(scope)
            if source.isTable && src.int(0...15) == 0 { return "\(source.qualifier).rowid" }
            let column = src.pick(source.columns)
            // Unqualified when no other source has that name (the innermost scope wins anyway).
            if unqualified && src.int(0...3) == 0 && scope.filter({ $0.columns.contains(column) }).count == 1 {
                return column
            }
            return "\(source.qualifier).\(column)"
        }

        /// A scalar expression over the scope's columns.
        mutating func expression(_ scope: [Source], depth: Int = 1) -> String {
            if scope.isEmpty { return literal() }
            switch src.int(0...13) {
            case 0...5: return columnRef(scope)
            case 6: return "\(columnRef(scope)) \(src.pick(["+", "-", "*", "%", "/"])) \(src.int(1...3))"
            case 7: return "\(src.pick(["abs", "lower", "upper", "typeof", "length"]))(\(columnRef(scope)))"
            case 8: return "coalesce(\(columnRef(scope)), \(literal()))"
            case 9: return "\(columnRef(scope)) || \(src.pick(["'x'", "'-'"]))"
            case 10:
                return "CASE WHEN \(condition(scope, depth: 0)) THEN \(columnRef(scope)) ELSE \(literal()) END"
            case 11: return literal()
            case 12 where depth > 0: return scalarSubquery(scope)
            default: return "\(columnRef(scope)) COLLATE \(src.pick(["NOCASE", "BINARY"]))"
            }
        }

        /// A boolean condition; `outer` columns may be referenced from subqueries (correlation).
        mutating func condition(_ scope: [Source], depth: Int = 2) -> String {
            if depth > 0 && src.int(0...3) == 0 {
                let op = src.pick(["AND", "OR", "AND"])
                return "(\(condition(scope, depth: depth - 1)) \(op) \(condition(scope, depth: depth - 1)))"
            }
            if depth > 0 && src.int(0...12) == 0 { return "NOT (\(condition(scope, depth: depth - 1)))" }
            let x = expression(scope, depth: 0)
            switch src.int(0...15) {
            case 0...4:
                let op = src.pick(["=", "=", "<", "<=", ">", ">=", "!=", "IS", "IS NOT"])
                let rhs = src.bool() ? literal() : expression(scope, depth: 0)
                return "\(x) \(op) \(rhs)"
            case 5:
                let items = (0..<src.int(1...4)).map { _ in literal() }
                return "\(x) \(src.int(0...3) == 0 ? "NOT " : "")IN (\(items.joined(separator: ", ")))"
            case 6: return "\(x) \(src.int(0...3) == 0 ? "NOT " : "")BETWEEN \(literal()) AND \(literal())"
            case 7:
                // SQLite 3.40 returns no rows at all for t LEFT JOIN u ON u.id LIKE 'a%', or ON u.d LIKE 'a%' with
                // u.d an indexed NOCASE column (its LIKE optimization turns the prefix into a range on the right
                // table): no prefix patterns on the rowid (also under a COLLATE), nor in a LEFT JOIN's ON clause.
                let column = x.components(separatedBy: " COLLATE ")[0]
                let key = column.hasSuffix("id") || column.hasSuffix("rowid") || inLeftJoinOn
                return
                    "\(x) LIKE \(src.pick(key ? ["'%b'", "'_'", "'%'"] : ["'a%'", "'%b'", "'_'", "'A'", "'%'", "'é%'"]))"
            case 8: return "\(x) IS \(src.bool() ? "" : "NOT ")NULL"
            case 9 where depth > 0:
                return "\(src.int(0...2) == 0 ? "NOT " : "")EXISTS (\(subquery(scope, aggregate: false)))"
            case 10 where depth > 0:
                return "\(x) \(src.int(0...1) == 0 ? "NOT " : "")IN (\(subquery(scope, aggregate: false)))"
            case 11 where depth > 0:
                return "\(scalarSubquery(scope)) \(src.pick(["=", ">", "<", "IS NOT"])) \(x)"
            default: return "\(x) \(src.pick(["=", "<", ">="])) \(literal())"
            }
        }

        mutating func nextAlias() -> String {
            aliasCounter += 1
            return "q\(aliasCounter)"
        }

        /// A one-column subquery over one table, possibly correlated with `outer`.
        mutating func subquery(_ outer: [Source], aggregate: Bool) -> String {
            let table = src.pick(tables)
            let alias = nextAlias()
            let inner = Source(qualifier: alias, columns: table.names, isTable: true)
            let column = "\(alias).\(src.pick(table.names))"
            let result: String
            var order = ""
            if aggregate && src.int(0...3) == 0 {
                // A first row that the ORDER BY determines (the rowid breaks ties).
                result = column
                order = " ORDER BY \(column)\(src.pick(["", " DESC"])), \(alias).rowid LIMIT 1"
                if src.int(0...3) == 0 { order += " OFFSET 1" }
            } else if aggregate {
                result = src.pick([
                    "max(\(column))", "min(\(column))", "count(*)", "count(\(column))", "sum(\(column))",
                ])
            } else {
                result = column
            }
            let distinct = !aggregate && order.isEmpty && src.int(0...4) == 0 ? "DISTINCT " : ""
            var sql = "SELECT \(distinct)\(result) FROM \(table.name) AS \(alias)"
            switch src.int(0...4) {
            case 0: break
            case 1: sql += " WHERE \(condition([inner], depth: 0))"
            case 2 where outer.count < 3:
                // A nested subquery, which may reach both this one and the outer query.
                sql += " WHERE \(condition(outer + [inner], depth: 1))"
            default:
                // Correlated: the inner table's column against an outer column.
                if outer.isEmpty {
                    sql += " WHERE \(condition([inner], depth: 0))"
                } else {
                    sql += " WHERE \(columnRef([inner])) \(src.pick(["=", "=", "<", "IS"])) \(columnRef(outer))"
                }
            }
            return sql + order
        }

        mutating func scalarSubquery(_ outer: [Source]) -> String { "(\(subquery(outer, aggregate: true)))" }

        // MARK: FROM

        /// A FROM clause and the sources it makes visible.
        mutating func from() -> (String, [Source]) {
            var scope: [Source] = []
            var sql = ""
            unqualified = false
            defer { unqualified = true }
            for k in 0..<src.int(1...3) {
                let (item, source) = fromItem()
                if k == 0 {
                    sql = item
                    scope.append(source)
                    continue
                }
                let shared = Set(source.columns).intersection(scope.flatMap(\.columns))
                    .filter { name in scope.filter { $0.columns.contains(name) }.count == 1 }.sorted()
                let natural = Set(source.columns).intersection(scope.flatMap(\.columns)).count == shared.count
                switch src.int(0...9) {
                case 0, 1: sql += ", \(item)"
                case 2, 3: sql += " JOIN \(item) ON \(condition(scope + [source], depth: 1))"
                case 4, 5:
                    // Conditions on both sides of a LEFT JOIN.
                    let on = "\(columnRef(scope)) \(src.pick(["=", "=", "<", "IS"])) \(columnRef([source]))"
                    inLeftJoinOn = true
                    let extra = src.bool() ? " AND \(condition([source], depth: 0))" : ""
                    inLeftJoinOn = false
                    sql += " LEFT JOIN \(item) ON \(on)\(extra)"
                case 6...7 where !shared.isEmpty:
                    let using = shared.prefix(src.int(1...shared.count))
                    sql += " \(src.bool() ? "LEFT " : "")JOIN \(item) USING (\(using.joined(separator: ", ")))"
                case 8 where natural:
                    sql += " NATURAL \(src.bool() ? "LEFT " : "")JOIN \(item)"
                default: sql += " CROSS JOIN \(item)"
                }
                scope.append(source)
            }
            return (sql, scope)
        }

        mutating func fromItem() -> (String, Source) {
            let table = src.pick(tables)
            let alias = nextAlias()
            if src.int(0...12) == 0 {
                // A grouped subquery in FROM.
                let key = src.pick(table.names)
                let x = src.pick(table.names)
                // Which of 'a' and 'A' stands for a NOCASE group (or is the maximum) is SQLite's choice: keep
                // such ties out of values that later queries compute with.
                func binary(_ name: String) -> String {
                    table.columns.contains { $0.name == name && $0.nocase } ? "\(name) COLLATE BINARY" : name
                }
                let sql =
                    "SELECT \(key) AS k, count(*) AS n, max(\(binary(x))) AS m FROM \(table.name) "
                    + "GROUP BY \(binary(key))"
                return ("(\(sql)) AS \(alias)", Source(qualifier: alias, columns: ["k", "n", "m"]))
            }
            if src.int(0...6) == 0 {
                // A subquery in FROM: a projection (possibly DISTINCT or grouped) of one table.
                let inner = Source(qualifier: table.name, columns: table.names)
                var columns = table.names
                columns.shuffle(using: &src.rng)
                columns = Array(columns.prefix(src.int(1...columns.count)))
                let list = columns.map { "\(table.name).\($0) AS \($0)" }.joined(separator: ", ")
                let nocase = table.columns.contains { $0.nocase && columns.contains($0.name) }
                let distinct = !nocase && src.int(0...3) == 0
                var sql = "SELECT \(distinct ? "DISTINCT " : "")\(list) FROM \(table.name)"
                if src.bool() { sql += " WHERE \(condition([inner], depth: 0))" }
                if !distinct && src.int(0...3) == 0 {
                    // A total order (the rowid breaks ties), so LIMIT picks determined rows.
                    let key = src.pick(table.names)
                    sql += " ORDER BY \(table.name).\(key)\(src.pick(["", " DESC"])), \(table.name).rowid"
                    sql += " LIMIT \(src.int(0...6))"
                }
                return ("(\(sql)) AS \(alias)", Source(qualifier: alias, columns: columns))
            }
            return ("\(table.name) AS \(alias)", Source(qualifier: alias, columns: table.names, isTable: true))
        }

        // MARK: SELECT

        mutating func aggregate(_ scope: [Source]) -> String {
            let x = columnRef(scope)
            switch src.int(0...10) {
            case 0, 1: return "count(*)"
            case 2: return "count(\(x))"
            case 3: return "count(DISTINCT \(x))"
            case 4: return "sum(\(x))"
            case 5: return "total(\(x))"
            case 6: return "avg(\(x))"
            case 7: return "min(\(x))"
            case 8: return "max(\(x))"
            // The concatenation order is unspecified; its length is not.
            case 9: return "length(group_concat(\(x)))"
            default: return "\(src.pick(["sum", "max", "count"]))(DISTINCT \(expression(scope, depth: 0)))"
            }
        }

        mutating func query() -> Query {
            if src.int(0...40) == 0 {
                // No FROM: constants and subqueries.
                let list = (0..<src.int(1...3)).map { _ in src.bool() ? literal() : scalarSubquery([]) }
                return Query(sql: "SELECT \(list.joined(separator: ", "))", ordered: true)
            }
            let (fromSQL, scope) = from()
            var outputs: [String] = []
            var aliases: [String?] = []
            var sql = "SELECT "
            var groupBy = ""
            var having = ""
            var keyCount = 0
            var hidden: String?
            let distinct = src.int(0...5) == 0
            let star = src.int(0...9) == 0
            switch src.int(0...9) {
            case _ where star: break
            case 0...4:
                for _ in 0..<src.int(1...4) { outputs.append(expression(scope)) }
                if !distinct && src.int(0...3) == 0 { hidden = expression(scope, depth: 0) }
            case 5, 6, 7:
                // Grouped: the keys are output columns, the rest are aggregates.
                var keys: [String] = []
                keyCount = 0
                for _ in 0..<src.int(1...2) { keys.append(expression(scope, depth: 0)) }
                outputs = keys
                keyCount = keys.count
                for _ in 0..<src.int(1...3) { outputs.append(aggregate(scope)) }
                let terms = keys.enumerated().map { k, key in src.int(0...3) == 0 ? "\(k + 1)" : key }
                groupBy = " GROUP BY \(terms.joined(separator: ", "))"
                switch src.int(0...5) {
                case 0, 1:
                    having = " HAVING \(aggregate(scope)) \(src.pick([">", "<", "=", ">="])) \(src.int(0...3))"
                case 2: having = " HAVING \(keys[0]) IS NOT NULL OR count(*) > 1"
                case 3:
                    having = " HAVING \(keys.last!) \(src.pick(["=", "<", ">", "!="])) \(literal()) AND count(*) > 0"
                default: break
                }
            default:
                for _ in 0..<src.int(1...3) { outputs.append(aggregate(scope)) }
            }
            for k in outputs.indices { aliases.append(src.int(0...2) == 0 ? "o\(k)" : nil) }
            if !groupBy.isEmpty, let k = aliases.indices.first(where: { aliases[$0] != nil && $0 < keyCount }),
                src.bool()
            {
                // GROUP BY an output alias.
                groupBy =
                    " GROUP BY \(aliases[k]!)"
                    + (0..<keyCount).filter { $0 != k }.map { ", \(outputs[$0])" }.joined()
            }
            var list =
                star
                ? "*"
                : zip(outputs, aliases).map { e, a in a.map { "\(e) AS \($0)" } ?? e }
                    .joined(separator: ", ")
            if star && src.int(0...2) == 0 { list = "\(src.pick(scope).qualifier).*" }
            sql += (distinct ? "DISTINCT " : "") + list + " FROM " + fromSQL
            if src.int(0...2) > 0 { sql += " WHERE \(condition(scope))" }
            sql += groupBy + having
            if star {
                if src.int(0...2) == 0 { sql += " ORDER BY \(columnRef(scope)) \(src.pick(["ASC", "DESC"]))" }
                return Query(sql: sql, ordered: false)
            }
            guard src.int(0...3) > 0 else { return Query(sql: sql, ordered: false) }
            // ORDER BY some random terms, then every output column, so that the order is total.
            var terms: [String] = []
            for _ in 0..<src.int(0...2) {
                let k = src.int(0...(outputs.count - 1))
                var term: String
                switch src.int(0...2) {
                case 0: term = "\(k + 1)"
                case 1: term = aliases[k] ?? outputs[k]
                default: term = distinct ? "\(k + 1)" : outputs[k]
                }
                if src.int(0...4) == 0 && term.first?.isNumber != true { term += " COLLATE NOCASE" }
                term += src.pick(["", " ASC", " DESC"])
                term += src.pick(["", "", " NULLS FIRST", " NULLS LAST"])
                terms.append(term)
            }
            // A term that is not a result column comes first, or it would not change the order.
            if let hidden { terms.insert("\(hidden)\(src.pick(["", " DESC"]))", at: 0) }
            for k in outputs.indices { terms.append("\(k + 1)\(src.pick(["", " DESC"]))") }
            sql += " ORDER BY \(terms.joined(separator: ", "))"
            if src.int(0...2) == 0 {
                sql += " LIMIT \(src.int(-1...5))"
                if src.bool() { sql += " OFFSET \(src.int(0...3))" }
            }
            return Query(sql: sql, ordered: true)
        }
    }

    // MARK: Comparison

    enum Result {
        case rows([String], [[Value]])
        case failure(String)
    }

    static func sqlite(_ oracle: Oracle, _ sql: String) -> Result {
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(oracle.db, sql, -1, &stmt, nil) == SQLITE_OK, let stmt else {
            return .failure(String(cString: sqlite3_errmsg(oracle.db)))
        }
        defer { sqlite3_finalize(stmt) }
        let n = sqlite3_column_count(stmt)
        let names = (0..<n).map { String(cString: sqlite3_column_name(stmt, $0)) }
        var rows: [[Value]] = []
        while true {
            let rc = sqlite3_step(stmt)
            if rc == SQLITE_DONE { return .rows(names, rows) }
            guard rc == SQLITE_ROW else { return .failure(String(cString: sqlite3_errmsg(oracle.db))) }
            rows.append((0..<n).map { oracle.column(stmt, $0) })
        }
    }

    static func granite(_ db: SQLConnection, _ sql: String) -> Result {
        do {
            let result = try db.query(sql)
            return .rows(result.columns, result.rows)
        } catch {
            return .failure(graniteMessage(error))
        }
    }

    /// Equal up to what ORDER BY, DISTINCT and GROUP BY treat as ties: numbers by value, text ignoring ASCII case.
    static func loosely(_ x: Value, _ y: Value) -> Bool {
        switch (x, y) {
        case (.integer(let a), .real(let b)), (.real(let b), .integer(let a)): return Double(a) == b
        case (.text(let a), .text(let b)): return a.lowercased() == b.lowercased()
        default: return x.type == y.type && x == y
        }
    }

    static func key(_ row: [Value]) -> String { row.map { "\($0.type):\($0)" }.joined(separator: "|") }

    /// Runs `statements` one by one on `oracle` and on `db`, failing the test for each statement whose outcomes
    /// (rows in order, or errors) differ.
    static func compareInOrder(
        _ statements: [String], _ oracle: Oracle, _ db: SQLConnection, file: StaticString = #filePath,
        line: UInt = #line
    ) {
        for sql in statements {
            if let why = mismatch(sqlite(oracle, sql), granite(db, sql), ordered: true) {
                XCTFail("\(sql): \(why)", file: file, line: line)
            }
        }
    }

    /// Why the outcomes differ, or nil.
    static func mismatch(_ expected: Result, _ actual: Result, ordered: Bool) -> String? {
        switch (expected, actual) {
        case (.failure(let e), .failure(let a)):
            // SQLite reports the last bad name of an expression, Granite the first: compare the kind only.
            let nameErrors = ["ambiguous column name: ", "no such column: "]
            if let kind = nameErrors.first(where: { e.hasPrefix($0) }), a.hasPrefix(kind) { return nil }
            return e == a ? nil : "sqlite error '\(e)', granite error '\(a)'"
        case (.failure(let e), .rows):
            return "sqlite failed '\(e)', granite succeeded"
        case (.rows, .failure(let a)):
            return "sqlite succeeded, granite failed '\(a)'"
        case (.rows(let en, let e), .rows(let an, let a)):
            if en != an { return "columns: sqlite \(en), granite \(an)" }
            if e.count != a.count { return "sqlite \(e.count) rows, granite \(a.count) rows\n  \(e)\n  \(a)" }
            let strict = ordered ? e.map(key) == a.map(key) : e.map(key).sorted() == a.map(key).sorted()
            if strict { return nil }
            // Rows that compare equal may come in either order, or be represented by either value.
            let looseMatch: Bool
            if ordered {
                looseMatch = zip(e, a).allSatisfy { x, y in zip(x, y).allSatisfy { loosely($0, $1) } }
            } else {
                var remaining = a
                looseMatch = e.allSatisfy { row in
                    guard let k = remaining.firstIndex(where: { zip(row, $0).allSatisfy { loosely($0, $1) } }) else {
                        return false
                    }
                    remaining.remove(at: k)
                    return true
                }
            }
            return looseMatch
                ? nil : "rows differ (\(ordered ? "ordered" : "multiset")):\n  sqlite  \(e)\n  granite \(a)"
        }
    }

    func testRandomSelectsMatchSQLite() throws {
        let seed = testSeed()
        let databases = 20 * stressFactor
        let queriesPerDatabase = 120
        var failures: [String] = []
        var queries = 0
        var rowsCompared = 0
        var errors = 0
        var errorKinds: [String: Int] = [:]
        var ordered = 0
        var oracleOptimizerBugs: [String] = []
        for round in 0..<databases where failures.count < 8 {
            var generator = Generator(seed: seed &+ UInt64(round) &* 0x1_0000_0001)
            let setup = generator.schema() + generator.inserts()
            let oracle = Oracle()
            let db = try SQLConnection(engine: try StorageEngine.inMemory())
            var applied: [String] = []
            for sql in setup {
                // Unique indexes reject some rows: keep only what SQLite accepts.
                guard case .rows = Self.sqlite(oracle, sql) else { continue }
                applied.append(sql + ";")
                do { try db.execute(sql) } catch {
                    failures.append("setup \(sql): granite failed '\(graniteMessage(error))'")
                }
            }
            for _ in 0..<queriesPerDatabase where failures.count < 8 {
                let query = generator.query()
                queries += 1
                let expected = Self.sqlite(oracle, query.sql)
                let actual = Self.granite(db, query.sql)
                switch expected {
                case .rows(_, let rows): rowsCompared += rows.count
                case .failure(let message):
                    errors += 1
                    errorKinds[message.split(separator: ":").first.map(String.init) ?? message, default: 0] += 1
                }
                if query.ordered { ordered += 1 }
                if let why = Self.mismatch(expected, actual, ordered: query.ordered) {
                    // SQLite 3.40's optimizer has wrong-result bugs (fixed in later releases) that these random
                    // queries reach now and then; the unoptimized plan is the reference then.
                    oracle.setOptimizations(enabled: false)
                    let unoptimized = Self.sqlite(oracle, query.sql)
                    oracle.setOptimizations(enabled: true)
                    if Self.mismatch(unoptimized, actual, ordered: query.ordered) == nil {
                        oracleOptimizerBugs.append("\(query.sql) (optimized SQLite: \(why))")
                        continue
                    }
                    failures.append(
                        "-- round \(round)\n\(applied.joined(separator: "\n"))\n\(query.sql);\n-- \(why)")
                }
            }
        }
        let topErrors = errorKinds.sorted { $0.value > $1.value }.prefix(3).map { "\($0.key) ×\($0.value)" }
        print(
            "select/random: \(queries) queries (\(ordered) ordered), \(rowsCompared) rows, \(errors) errors on both "
                + "sides (\(topErrors.joined(separator: "; "))), \(failures.count) mismatches, seed \(seed)")
        for bug in oracleOptimizerBugs {
            print("select/random: SQLite's optimized plan differs from its unoptimized plan and Granite: \(bug)")
        }
        if !failures.isEmpty {
            XCTFail("select mismatches (GRANITE_SEED=\(seed)):\n" + failures.joined(separator: "\n\n"))
        }
    }
}
