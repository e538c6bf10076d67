import CSQLiteOracle
import Foundation
import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

final class SemanticsDifferentialTests: XCTestCase {
    func testArithmeticAndConcatenation() {
        let seed = testSeed()
        var src = ValueSource(seed: seed)
        let oracle = Oracle()
        let checker = Checker("arithmetic", seed: seed)
        let ops: [(String, SQLArithmeticOperator)] = [
            ("+", .add), ("-", .subtract), ("*", .multiply), ("/", .divide), ("%", .remainder),
            ("&", .bitwiseAnd), ("|", .bitwiseOr), ("<<", .shiftLeft), (">>", .shiftRight), ("||", .concatenate),
        ]
        let sql = "SELECT " + ops.map { "?1 \($0.0) ?2" }.joined(separator: ", ") + ", -?1, ~?1, NOT ?1, +?1"
        for _ in 0..<(400 * stressFactor) {
            let a = src.value()
            let b = src.value()
            let row = oracle.row(sql, [a, b])
            for (k, op) in ops.enumerated() {
                checker.check(row[k], Outcome { SQLArithmetic.evaluate(op.1, a, b) }, "\(a) \(op.0) \(b)")
            }
            let n = ops.count
            checker.check(row[n], Outcome { SQLArithmetic.negate(a) }, "-\(a)")
            checker.check(row[n + 1], Outcome { SQLArithmetic.bitwiseNot(a) }, "~\(a)")
            checker.check(row[n + 2], Outcome { SQLArithmetic.not(a) }, "NOT \(a)")
            checker.check(row[n + 3], .value(a), "+\(a)")
        }
        checker.finish()
    }

    func testComparisonsWithAffinities() {
        let seed = testSeed()
        var src = ValueSource(seed: seed)
        let oracle = Oracle()
        let checker = Checker("comparison", seed: seed)
        let columns: [(String, SQLAffinity)] = [
            ("i", .integer), ("r", .real), ("n", .numeric), ("t", .text), ("b", .blob),
        ]
        for table in ["t1", "t2"] {
            oracle.execute("CREATE TABLE \(table)(i INTEGER, r REAL, n NUMERIC, t TEXT, b BLOB)")
        }
        // Operands: each column of t1/t2 plus a bare parameter (no affinity).
        let left: [(String, SQLAffinity?)] = columns.map { ("t1.\($0.0)", $0.1) } + [("?1", nil)]
        let right: [(String, SQLAffinity?)] = columns.map { ("t2.\($0.0)", $0.1) } + [("?2", nil)]
        let ops: [(String, SQLComparisonOperator)] = [
            ("=", .equal), ("<>", .notEqual), ("<", .less), ("<=", .lessOrEqual), (">", .greater),
            (">=", .greaterOrEqual), ("IS", .is), ("IS NOT", .isNot),
        ]
        var exprs: [String] = []
        var plan: [(Int, Int, Int)] = []
        for (li, l) in left.enumerated() {
            for (ri, r) in right.enumerated() {
                for (oi, o) in ops.enumerated() {
                    exprs.append("\(l.0) \(o.0) \(r.0)")
                    plan.append((li, ri, oi))
                }
            }
        }
        let collations: [(String, SQLCollation)] = [("NOCASE", .nocase), ("RTRIM", .rtrim), ("BINARY", .binary)]
        for c in collations {
            for (oi, o) in ops.enumerated() {
                exprs.append("?1 \(o.0) ?2 COLLATE \(c.0)")
                plan.append((-1, collations.firstIndex { $0.0 == c.0 }!, oi))
            }
        }
        let select = "SELECT " + exprs.joined(separator: ", ") + " FROM t1, t2"
        let stored = "SELECT i, r, n, t, b FROM t1"
        for _ in 0..<(150 * stressFactor) {
            var a = src.value()
            var b = src.value()
            if src.int(0...3) == 0, case .text = a {
                // Similar texts make collation differences visible.
                b = .text((a.sqlText ?? "").uppercased() + (src.bool() ? "  " : ""))
            }
            if src.int(0...5) == 0 { a = .text(String(src.integer())) }
            oracle.execute("DELETE FROM t1; DELETE FROM t2")
            oracle.run("INSERT INTO t1 VALUES (?1, ?1, ?1, ?1, ?1)", [a])
            oracle.run("INSERT INTO t2 VALUES (?1, ?1, ?1, ?1, ?1)", [b])
            let storedRow = oracle.row(stored, [])
            for (k, c) in columns.enumerated() {
                checker.check(storedRow[k], .value(c.1.apply(to: a)), "\(a) stored with \(c.1) affinity")
            }
            let row = oracle.row(select, [a, b])
            for (k, p) in plan.enumerated() {
                let op = ops[p.2]
                let result: Value
                if p.0 < 0 {
                    let coll = collations[p.1]
                    let r = SQLComparison.evaluate(op.1, a, b, collation: coll.1)
                    result = r.map { .integer($0 ? 1 : 0) } ?? .null
                } else {
                    let la = left[p.0].1
                    let ra = right[p.1].1
                    let x = la.map { $0.apply(to: a) } ?? a
                    let y = ra.map { $0.apply(to: b) } ?? b
                    let r = SQLComparison.evaluate(op.1, x, y, leftAffinity: la, rightAffinity: ra)
                    result = r.map { .integer($0 ? 1 : 0) } ?? .null
                }
                checker.check(row[k], .value(result), "\(exprs[k]) with ?1=\(a) ?2=\(b)")
            }
        }
        checker.finish()
    }

