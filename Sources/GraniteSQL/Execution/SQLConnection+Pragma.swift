import GraniteStorage

extension SQLConnection {
    /// Runs a `PRAGMA` statement, returning its result rows.
    func pragma(_ pragma: PragmaStatement, parameters: BoundParameters) throws -> (columns: [String], rows: [[Value]]) {
        throw SQLExecutionError.unsupported("PRAGMA \(pragma.name.name)")
    }
}
