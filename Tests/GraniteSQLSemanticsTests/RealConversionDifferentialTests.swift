import CSQLiteOracle
import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// Text→REAL and REAL→text conversions, run on SQLite and Granite and compared bit for bit: `CAST`, NUMERIC
/// and REAL affinity, arithmetic on text, numeric literals, `quote()`, `||` and TEXT affinity, over random
/// decimal texts, texts next to rounding boundaries and doubles from every binade.
final class RealConversionDifferentialTests: XCTestCase {
    /// Values bound to one statement: the statements are wide so that 200,000 values cost a few thousand steps.
    static let batch = 60

    /// Equal as SQLite's API would return them: same type, and for REAL the same bits (so `-0.0` ≠ `0.0`).
    static func same(_ a: Value, _ b: Value) -> Bool {
        switch (a, b) {
        case (.real(let x), .real(let y)): return x.bitPattern == y.bitPattern
        case (.real, _), (_, .real): return false
        default: return a.type == b.type && a == b
        }
    }

    /// A value as a failure message shows it: reals with their bits.
    static func show(_ v: Value) -> String {
        if case .real(let r) = v { return "REAL \(r) (0x\(String(r.bitPattern, radix: 16)))" }
        return "\(v.type) \(v)"
    }

    /// Runs `sql` with `arguments` on both engines and checks that the single rows match column by column;
    /// `label(column)` names the input a column came from.
    static func compareRow(
        _ sql: String, _ arguments: [Value], oracle: Oracle, granite: SQLConnection, checker: Checker,
        label: (Int) -> String
    ) {
        let expected: [Outcome]
        if arguments.isEmpty {
            // Statements without parameters are each used once: prepare them afresh, and let SQLite fail.
            switch SelectDifferentialTests.sqlite(oracle, sql) {
            case .rows(_, let rows): expected = (rows.first ?? []).map { .value($0) }
            case .failure(let message): expected = [.error(message)]
            }
        } else {
            expected = oracle.row(sql, arguments)
        }
        let actual: [Outcome]
        do {
            let statement = try granite.prepare(sql)
            if !arguments.isEmpty { try statement.bind(arguments) }
            actual = (try statement.all().first ?? []).map { Outcome.value($0) }
        } catch {
            actual = [.error(graniteMessage(error))]
        }
        if case .error = expected.first, let e = expected.first, let a = actual.first {
            checker.check(e, a, sql)
            return
        }
        if case .error = actual.first, let e = expected.first, let a = actual.first {
            checker.check(e, a, sql)
            return
        }
        guard expected.count == actual.count else {
            checker.check(.error("\(expected.count) columns"), .error("\(actual.count) columns"), sql)
            return
        }
        for (column, (e, a)) in zip(expected, actual).enumerated() {
            checker.checks += 1
            let equal: Bool
            switch (e, a) {
            case (.value(let x), .value(let y)): equal = same(x, y)
            default: equal = e == a
            }
            if !equal && checker.failures.count < 25 {
                checker.failures.append("\(label(column)): sqlite=\(describe(e)) granite=\(describe(a))")
            }
        }
    }

    static func describe(_ outcome: Outcome) -> String {
        if case .value(let v) = outcome { return show(v) }
        return outcome.description
    }

    /// Random texts converted by `CAST(… AS REAL)`, `CAST(… AS NUMERIC)` and `+ 0`, three columns per text.
    func testRandomTextsConvertToTheSameRealsAsSQLite() throws {
        let seed = testSeed()
        var generator = RealConversionGenerator(src: ValueSource(seed: seed))
        let checker = Checker("text→real", seed: seed)
        let oracle = Oracle()
        let granite = try SQLConnection(engine: try StorageEngine.inMemory())
        let sql =
            "SELECT "
            + (1...Self.batch).map { "CAST(?\($0) AS REAL), CAST(?\($0) AS NUMERIC), ?\($0) + 0" }
            .joined(separator: ", ")
        let count = 200_000 * stressFactor
        var done = 0
        while done < count {
            let texts = (0..<Self.batch).map { _ in generator.decimalText() }
            Self.compareRow(sql, texts.map { .text($0) }, oracle: oracle, granite: granite, checker: checker) {
                let what = ["CAST(? AS REAL)", "CAST(? AS NUMERIC)", "? + 0"][$0 % 3]
                return "\(what) of '\(texts[$0 / 3])'"
            }
            done += Self.batch
        }
        XCTAssertGreaterThanOrEqual(checker.checks, 3 * count)
        checker.finish()
    }

