/// An object notified of the changes and transactions of a database connection.
///
/// Register it with ``Database/add(transactionObserver:extent:)`` (or the same method of a
/// ``DatabaseWriter``). For each statement, the observer tells with ``observes(eventsOfKind:)`` which kinds of
/// changes it wants; it then receives each changed row in ``databaseDidChange(with:)``, and the end of the
/// transaction: ``databaseWillCommit()``, which may refuse the commit by throwing, then
/// ``databaseDidCommit(_:)``, or ``databaseDidRollback(_:)``.
///
/// ```swift
/// final class PlayerChangeCounter: TransactionObserver {
///     var pending = 0
///     var committed = 0
///     func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { eventKind.tableName == "player" }
///     func databaseDidChange(with event: DatabaseEvent) { pending += 1 }
///     func databaseDidCommit(_ db: Database) { committed += pending; pending = 0 }
///     func databaseDidRollback(_ db: Database) { pending = 0 }
/// }
/// ```
///
/// Changes made inside a savepoint are delivered once the savepoint is released, and never if it rolls back.
/// Every callback runs on the connection's queue, inside the write that caused it.
public protocol TransactionObserver: AnyObject {
    /// Whether the observer wants the changes of `eventKind`; when false, the rows a statement changes with this
    /// kind are not delivered to ``databaseDidChange(with:)``. Called once per statement and kind.
    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool

    /// The database changed in a way no event describes (see ``Database/notifyChanges(in:)``), within the kinds
    /// the observer observes.
    func databaseDidChange()

    /// A row was inserted, updated or deleted. The change is pending until the transaction ends.
    func databaseDidChange(with event: DatabaseEvent)

    /// The transaction is about to commit; throwing rolls it back instead, and the statement that would have
    /// committed throws the error.
    func databaseWillCommit() throws

    /// The transaction committed. The observer may use `db`, on the connection's queue.
    func databaseDidCommit(_ db: Database)

    /// The transaction rolled back. The observer may use `db`, on the connection's queue.
    func databaseDidRollback(_ db: Database)
}

extension TransactionObserver {
    /// Accepts the commit.
    public func databaseWillCommit() throws {}

    /// Ignores changes without events.
    public func databaseDidChange() {}

    /// Stops the delivery of changes to this observer until the current transaction ends; the observer is still
    /// told of the commit or rollback. Call it from ``databaseDidChange(with:)`` or ``databaseDidChange()``,
    /// for example once the observer knows it has to react to the transaction, whatever else it changes.
    public func stopObservingDatabaseChangesUntilNextTransaction() {
        guard let broker = DatabaseObservationBroker.current else {
            preconditionFailure(
                "stopObservingDatabaseChangesUntilNextTransaction must be called from the "
                    + "`databaseDidChange()` or `databaseDidChange(with:)` methods")
        }
        broker.disableUntilNextTransaction(self)
    }
}

extension Database {
    /// How long a ``TransactionObserver`` stays registered.
    public enum TransactionObservationExtent: Hashable, Sendable {
        /// Until the observer is deallocated: the connection holds it weakly.
        case observerLifetime
        /// Until the end of the current transaction, or of the next one when none is open: the connection holds
        /// it strongly until then.
        case nextTransaction
        /// Until the connection closes: the connection holds it strongly.
        case databaseLifetime
    }
}
