import CSQLiteOracle
import GraniteSQL

// Statement outcomes compared with their result codes: nil when the statement runs, else its error text followed by
// its extended result code in brackets (`NOT NULL constraint failed: t.a [1299]`).

/// The outcome of running `sql` on SQLite.
func sqliteOutcomeWithCode(_ oracle: Oracle, _ sql: String) -> String? {
    guard sqlite3_exec(oracle.db, sql, nil, nil, nil) != SQLITE_OK else { return nil }
    return "\(String(cString: sqlite3_errmsg(oracle.db))) [\(sqlite3_extended_errcode(oracle.db))]"
}

/// The outcome of running `sql` on Granite; errors without a result code of their own (syntax and schema errors)
/// report SQLite's generic 1.
func graniteOutcomeWithCode(_ db: SQLConnection, _ sql: String) -> String? {
    do {
        try db.execute(sql)
        return nil
    } catch let error as SQLExecutionError {
        return "\(error.message) [\(error.extendedResultCode)]"
    } catch let error as SQLSyntaxError {
        return "\(error.message) [1]"
    } catch {
        return "\(graniteMessage(error)) [1]"
    }
}
