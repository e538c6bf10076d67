import CSQLiteOracle
import GraniteSQL
import GraniteStorage

/// Rounds of a random differential workload against SQLite: each round makes a fresh oracle and a fresh in-memory
/// Granite connection, creates `schema` on both, runs the same random writes on both (none in the first round, so
/// that it queries empty tables), then compares the rows of random queries, in any order.
struct RandomQueryRounds {
    let schema: [String]
    let rounds: Int
    var queriesPerRound = 200
    /// The failures at which a run stops early.
    var failureLimit = 10

    /// What a run compared, and the queries whose rows differed.
    struct Outcome {
        var rowsCompared = 0
        var failures: [String] = []
    }

    /// Runs the rounds: `writeCount` says how many writes a round makes, `write` makes one (SQL and arguments),
    /// `query` makes one query, and `inspect` sees each query with the Granite connection before it runs.
    func run(
        writeCount: () -> Int, write: () -> (sql: String, args: [Value]), query: () -> String,
        inspect: (SQLConnection, String) throws -> Void = { _, _ in }
    ) throws -> Outcome {
        var outcome = Outcome()
        for round in 0..<rounds {
            let oracle = Oracle()
            let db = try SQLConnection(engine: try StorageEngine.inMemory())
            for sql in schema {
                oracle.execute(sql)
                try db.execute(sql)
            }
            for _ in 0..<(round == 0 ? 0 : writeCount()) {
                let (sql, args) = write()
                _ = oracle.all(sql, args)
                _ = StatementOutcome.granite(db, sql, args)
            }
            for _ in 0..<queriesPerRound {
                let sql = query()
                try inspect(db, sql)
                let expected = oracle.all(sql, []).sortedRows
                let actual = StatementOutcome.granite(db, sql, []).sortedRows
                outcome.rowsCompared += expected.rowCount
                if let failure = StatementOutcome.mismatch(sqlite: expected, granite: actual, what: sql) {
                    outcome.failures.append(failure)
                }
                if outcome.failures.count >= failureLimit { return outcome }
            }
        }
        return outcome
    }
}

extension ValueSource {
    /// A join key: mostly a small integer, sometimes NULL, an equal REAL or numeric TEXT, and with `oddTexts`
    /// sometimes TEXT that only looks like a number (`'1.0'`, `' 2'`) or is none.
    mutating func joinKey(oddTexts: Bool) -> Value {
        switch int(0...9) {
        case 0: return .null
        case 1: return .real(Double(int(1...8)))
        case 2: return .text(String(int(1...8)))
        case 3 where oddTexts: return .text(pick(["a", "1.0", " 2"]))
        default: return .integer(Int64(int(1...8)))
        }
    }

    /// A short TEXT from a few values, or NULL one time in six.
    mutating func smallText() -> Value { int(0...5) == 0 ? .null : .text(pick(["a", "b", "c", "a"])) }
}