    /// Random doubles rendered by `CAST(… AS TEXT)`, `quote()` and `|| ''`, three columns per double.
    func testRandomRealsRenderAsSQLiteRendersThem() throws {
        let seed = testSeed()
        var generator = RealConversionGenerator(src: ValueSource(seed: seed))
        let checker = Checker("real→text", seed: seed)
        let oracle = Oracle()
        let granite = try SQLConnection(engine: try StorageEngine.inMemory())
        let sql =
            "SELECT "
            + (1...Self.batch).map { "CAST(?\($0) AS TEXT), quote(?\($0)), ?\($0) || ''" }.joined(separator: ", ")
        let count = 200_000 * stressFactor
        var done = 0
        while done < count {
            let reals = (0..<Self.batch).map { _ in generator.randomDouble() }
            Self.compareRow(sql, reals.map { .real($0) }, oracle: oracle, granite: granite, checker: checker) {
                let what = ["CAST(? AS TEXT)", "quote(?)", "? || ''"][$0 % 3]
                let r = reals[$0 / 3]
                return "\(what) of \(r) (0x\(String(r.bitPattern, radix: 16)))"
            }
            done += Self.batch
        }
        XCTAssertGreaterThanOrEqual(checker.checks, 3 * count)
        checker.finish()
    }

    /// Numeric literals in SQL text (the lexer and parser path), as themselves, negated, quoted and as text.
    func testRandomNumericLiteralsMatchSQLite() throws {
        let seed = testSeed()
        var generator = RealConversionGenerator(src: ValueSource(seed: seed))
        let checker = Checker("literals", seed: seed)
        let oracle = Oracle()
        let granite = try SQLConnection(engine: try StorageEngine.inMemory())
        let count = 20_000 * stressFactor
        let perStatement = 25
        var done = 0
        while done < count {
            let literals = (0..<perStatement).map { _ in generator.literalText() }
            let sql =
                "SELECT "
                + literals.map { "\($0), -(\($0)), quote(\($0)), CAST(\($0) AS TEXT)" }.joined(separator: ", ")
            Self.compareRow(sql, [], oracle: oracle, granite: granite, checker: checker) {
                "\(["", "-", "quote of ", "CAST AS TEXT of "][$0 % 4])\(literals[$0 / 4])"
            }
            done += perStatement
        }
        XCTAssertGreaterThanOrEqual(checker.checks, 4 * count)
        checker.finish()
    }

    /// Column affinity on insert (REAL, NUMERIC, INTEGER, TEXT) and in comparisons with a TEXT column.
    func testAffinityOfStoredTextsAndRealsMatchesSQLite() throws {
        let seed = testSeed()
        var generator = RealConversionGenerator(src: ValueSource(seed: seed))
        let checker = Checker("affinity", seed: seed)
        let oracle = Oracle()
        let granite = try SQLConnection(engine: try StorageEngine.inMemory())
        let schema = "CREATE TABLE t(r REAL, n NUMERIC, i INTEGER, x TEXT)"
        oracle.execute(schema)
        try granite.execute(schema)
        let insert = "INSERT INTO t VALUES (?1, ?1, ?1, ?1)"
        let select = "SELECT r, n, i, x, r = x, n = x, r < x FROM t WHERE rowid = ?1"
        let count = 10_000 * stressFactor
        for row in 1...count {
            let value: Value =
                generator.src.bool() ? .text(generator.decimalText()) : .real(generator.randomDouble())
            oracle.run(insert, [value])
            try granite.execute(insert, arguments: [value])
            Self.compareRow(select, [.integer(Int64(row))], oracle: oracle, granite: granite, checker: checker) {
                "\(["r REAL", "n NUMERIC", "i INTEGER", "x TEXT", "r = x", "n = x", "r < x"][$0]) of \(Self.show(value))"
            }
        }
        checker.finish()
    }
}