    func testCastAndRealRendering() {
        let seed = testSeed()
        var src = ValueSource(seed: seed)
        let oracle = Oracle()
        let checker = Checker("cast", seed: seed)
        let types: [String] = ["INTEGER", "REAL", "TEXT", "BLOB", "NUMERIC", "VARCHAR(10)", "FLOATING POINT", "BIGINT"]
        let sql = "SELECT " + types.map { "CAST(?1 AS \($0))" }.joined(separator: ", ")
        for _ in 0..<(600 * stressFactor) {
            let a = src.value()
            let row = oracle.row(sql, [a])
            for (k, t) in types.enumerated() {
                checker.check(row[k], Outcome { SQLCast.cast(a, to: t) }, "CAST(\(a) AS \(t))")
            }
        }
        for _ in 0..<(3000 * stressFactor) {
            let r: Double
            switch src.int(0...2) {
            case 0: r = src.real()
            case 1: r = Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &src.rng))
            default: r = Double(src.int(-999_999...999_999)) * src.pow10(src.int(0...20)) / src.pow10(src.int(0...25))
            }
            if r.isNaN { continue }
            let row = oracle.row("SELECT CAST(?1 AS TEXT), quote(?1)", [.real(r)])
            checker.check(row[0], .value(.text(SQLRealFormatting.render(r))), "render \(r)")
            checker.check(row[1], Outcome { SQLScalarFunctions.quote(.real(r)) }, "quote \(r)")
        }
        checker.finish()
    }

    func testScalarFunctions() {
        let seed = testSeed()
        var src = ValueSource(seed: seed)
        let oracle = Oracle()
        let checker = Checker("scalar", seed: seed)
        // (name, arity); each is evaluated as `name(?1, …)` in SQLite and via `SQLScalarFunctions.call`.
        let functions: [(String, Int)] = [
            ("length", 1), ("lower", 1), ("upper", 1), ("abs", 1), ("round", 1), ("round", 2), ("coalesce", 2),
            ("coalesce", 3), ("ifnull", 2), ("nullif", 2), ("substr", 2), ("substr", 3), ("substring", 3),
            ("instr", 2), ("replace", 3), ("trim", 1), ("trim", 2), ("ltrim", 1), ("ltrim", 2), ("rtrim", 1),
            ("rtrim", 2), ("typeof", 1), ("hex", 1), ("quote", 1), ("unicode", 1), ("min", 2), ("min", 3),
            ("max", 2), ("max", 3), ("iif", 3), ("char", 2),
        ]
        for _ in 0..<(200 * stressFactor) {
            for (name, arity) in functions {
                var args: [Value] = []
                for k in 0..<arity {
                    if (name.hasPrefix("substr") || name == "round") && k > 0 && src.bool() {
                        args.append(.integer(Int64(src.int(-6...12))))
                    } else if name.hasSuffix("trim") && k > 0 && src.bool() {
                        args.append(.text(src.asciiText(maxLength: 3, alphabet: Array("ab 1é"))))
                    } else if name == "char" {
                        args.append(.integer(Int64(src.pick([65, 97, 0xE9, 0x65E5, 0x1F600, -1, 0x110000, 48]))))
                    } else if (name == "instr" || name == "replace") && k > 0 && src.bool() {
                        args.append(.text(src.asciiText(maxLength: 2, alphabet: Array("ab1é"))))
                    } else {
                        args.append(src.value())
                    }
                }
                let sql = "SELECT \(name)(" + (1...arity).map { "?\($0)" }.joined(separator: ", ") + ")"
                let row = oracle.row(sql, args)
                checker.check(row[0], Outcome { try SQLScalarFunctions.call(name, args) }, "\(name)\(args)")
            }
        }
        // Fixed edge cases.
        let edges: [(String, [Value])] = [
            ("abs", [.integer(Int64.min)]), ("substr", [.text("hello"), .integer(Int64.max), .integer(Int64.min)]),
            ("substr", [.text("hello"), .integer(-2_147_483_648), .integer(2_147_483_647)]),
            ("round", [.real(1e300), .integer(Int64.max)]), ("round", [.real(2.5), .integer(-5)]),
            ("round", [.real(-2.5)]), ("round", [.real(0.5), .integer(30)]),
            ("round", [.real(1.23456789), .integer(40)]),
            ("substr", [.blob([1, 2, 3, 4]), .integer(-2), .integer(-3)]),
            ("replace", [.integer(5), .text(""), .null]),
        ]
        for (name, args) in edges {
            let sql = "SELECT \(name)(" + (1...args.count).map { "?\($0)" }.joined(separator: ", ") + ")"
            checker.check(
                oracle.row(sql, args)[0], Outcome { try SQLScalarFunctions.call(name, args) }, "\(name)\(args)")
        }
        checker.finish()
    }

    func testLikeAndGlob() {
        let seed = testSeed()
        var src = ValueSource(seed: seed)
        let oracle = Oracle()
        let checker = Checker("like/glob", seed: seed)
        let patternChars: [Character] = Array("aAbB%_*?[]^-\\é")
        let textChars: [Character] = Array("aAbB%_-]\\é")
        for _ in 0..<(2000 * stressFactor) {
            let s: Value = src.int(0...20) == 0 ? src.value() : .text(src.asciiText(maxLength: 8, alphabet: textChars))
            let p: Value =
                src.int(0...20) == 0 ? src.value() : .text(src.asciiText(maxLength: 6, alphabet: patternChars))
            let esc: Value = src.int(0...10) == 0 ? src.pick([.text("ab"), .text(""), .null]) : .text("\\")
            // Debian's SQLite is built with SQLITE_LIKE_DOESNT_MATCH_BLOBS, hence `blobsNeverMatch: true`.
            let row = oracle.row("SELECT ?1 LIKE ?2, ?1 GLOB ?2", [s, p])
            let escRow = oracle.row("SELECT ?1 LIKE ?2 ESCAPE ?3", [s, p, esc])
            checker.check(
                row[0], Outcome { try SQLPatternMatching.like(s, pattern: p, blobsNeverMatch: true) }, "\(s) LIKE \(p)")
            checker.check(
                row[1], Outcome { try SQLPatternMatching.glob(s, pattern: p, blobsNeverMatch: true) }, "\(s) GLOB \(p)")
            checker.check(
                escRow[0], Outcome { try SQLPatternMatching.like(s, pattern: p, escape: esc, blobsNeverMatch: true) },
                "\(s) LIKE \(p) ESCAPE \(esc)")
        }
        checker.finish()
    }

    func testAggregates() {
        let seed = testSeed()
        var src = ValueSource(seed: seed)
        let oracle = Oracle()
        let checker = Checker("aggregates", seed: seed)
        oracle.execute("CREATE TABLE ag(x, s)")
        let sql =
            "SELECT sum(x), total(x), avg(x), min(x), max(x), count(x), count(*), group_concat(x), group_concat(x, s) FROM ag"
        for _ in 0..<(150 * stressFactor) {
            oracle.execute("DELETE FROM ag")
            let n = src.int(0...12)
            let mode = src.int(0...3)
            var rows: [(Value, Value)] = []
            for _ in 0..<n {
                let v: Value
                switch mode {
                case 0: v = src.bool() ? .integer(Int64(src.int(-1000...1000))) : .null
                case 1: v = src.bool() ? .integer(src.integer()) : .real(src.real())
                default: v = src.value()
                }
                let s: Value = src.pick([.text(";"), .text(""), .null, .integer(7)])
                rows.append((v, s))
                oracle.run("INSERT INTO ag VALUES (?1, ?2)", [v, s])
            }
            let row = oracle.row(sql, [])
            var sum = SQLSumAggregate(.sum)
            var total = SQLSumAggregate(.total)
            var avg = SQLSumAggregate(.avg)
            var mn = SQLMinMaxAggregate(isMax: false)
            var mx = SQLMinMaxAggregate(isMax: true)
            var count = SQLCountAggregate()
            var star = SQLCountStarAggregate()
            var gc = SQLGroupConcatAggregate()
            var gcs = SQLGroupConcatAggregate()
            for (v, s) in rows {
                sum.step(v)
                total.step(v)
                avg.step(v)
                mn.step(v)
                mx.step(v)
                count.step(v)
                star.step()
                gc.step(v)
                gcs.step(v, separator: s)
            }
            let label = "rows \(rows.map { $0.0 })"
            if case .error = row[0] {
                // An erroring aggregate aborts the whole statement; compare just the error.
                checker.check(row[0], Outcome { try sum.finish() }, "sum " + label)
                continue
            }
            checker.check(row[0], Outcome { try sum.finish() }, "sum " + label)
            checker.check(row[1], Outcome { try total.finish() }, "total " + label)
            checker.check(row[2], Outcome { try avg.finish() }, "avg " + label)
            checker.check(row[3], .value(mn.finish()), "min " + label)
            checker.check(row[4], .value(mx.finish()), "max " + label)
            checker.check(row[5], .value(count.finish()), "count " + label)
            checker.check(row[6], .value(star.finish()), "count(*) " + label)
            checker.check(row[7], .value(gc.finish()), "group_concat " + label)
            checker.check(row[8], .value(gcs.finish()), "group_concat(x, s) " + label)
        }
        checker.finish()
    }
}

