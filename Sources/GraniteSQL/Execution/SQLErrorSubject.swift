/// What an error is about when it names something unknown or misused: the data behind SQLite's message.
///
/// Errors carry it so that what depends on the failure (the "did you mean" suggestion, the rewording of an
/// aggregate misuse in a GROUP BY) is decided from typed data, never from the message text, which is rendered
/// from it.
package enum SQLErrorSubject: Sendable, Equatable {
    /// `no such table: t` (the name as the statement wrote it, qualifier included).
    case noSuchTable(String)
    /// `no such index: i`.
    case noSuchIndex(String)
    /// `no such function: f`.
    case noSuchFunction(String)
    /// `no such collation sequence: c`.
    case noSuchCollation(String)
    /// `no such column: t.c`, the reference as the statement wrote it.
    case noSuchColumn(ColumnReference)
    /// `no such column: "c"`: ALTER TABLE RENAME COLUMN quotes the name it cannot find.
    case noSuchColumnToRename(String)
    /// `table t has no column named c`.
    case noColumnNamed(table: String, column: String)
    /// `misuse of aggregate function f()`, or `misuse of aggregate` without a function name.
    case misuseOfAggregate(function: String?)
    /// `misuse of window function f()`: a window function where none may be (`WHERE`, `GROUP BY`, an aggregate's
    /// argument, outside a `SELECT`).
    case misuseOfWindowFunction(String)
    /// `view v is circularly defined`: the view whose query reads it again.
    case circularView(String)
    /// `no query solution`: the index an `INDEXED BY` names cannot serve the query (a partial index whose
    /// `WHERE` the query's terms do not imply).
    case unusableIndex(String)

    /// SQLite's message for this subject.
    var message: String {
        switch self {
        case .noSuchTable(let name): return "no such table: \(name)"
        case .noSuchIndex(let name): return "no such index: \(name)"
        case .noSuchFunction(let name): return "no such function: \(name)"
        case .noSuchCollation(let name): return "no such collation sequence: \(name)"
        case .noSuchColumn(let reference):
            let display = [reference.schema, reference.table, reference.column].compactMap { $0 }
            return "no such column: \(display.joined(separator: "."))"
        case .noSuchColumnToRename(let name): return "no such column: \"\(name)\""
        case .noColumnNamed(let table, let column): return "table \(table) has no column named \(column)"
        case .misuseOfAggregate(let function?): return "misuse of aggregate function \(function)()"
        case .misuseOfAggregate(nil): return "misuse of aggregate"
        case .misuseOfWindowFunction(let function): return "misuse of window function \(function)()"
        case .circularView(let name): return "view \(name) is circularly defined"
        case .unusableIndex: return "no query solution"
        }
    }

    /// Whether this is an aggregate used where none is allowed.
    var isAggregateMisuse: Bool {
        if case .misuseOfAggregate = self { return true }
        return false
    }
}

extension SQLExecutionError {
    /// A generic SQL error (``Kind/error``) about `subject`, with its message.
    package init(_ subject: SQLErrorSubject) {
        self.init(.error, subject.message)
        self.subject = subject
    }

    /// The same failure raised while compiling an expression, as an execution error: message, subject and
    /// suggestion are kept.
    init(_ error: SQLEvaluationError) {
        self.init(.error, error.message)
        subject = error.subject
        suggestion = error.suggestion
    }
}

extension SQLEvaluationError {
    /// An error about `subject`, with its message.
    package init(_ subject: SQLErrorSubject) {
        self.init(subject.message)
        self.subject = subject
    }
}

extension SchemaError {
    /// An error about `subject`, with its message.
    package init(_ subject: SQLErrorSubject) {
        self.init(subject.message)
        self.subject = subject
    }
}
