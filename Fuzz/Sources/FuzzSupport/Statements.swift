// Running SQL inside a fuzzer: every statement either runs or throws; the fuzzer only bounds the work.
import GraniteSQL
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
    /// Prepares and steps `statement` (parameters bound to small integers), reading at most ``FuzzLimits/rows``
    /// rows; returns the rows read, or nil when the statement threw.
    @discardableResult
    public func runForFuzzing(_ statement: Statement) -> [[Value]]? {
        do {
            let prepared = try prepare(parsed: statement)
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

    /// Parses and runs `sql` as ``runForFuzzing(_:)-(Statement)`` does, statement by statement.
    @discardableResult
    public func runForFuzzing(_ sql: String) -> [[Value]]? {
        guard let statements = try? Parser.parseScript(sql) else { return nil }
        var last: [[Value]]?
        for statement in statements.prefix(FuzzLimits.statements) { last = runForFuzzing(statement) }
        return last
    }
}
