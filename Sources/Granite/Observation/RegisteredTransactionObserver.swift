/// A ``TransactionObserver`` as its connection holds it: weakly or strongly according to its extent, and
/// disabled while it has stopped observing changes until the next transaction.
final class RegisteredTransactionObserver {
    let extent: Database.TransactionObservationExtent
    /// Whether changes are delivered (false after `stopObservingDatabaseChangesUntilNextTransaction()`).
    var isEnabled = true
    /// Set at the end of a transaction when the observer is to be unregistered (gone, or registered for that
    /// transaction only).
    var isLeaving = false
    /// Whether the observer's ``observes(_:)`` answers may be kept beyond the statement that asked (see
    /// ``ReusableEventKindAnswers``), and the revision that tells when they may have changed.
    let answersAreReusable: Bool
    let answersRevision: EventKindAnswersRevision?
    /// Whether the end of a transaction that told the observer of no change may be kept from it (see
    /// ``SilentWithoutChanges``).
    let isSilentWithoutChanges: Bool
    private weak var weakObserver: (any TransactionObserver)?
    private var strongObserver: (any TransactionObserver)?

    init(_ observer: any TransactionObserver, extent: Database.TransactionObservationExtent) {
        self.extent = extent
        let reusable = observer as? any ReusableEventKindAnswers
        answersAreReusable = reusable != nil
        answersRevision = reusable?.eventKindAnswersRevision
        // One registered for the next transaction only must hear of its end, to be forgotten.
        isSilentWithoutChanges = observer is any SilentWithoutChanges && extent != .nextTransaction
        if extent == .observerLifetime {
            weakObserver = observer
        } else {
            strongObserver = observer
        }
    }

    /// The observer, while it is alive and registered.
    var observer: (any TransactionObserver)? { strongObserver ?? weakObserver }

    /// Whether the observer is gone (it was held weakly).
    var isGone: Bool { strongObserver == nil && weakObserver == nil }

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

    /// Tells the observer of the commit; returns whether it stays registered (false when it is gone, or was
    /// registered for this transaction only). An observer that goes away during the callback is found gone at a
    /// later transaction end: reading the weak reference again for every transaction would cost every write.
    func databaseDidCommit(_ db: Database) -> Bool {
        guard let observer = endingTransaction() else { return false }
        observer.databaseDidCommit(db)
        return extent != .nextTransaction
    }

    /// Tells the observer of the rollback; returns whether it stays registered (see ``databaseDidCommit(_:)``).
    func databaseDidRollback(_ db: Database) -> Bool {
        guard let observer = endingTransaction() else { return false }
        observer.databaseDidRollback(db)
        return extent != .nextTransaction
    }

    /// The observer to tell of the end of the transaction. A `.nextTransaction` observer is released first, so
    /// that it hears of no change its own callback makes.
    private func endingTransaction() -> (any TransactionObserver)? {
        guard let observer else { return nil }
        if extent == .nextTransaction { strongObserver = nil }
        return observer
    }
}
