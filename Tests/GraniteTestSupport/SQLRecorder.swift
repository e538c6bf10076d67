// The statements a database runs, recorded through its trace hook.

import Foundation
import Granite

/// Records the SQL of every statement a database runs, with its arguments inlined
/// (`TraceEvent.expandedDescription`), through `Database.trace`.
public final class SQLRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var statements: [String] = []

    public init() {}

    /// The statements recorded so far, oldest first (set it to `[]` to start afresh).
    public var sql: [String] {
        get { lock.withLock { statements } }
        set { lock.withLock { statements = newValue } }
    }

    /// The statement recorded last.
    public var last: String? { sql.last }

    /// Starts recording the statements `db` runs (replacing any trace hook it had).
    public func record(_ db: Database) {
        db.trace { [self] event in
            let text = event.expandedDescription
            lock.withLock { statements.append(text) }
        }
    }

    /// Starts recording the statements of `dbQueue`'s connection.
    public func record(_ dbQueue: DatabaseQueue) {
        dbQueue.inDatabase { db in record(db) }
    }
}
