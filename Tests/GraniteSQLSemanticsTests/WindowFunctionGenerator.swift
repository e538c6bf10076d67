/// Random window-function queries over `WindowFunctionDifferentialTests.schema`. A query whose result could
/// depend on how rows that tie in a window's order are arranged (row_number, lag, ROWS frames, group_concat, …)
/// gets a window order that ends with the unique `id`, so SQLite and Granite must agree exactly.
struct WindowFunctionGenerator {
    var src: ValueSource

    mutating func rows() -> [String] {
        var statements: [String] = []
        for id in 1...src.int(1...12) {
            let g = src.pick(["'a'", "'b'", "'A'", "NULL"])
            let h = src.pick(["'p'", "'P'", "'q'", "'r'", "NULL"])
            let x = src.pick(["NULL", "\(src.int(-2...5))", "\(src.int(0...3))"])
            let y = src.pick(["NULL", "-1.5", "0.0", "1.5", "2.0", "2.5", "4.0"])
            let z = src.pick(["NULL", "1", "2", "2.5", "'x'", "'X'", "X'00'", "-3"])
            statements.append("INSERT INTO t VALUES (\(id), \(g), \(h), \(x), \(y), \(z))")
        }
        for _ in 0..<src.int(0...5) {
            statements.append(
                "INSERT INTO u VALUES (\(src.pick(["NULL", "1", "2", "3"])), \(src.pick(["'a'", "'b'", "NULL"])))")
        }
        return statements
    }

    /// A window function call and whether its result depends on the order of rows that tie. Offsets of lag and
    /// lead are not negative beyond -1: SQLite finds a row ahead only once it has read it, which depends on how
    /// far it has read the partition (Granite has read all of it).
    mutating func call() -> (sql: String, orderSensitive: Bool, isAggregate: Bool) {
        switch src.int(0...13) {
        case 0: return ("row_number()", true, false)
        case 1: return (src.pick(["rank()", "dense_rank()"]), false, false)
        case 2: return (src.pick(["percent_rank()", "cume_dist()"]), false, false)
        case 3: return ("ntile(\(src.pick(["1", "2", "3", "5", "id", "ifnull(abs(x), 0) + 1"])))", true, false)
        case 4:
            let f = src.pick(["lag", "lead"])
            let args = src.pick([
                "x", "z, 2", "x, -1", "y, 1, 'none'", "x, 0", "z, abs(x), 'd'", "y, NULL, 0", "x, 1.5, -1",
            ])
            return ("\(f)(\(args))", true, false)
        case 5: return ("\(src.pick(["first_value", "last_value"]))(\(src.pick(["x", "z", "g"])))", true, false)
        case 6: return ("nth_value(\(src.pick(["x", "z"])), \(src.int(1...3)))", true, false)
        case 7, 8, 9:
            let f = src.pick([
                "count(*)", "count(x)", "sum(x)", "total(y)", "avg(x)", "sum(z)", "min(z)", "max(x)",
                "min(g)", "avg(y)", "count(h)",
            ])
            return (f + filter(), false, true)
        case 10:
            let f = src.pick([
                "group_concat(id)", "group_concat(g, '-')", "json_group_array(x)",
                "json_group_object(id, z)",
            ])
            return (f + filter(), true, true)
        default:
            return (src.pick(["sum(x)", "count(*)", "max(y)", "min(x)"]) + filter(), false, true)
        }
    }

    mutating func filter() -> String {
        src.int(0...3) == 0 ? " FILTER (WHERE \(src.pick(["x > 1", "g = 'a'", "y IS NOT NULL", "id % 2 = 0"])))" : ""
    }

    mutating func partition() -> String {
        switch src.int(0...5) {
        case 0: return "PARTITION BY g"
        case 1: return "PARTITION BY h"
        case 2: return "PARTITION BY x % 2"
        case 3: return "PARTITION BY g, h"
        default: return ""
        }
    }

    mutating func orderTerm() -> String {
        let key = src.pick(["x", "y", "z", "g", "h", "h COLLATE BINARY", "g COLLATE NOCASE", "x + y", "id"])
        let direction = src.pick(["", " ASC", " DESC"])
        let nulls = src.pick(["", "", " NULLS FIRST", " NULLS LAST"])
        return key + direction + nulls
    }

    /// A frame; `rangeOffsets` when the window's ORDER BY has exactly one term.
    mutating func frame(rangeOffsets: Bool, orderSensitive: inout Bool) -> String {
        if src.int(0...2) == 0 { return "" }
        var unit = src.pick(["ROWS", "RANGE", "GROUPS"])
        if unit == "ROWS" { orderSensitive = true }
        func offset(_ src: inout ValueSource, _ unit: String) -> String {
            unit == "RANGE" ? src.pick(["0", "1", "2", "1.5"]) : "\(src.int(0...3))"
        }
        let starts = ["UNBOUNDED PRECEDING", "n PRECEDING", "CURRENT ROW", "n FOLLOWING"]
        let ends = ["n PRECEDING", "CURRENT ROW", "n FOLLOWING", "UNBOUNDED FOLLOWING"]
        var start = src.pick(starts)
        var end = src.pick(ends)
        // Mostly valid pairs; now and then one SQLite refuses.
        let rank = [
            "UNBOUNDED PRECEDING": 0, "n PRECEDING": 1, "CURRENT ROW": 2, "n FOLLOWING": 3,
            "UNBOUNDED FOLLOWING": 4,
        ]
        if rank[start]! > rank[end]! && src.int(0...5) != 0 { swap(&start, &end) }
        if start == "UNBOUNDED FOLLOWING" { start = "CURRENT ROW" }
        if end == "UNBOUNDED PRECEDING" { end = "CURRENT ROW" }
        if unit == "RANGE" && !rangeOffsets && (start.hasPrefix("n") || end.hasPrefix("n")) && src.int(0...5) != 0 {
            unit = "GROUPS"
        }
        start = start.replacingOccurrences(of: "n ", with: offset(&src, unit) + " ")
        end = end.replacingOccurrences(of: "n ", with: offset(&src, unit) + " ")
        let exclusion = src.pick([
            "", "", "", " EXCLUDE NO OTHERS", " EXCLUDE CURRENT ROW", " EXCLUDE GROUP",
            " EXCLUDE TIES",
        ])
        if src.bool() { return "\(unit) BETWEEN \(start) AND \(end)" + exclusion }
        return "\(unit) \(start)" + exclusion
    }