final class DateTimeDifferentialTests: XCTestCase {
    func testDateTimeFunctions() {
        let seed = testSeed()
        var src = ValueSource(seed: seed)
        let oracle = Oracle()
        let checker = Checker("datetime", seed: seed)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        func randomTime() -> Value {
            let y = src.int(0...12) == 0 ? src.int(0...9999) : src.int(1900...2100)
            let date =
                "\(String(repeating: "0", count: 4 - String(y).count))\(y)-\(two(src.int(1...12)))-\(two(src.int(1...31)))"
            let time = "\(two(src.int(0...24))):\(two(src.int(0...59)))"
            let secs = two(src.int(0...59))
            switch src.int(0...11) {
            case 0: return .text(date)
            case 1: return .text(date + " " + time)
            case 2: return .text(date + " " + time + ":" + secs)
            case 3: return .text(date + "T" + time + ":" + secs + "." + String(src.int(0...999_999)))
            case 4: return .text(time + ":" + secs)
            case 5: return .real(Double(src.int(0...5_373_484)) + Double(src.int(0...999)) / 1000)
            case 6: return .integer(Int64(src.int(-1_000_000_000...2_000_000_000)))
            case 7: return .text(date + " " + time + src.pick(["Z", "+05:30", "-02:00", " +14:00", "x"]))
            case 8: return src.value()
            case 9: return .text(String(src.int(0...3_000_000)) + "." + String(src.int(0...99)))
            case 10: return .text("-" + date)
            default: return .text(date + " " + time + ":" + secs + ".5")
            }
        }
        func randomModifier() -> Value {
            let n = src.int(-400...400)
            let frac = src.bool() ? "" : "." + String(src.int(0...99))
            switch src.int(0...9) {
            case 0: return .text("\(n)\(frac) " + src.pick(["days", "hours", "minutes", "seconds", "day", "hour"]))
            case 1: return .text("\(n >= 0 ? "+" : "")\(n)\(frac) " + src.pick(["months", "years", "month", "year"]))
            case 2: return .text("start of " + src.pick(["month", "year", "day", "week"]))
            case 3: return .text("unixepoch")
            case 4: return .text("weekday \(src.int(0...7))")
            case 5: return .text(src.pick(["+", "-"]) + "\(two(src.int(0...30))):\(two(src.int(0...59)))")
            case 6: return .text(src.pick(["julianday", "auto", "bogus", "START OF MONTH", "+1 DAYS"]))
            case 7: return src.value()
            default: return .text("\(n) days")
            }
        }
        var nonNull = 0
        let formats = ["%d %f %H %j %J %m %M %s %S %w %W %Y %%", "%Y-%m-%dT%H:%M:%f", "x%j%W", "%q", "%", ""]
        for _ in 0..<(700 * stressFactor) {
            var args = [randomTime()]
            for _ in 0..<src.int(0...3) { args.append(randomModifier()) }
            let fmt = Value.text(src.pick(formats))
            let ps = (1...args.count).map { "?\($0 + 1)" }.joined(separator: ", ")
            let sql =
                "SELECT date(\(ps)), time(\(ps)), datetime(\(ps)), julianday(\(ps)), unixepoch(\(ps)), strftime(?1, \(ps))"
            let row = oracle.row(sql, [fmt] + args)
            if case .value(.text) = row[0] { nonNull += 1 }
            checker.check(row[0], .value(SQLDateTime.date(args)), "date\(args)")
            checker.check(row[1], .value(SQLDateTime.time(args)), "time\(args)")
            checker.check(row[2], .value(SQLDateTime.datetime(args)), "datetime\(args)")
            checker.check(row[3], .value(SQLDateTime.julianday(args)), "julianday\(args)")
            checker.check(row[4], .value(SQLDateTime.unixepoch(args)), "unixepoch\(args)")
            checker.check(row[5], .value(SQLDateTime.strftime([fmt] + args)), "strftime\([fmt] + args)")
        }
        // 'localtime' and 'utc' are no-ops in Granite, so they are not diffed (they depend on the host's TZ).
        XCTAssertGreaterThan(nonNull, 700 * stressFactor / 3, "most generated dates should be valid")
        checker.finish()
    }
}

