import GraniteSQL

/// A type that binds itself to a parameter of a prepared statement.
///
/// Every ``DatabaseValueConvertible`` type binds its ``DatabaseValueConvertible/databaseValue``, so you
/// rarely implement this protocol yourself: statement arguments (``StatementArguments``) hold such values and
/// bind them when a statement runs.
///
/// ```swift
/// let statement = try db.makeStatement(sql: "INSERT INTO player (name) VALUES (?)")
/// let code = "Arthur".bind(to: statement.sqliteStatement, at: 1)  // SQLITE_OK
/// try statement.execute()
/// ```
public protocol StatementBinding {
    /// Binds the value to the one-based parameter `index` of the statement.
    ///
    /// - parameters:
    ///   - sqliteStatement: The statement, as given by ``Statement/sqliteStatement``.
    ///   - index: The one-based index of the parameter.
    /// - returns: The result code of the binding, as SQLite's `sqlite3_bind_*` functions return it:
    ///   `SQLITE_OK` (0) on success, `SQLITE_RANGE` (25) when the statement has no parameter `index`, and
    ///   `SQLITE_MISUSE` (21) when `sqliteStatement` is not a statement that accepts bindings (a copied row).
    func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt
}

extension DatabaseValue: StatementBinding {
    /// Binds the value (NULL, integer, real, text or blob) to the one-based parameter `index`; see
    /// ``StatementBinding/bind(to:at:)`` for the returned codes.
    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        guard let prepared = sqliteStatement.prepared else { return ResultCode.SQLITE_MISUSE.rawValue }
        do {
            try prepared._withUnsafeGuaranteedRef { try $0.bind(engineValue, at: Int(index)) }
            return ResultCode.SQLITE_OK.rawValue
        } catch {
            // The engine only rejects a binding whose parameter does not exist.
            return ResultCode.SQLITE_RANGE.rawValue
        }
    }
}

extension DatabaseValueConvertible {
    /// Binds ``databaseValue`` to the one-based parameter `index`; see ``StatementBinding/bind(to:at:)``.
    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        databaseValue.bind(to: sqliteStatement, at: index)
    }
}

extension Optional: StatementBinding where Wrapped: StatementBinding {
    /// Binds NULL for nil, and the wrapped value otherwise.
    public func bind(to sqliteStatement: SQLiteStatement, at index: CInt) -> CInt {
        switch self {
        case .none: return DatabaseValue.null.bind(to: sqliteStatement, at: index)
        case .some(let value): return value.bind(to: sqliteStatement, at: index)
        }
    }
}

extension Statement {
    /// The statement as the handle that ``StatementBinding`` values bind to. It stays valid as long as the
    /// statement lives.
    public var sqliteStatement: SQLiteStatement { SQLiteStatement(prepared: prepared) }
}
