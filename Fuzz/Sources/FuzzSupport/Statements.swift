// Running SQL inside a fuzzer: every statement either runs or throws; the fuzzer only bounds the work.
@_spi(Fuzzing) import GraniteSQL
import GraniteStorage

/// Limits that keep one fuzz input's work small (libFuzzer reports slow inputs as timeouts).
public enum FuzzLimits {
    /// Statements run per input.
    public static let statements = 16
    /// Result rows read per statement.
    public static let rows = 2_000
    /// Entries a storage cursor visits per direction.
    public static let cursorSteps = 5_000
}

extension SQLConnection {
    /// Steps `prepared` (parameters bound to small integers), reading at most ``FuzzLimits/rows`` rows; returns the
    /// rows read, or nil when the statement did not prepare or threw.
    @discardableResult
    public func runForFuzzing(_ prepared: Result<PreparedStatement, any Error>) -> [[Value]]? {
        do {
            let prepared = try prepared.get()
            if prepared.parameters.count > 0 {
                try prepared.bind((0..<prepared.parameters.count).map { Value.integer(Int64($0)) })
            }
            var rows: [[Value]] = []
            while rows.count < FuzzLimits.rows, let row = try prepared.step() { rows.append(row) }
            return rows
        } catch {
            return nil
        }
    }

    /// Parses `sql` and runs its first ``FuzzLimits/statements`` statements one by one, as
    /// ``runForFuzzing(_:)-(Result<PreparedStatement,any Error>)`` does, under ``FuzzWatchdog``: once the input has
    /// used up its time budget, the running statement is interrupted and no further one starts. Returns the last
    /// statement's rows.
    @discardableResult
    public func runForFuzzing(_ sql: String) -> [[Value]]? {
        var last: [[Value]]?
        var run = 0
        let watchdog = FuzzWatchdog.shared
        watchdog.begin(engine.interruption)
        defer {
            // After `end()` the watchdog sets the flag no more; a request it made must not stop the caller's
            // integrity check.
            watchdog.end()
            engine.interruption.clear()
        }
        do {
            try forEachStatement(in: sql) { prepared in
                last = runForFuzzing(prepared)
                run += 1
                return run < FuzzLimits.statements && !watchdog.isOverdue
            }
        } catch {
            return nil
        }
        return last
    }
}