final class AffinityAndErrorTests: XCTestCase {
    func testDeclaredTypeAffinityMatchesSQLite() {
        let oracle = Oracle()
        let types = [
            "INT", "TINYINT", "UNSIGNED BIG INT", "VARCHAR(5)", "NCHAR(3)", "CLOB", "TEXT", "BLOB", "", "REAL",
            "DOUBLE PRECISION", "FLOAT", "NUMERIC", "DECIMAL(10,2)", "BOOLEAN", "DATE", "CHARINT", "FLOATING POINT",
            "STRING", "BLOBTEXT", "TEXTBLOB", "REALBLOB", "DOUB", "interval", "point",
        ]
        let inputs: [Value] = [
            .text("12"), .text("1.5"), .text("1e3"), .real(3.0), .integer(7), .text("x"), .blob([0x31]),
        ]
        for (k, t) in types.enumerated() {
            oracle.execute("CREATE TABLE d\(k)(c \(t))")
            for v in inputs {
                oracle.execute("DELETE FROM d\(k)")
                oracle.run("INSERT INTO d\(k) VALUES (?1)", [v])
                let stored = oracle.row("SELECT c FROM d\(k)", [])[0]
                XCTAssertEqual(stored, .value(SQLAffinity(declaredType: t).apply(to: v)), "\(v) into '\(t)'")
            }
        }
    }

