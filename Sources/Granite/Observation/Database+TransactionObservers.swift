import GraniteSQL

extension Database {
    /// Registers `transactionObserver` for the changes and transactions of this connection, for `extent`. A
    /// read-only connection has no writes to tell of: there, the call does nothing.
    ///
    /// ```swift
    /// try dbQueue.write { db in
    ///     db.add(transactionObserver: playerObserver)
    /// }
    /// ```
    public func add(
        transactionObserver: some TransactionObserver, extent: TransactionObservationExtent = .observerLifetime
    ) {
        guard !configuration.readonly else { return }
        let broker = observationBroker ?? DatabaseObservationBroker(database: self)
        observationBroker = broker
        broker.add(transactionObserver, extent: extent)
        connection.changeObserver = broker
    }

    /// Unregisters `transactionObserver`; it hears of nothing more.
    public func remove(transactionObserver: some TransactionObserver) {
        observationBroker?.remove(transactionObserver)
        uninstallIdleBroker()
    }

    /// Runs `onCommit` if the current transaction (or the next one, outside a transaction) commits, `onRollback`
    /// if it rolls back. Both run on the connection's queue and may use the connection.
    ///
    /// ```swift
    /// try db.inTransaction {
    ///     try player.insert(db)
    ///     db.afterNextTransaction { _ in scheduleUpload(player) }
    ///     return .commit
    /// }
    /// ```
    public func afterNextTransaction(
        onCommit: @escaping @Sendable (Database) -> Void, onRollback: @escaping @Sendable (Database) -> Void = { _ in }
    ) {
        precondition(!isReadOnly, "Read-only transactions are not notified")
        add(
            transactionObserver: TransactionEndHandler(onCommit: onCommit, onRollback: onRollback),
            extent: .nextTransaction)
    }

    /// Tells the observers how the transaction that the latest statement ended ended.
    func deliverTransactionEnd() {
        hasPendingTransactionEnd = false
        observationBroker?.deliverTransactionEnd()
        uninstallIdleBroker()
    }

    /// Stops change reports when no observer is left, so that writes cost nothing more than without observers.
    private func uninstallIdleBroker() {
        guard let broker = observationBroker, !broker.hasObservers, broker.pendingEnd == nil,
            !connection.transactionState.isInsideTransaction
        else { return }
        connection.changeObserver = nil
    }
}

/// The observer of ``Database/afterNextTransaction(onCommit:onRollback:)``: no change interests it.
private final class TransactionEndHandler: ReusableEventKindAnswers {
    let onCommit: @Sendable (Database) -> Void
    let onRollback: @Sendable (Database) -> Void

    init(onCommit: @escaping @Sendable (Database) -> Void, onRollback: @escaping @Sendable (Database) -> Void) {
        self.onCommit = onCommit
        self.onRollback = onRollback
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
    var eventKindAnswersRevision: EventKindAnswersRevision? { nil }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) { onCommit(db) }
    func databaseDidRollback(_ db: Database) { onRollback(db) }
}

extension DatabaseWriter {
    /// Registers `transactionObserver` on the writing connection (see ``Database/add(transactionObserver:extent:)``).
    public func add(
        transactionObserver: some TransactionObserver,
        extent: Database.TransactionObservationExtent = .observerLifetime
    ) {
        writeForObservers { $0.add(transactionObserver: transactionObserver, extent: extent) }
    }

    /// Unregisters `transactionObserver` from the writing connection.
    public func remove(transactionObserver: some TransactionObserver) {
        writeForObservers { $0.remove(transactionObserver: transactionObserver) }
    }

    /// Runs `body` on the writing connection, outside of a transaction; only a reentrant call fails, which is a
    /// programmer error, as in GRDB.
    private func writeForObservers(_ body: (Database) -> Void) {
        do {
            try writeWithoutTransaction(body)
        } catch {
            preconditionFailure("\(error)")
        }
    }
}