    /// A window definition (without parentheses) for a call.
    mutating func window(orderSensitive: Bool, keys: [String]? = nil) -> String {
        var sensitive = orderSensitive
        var parts: [String] = []
        let p = keys == nil ? partition() : ""
        if !p.isEmpty { parts.append(p) }
        var order: [String] = []
        for _ in 0..<src.int(0...2) { order.append(keys.map { src.pick($0) } ?? orderTerm()) }
        let framePart = frame(rangeOffsets: order.count == 1, orderSensitive: &sensitive)
        if sensitive {
            // Make the order total: the unique key alone under a RANGE offset (which needs one term), else last.
            let rangeOffset = framePart.hasPrefix("RANGE") && framePart.contains(where: \.isNumber)
            let unique = keys.map { [$0[0]] } ?? ["id", "id DESC"]
            if rangeOffset {
                order = [src.pick(unique)]
            } else {
                order.append(src.pick(unique))
            }
        }
        if !order.isEmpty { parts.append("ORDER BY " + order.joined(separator: ", ")) }
        if !framePart.isEmpty { parts.append(framePart) }
        return parts.joined(separator: " ")
    }

    /// A query, and whether its row order is defined.
    mutating func query() -> (sql: String, ordered: Bool) {
        var calls: [String] = []
        for _ in 0..<src.int(1...3) {
            let c = call()
            calls.append("\(c.sql) OVER (\(window(orderSensitive: c.orderSensitive)))")
        }
        let selected = calls.enumerated().map { "\($1) AS w\($0)" }.joined(separator: ", ")
        let condition = src.int(0...3) == 0 ? " WHERE \(src.pick(["x > 0", "g IS NOT NULL", "y < 2.5", "id > 3"]))" : ""
        switch src.int(0...11) {
        case 0:
            // Grouped: windows over the groups, ordered by the group key (unique per group).
            let c = call()
            let over = window(orderSensitive: c.orderSensitive, keys: ["g", "count(*)", "sum(x)"])
            let target =
                c.isAggregate
                ? src.pick(["sum(count(*))", "max(sum(x))", "count(*)", "avg(min(y))"]) : c.sql
            return (
                "SELECT g, count(*), sum(x), \(target) OVER (\(over)) AS w FROM t\(condition) GROUP BY g"
                    + src.pick(["", " HAVING count(*) > 1"]), false
            )
        case 1:
            // Without json_group_object(id, z): SQLite stops computing windows at the LIMIT when its rows come in
            // order, so a BLOB past it raises no error there.
            let selected = selected.replacingOccurrences(of: "(id, z)", with: "(id, y)")
            return (
                "SELECT id, \(selected) FROM t\(condition) ORDER BY \(src.pick(["id", "w0, id", "id DESC"])) LIMIT \(src.int(0...6))",
                true
            )
        case 2:
            return ("SELECT * FROM (SELECT id, x, \(selected) FROM t\(condition)) WHERE w0 IS NOT NULL", false)
        case 3:
            return ("WITH c AS (SELECT id, g, \(selected) FROM t\(condition)) SELECT * FROM c WHERE id % 2 = 1", false)
        case 4:
            let c = call()
            let base = window(orderSensitive: c.orderSensitive)
            return ("SELECT id, \(c.sql) OVER w AS w0, count(*) OVER w AS n FROM t WINDOW w AS (\(base))", false)
        case 5:
            return (
                "SELECT id, \(selected) FROM t\(condition) UNION ALL SELECT k, \(calls.map { _ in "NULL" }.joined(separator: ", ")) FROM u",
                false
            )
        case 6:
            return ("SELECT DISTINCT x, \(calls[0]) FROM t\(condition)", false)
        case 7:
            return (
                "SELECT t.id, u.v, \(selected) FROM t JOIN (SELECT k, max(v) AS v FROM u GROUP BY k) AS u ON t.x = u.k\(condition.replacingOccurrences(of: "id", with: "t.id"))",
                false
            )
        case 8:
            // A window based on a named one: its partitioning, this one's ordering and frame.
            let c = call()
            let own = window(orderSensitive: c.orderSensitive, keys: ["id", "x", "y DESC", "z NULLS LAST"])
            let base = src.pick(["PARTITION BY g", "PARTITION BY x % 2", ""])
            return ("SELECT id, \(c.sql) OVER (w \(own)) AS w0 FROM t\(condition) WINDOW w AS (\(base))", false)
        case 9:
            // Windows only in the ORDER BY.
            return ("SELECT id, x FROM t\(condition) ORDER BY \(calls[0]), id", true)
        default:
            return ("SELECT id, \(selected) FROM t\(condition)", false)
        }
    }
}