    func testErrorsAndNoTraps() throws {
        XCTAssertThrowsError(try SQLScalarFunctions.abs(.integer(Int64.min))) {
            XCTAssertEqual(($0 as? SQLEvaluationError)?.message, "integer overflow")
        }
        var sum = SQLSumAggregate(.sum)
        sum.step(.integer(Int64.max))
        sum.step(.integer(1))
        XCTAssertThrowsError(try sum.finish())
        XCTAssertEqual(SQLArithmetic.negate(.integer(Int64.min)), .real(9_223_372_036_854_775_808.0))
        XCTAssertEqual(
            SQLArithmetic.evaluate(.divide, .integer(Int64.min), .integer(-1)), .real(9_223_372_036_854_775_808.0))
        XCTAssertEqual(SQLArithmetic.evaluate(.remainder, .integer(5), .integer(0)), .null)
        XCTAssertEqual(SQLRealFormatting.render(1e15), "1.0e+15")
        XCTAssertEqual(SQLRealFormatting.render(-0.0), "0.0")
        XCTAssertEqual(SQLRealFormatting.render(.infinity), "Inf")
        _ = SQLScalarFunctions.substr(.text("abc"), .integer(Int64.min), .integer(Int64.max))
        _ = SQLScalarFunctions.round(.real(.greatestFiniteMagnitude), .integer(Int64.max))
        _ = SQLScalarFunctions.round(.real(-.infinity), nil)
        _ = SQLCast.cast(.real(.nan), to: .integer)
        _ = SQLDateTime.datetime([.real(.infinity), .text("+1e300 days")])
        _ = SQLDateTime.datetime([.text("2000-01-01"), .text("+99999999999999999 months")])
        XCTAssertEqual(try SQLScalarFunctions.call("iif", [.integer(1), .text("a"), .text("b")]), .text("a"))
    }
}
