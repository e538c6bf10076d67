/// A ``TransactionObserver`` as its connection holds it: weakly or strongly according to its extent, and
/// disabled while it has stopped observing changes until the next transaction.
final class RegisteredTransactionObserver {
    let extent: Database.TransactionObservationExtent
    /// Whether changes are delivered (false after `stopObservingDatabaseChangesUntilNextTransaction()`).
    var isEnabled = true
    private weak var weakObserver: (any TransactionObserver)?
    private var strongObserver: (any TransactionObserver)?

    init(_ observer: any TransactionObserver, extent: Database.TransactionObservationExtent) {
        self.extent = extent
        if extent == .observerLifetime {
            weakObserver = observer
        } else {
            strongObserver = observer
        }
    }

    /// The observer, while it is alive and registered.
    var observer: (any TransactionObserver)? { strongObserver ?? weakObserver }

    /// Whether the observer is still registered: alive, and not a `.nextTransaction` observer whose transaction
    /// ended.
    var isObserving: Bool { observer != nil }

    func wraps(_ other: any TransactionObserver) -> Bool { observer === other }

    func observes(_ eventKind: DatabaseEventKind) -> Bool {
        observer?.observes(eventsOfKind: eventKind) ?? false
    }

    func databaseDidChange(with event: DatabaseEvent) {
        if isEnabled { observer?.databaseDidChange(with: event) }
    }

    func databaseDidChange() {
        if isEnabled { observer?.databaseDidChange() }
    }

    func databaseWillCommit() throws {
        try observer?.databaseWillCommit()
    }

    func databaseDidCommit(_ db: Database) {
        endingTransaction()?.databaseDidCommit(db)
    }

    func databaseDidRollback(_ db: Database) {
        endingTransaction()?.databaseDidRollback(db)
    }

    /// The observer to tell of the end of the transaction. A `.nextTransaction` observer is released first, so
    /// that it hears of no change its own callback makes.
    private func endingTransaction() -> (any TransactionObserver)? {
        guard let observer else { return nil }
        if extent == .nextTransaction { strongObserver = nil }
        return observer
    }
}
