import Foundation
import GraniteSQL

/// Delivers the change events of one connection to its ``TransactionObserver``s.
///
/// The broker is the connection's ``SQLChangeObserver`` while at least one transaction observer is registered,
/// and none otherwise, so that a connection nobody observes reports nothing. Row changes go right away to the
/// observers that observe their kind; inside savepoints they wait until the outermost savepoint is released
/// (or the transaction commits), and those a `ROLLBACK TO` or a failed statement undoes are dropped. The end of a
/// transaction is told once the statement that ended it has returned (see ``deliverTransactionEnd()``), so that
/// observers may use the connection.
///
/// Its state is used on the connection's thread only, one access at a time (observers are called between
/// accesses, never inside one): the properties every write reads are `@exclusivity(unchecked)`, since the dynamic
/// checks cost about 1,200 instructions per transaction of a connection with an observation.
final class DatabaseObservationBroker: SQLChangeObserver {
    private unowned let database: Database
    /// The registered observers, in registration order.
    @exclusivity(unchecked) private(set) var observers: [RegisteredTransactionObserver] = []

    /// The observers that observe each shape of row change seen lately: `observes(eventsOfKind:)` is asked once
    /// per statement and kind, not once per row. When every observer's answers are reusable (see
    /// ``ReusableEventKindAnswers``), the decisions outlive the statement, so that a row of a table nobody
    /// observes costs one comparison; they are dropped when the observers, their answers or the schema change.
    @exclusivity(unchecked) private var decisions = EventRecipientDecisions()

    /// The open savepoints, each with the position in ``buffer`` of its first event.
    @exclusivity(unchecked) private var savepoints: [(name: String, bufferStart: Int)] = []
    /// The events made inside savepoints, with the observers to deliver them to.
    @exclusivity(unchecked)
    private var buffer: [(event: DatabaseEvent, recipients: [RegisteredTransactionObserver])] = []
    /// The position in ``buffer`` of the running statement's first event.
    @exclusivity(unchecked) private var statementBufferStart = 0

    /// How a transaction ended, to tell observers after the statement that ended it.
    enum TransactionEnd { case commit, rollback }
    /// The transaction end not told yet.
    @exclusivity(unchecked) private(set) var pendingEnd: TransactionEnd?

    /// Whether every registered observer lets a transaction that told it of no change end unheard (see
    /// ``SilentWithoutChanges``).
    @exclusivity(unchecked) private var allSilentWithoutChanges = false
    /// Whether the running transaction told (or buffered for) an observer a change: its end must then be told.
    @exclusivity(unchecked) private var toldOfChanges = false
    /// The transactions that ended unheard, which tell when to look for observers that went away (see
    /// ``endsUnheard()``).
    @exclusivity(unchecked) private var unheardEnds: UInt = 0

    init(database: Database) {
        self.database = database
    }

    // MARK: Registration

    var hasObservers: Bool { !observers.isEmpty }

    func add(_ observer: some TransactionObserver, extent: Database.TransactionObservationExtent) {
        observers.append(RegisteredTransactionObserver(observer, extent: extent))
        observersDidChange()
    }

    func remove(_ observer: some TransactionObserver) {
        if let index = observers.firstIndex(where: { $0.wraps(observer) }) { observers.remove(at: index) }
        observersDidChange()
    }

    private func observersDidChange() {
        decisions.observersDidChange(observers)
        allSilentWithoutChanges = observers.allSatisfy(\.isSilentWithoutChanges)
    }

    func disableUntilNextTransaction(_ observer: some TransactionObserver) {
        guard let registered = observers.first(where: { $0.wraps(observer) }) else { return }
        registered.isEnabled = false
        hasDisabledObservers = true
        decisions.forget()
    }

    /// Whether an observer stopped observing changes until the transaction ends.
    @exclusivity(unchecked) private var hasDisabledObservers = false

    /// Tells the observers of `eventKinds` that the database changed in a way no event describes.
    func notifyChanges(withEventsOfKinds eventKinds: [DatabaseEventKind]) {
        toldOfChanges = true
        Self.withCurrent(self) {
            for registered in observers where registered.isEnabled {
                if eventKinds.contains(where: registered.observes) { registered.databaseDidChange() }
            }
        }
    }

    // MARK: SQLChangeObserver

    func rowDidChange(_ change: SQLRowChange) {
        let shape = EventShape(change)
        let recipients = decisions.recipients(
            for: shape, schemaVersion: { database.connection.catalog.schemaVersion },
            ask: { kind in observers.filter { $0.isEnabled && $0.observes(kind) } })
        guard !recipients.isEmpty else { return }
        toldOfChanges = true
        let event = DatabaseEvent(
            kind: shape.eventKindCode, databaseName: change.isTemporary ? "temp" : "main", tableName: change.tableName,
            rowID: change.rowid)
        if savepoints.isEmpty {
            Self.withCurrent(self) {
                for registered in recipients { registered.databaseDidChange(with: event) }
            }
        } else {
            buffer.append((event, recipients))
        }
    }

    func statementDidEnd(_ result: SQLStatementResult) {
        decisions.statementDidEnd()
        if result == .changesUndone && buffer.count > statementBufferStart {
            buffer.removeSubrange(statementBufferStart...)
        }
        statementBufferStart = buffer.count
    }

    func savepointDidBegin(named name: String) {
        savepoints.append((name, buffer.count))
        statementBufferStart = buffer.count
    }

    func savepointDidRelease(named name: String) {
        if let index = savepointIndex(name) { savepoints.removeSubrange(index...) }
        if savepoints.isEmpty { deliverBufferedEvents() }
        statementBufferStart = buffer.count
    }

    func savepointDidRollback(named name: String) {
        if let index = savepointIndex(name) {
            buffer.removeSubrange(savepoints[index].bufferStart...)
            savepoints.removeSubrange((index + 1)...)
        }
        statementBufferStart = buffer.count
    }

    func transactionWillCommit() throws {
        // Whether the end will be told is decided by transactionDidEnd; an observer that went away has nothing to
        // say before the commit, so the cheap part of the test is enough here.
        guard !mayEndUnheard else { return }
        deliverBufferedEvents()
        for registered in observers { try registered.databaseWillCommit() }
    }

    func transactionDidCommit() { transactionDidEnd(.commit) }

    func transactionDidRollback() { transactionDidEnd(.rollback) }

    // MARK: Transaction ends

    private func transactionDidEnd(_ end: TransactionEnd) {
        if !savepoints.isEmpty { savepoints.removeAll() }
        if !buffer.isEmpty { buffer.removeAll() }
        statementBufferStart = 0
        if endsUnheard() { return }
        toldOfChanges = false
        pendingEnd = end
        database.hasPendingTransactionEnd = true
    }

    /// Whether the running transaction told none of the observers of a change, and each lets such a transaction
    /// end unheard. (Nothing is buffered then, and no observer is disabled.)
    private var mayEndUnheard: Bool {
        allSilentWithoutChanges && !toldOfChanges && !observers.isEmpty && !hasDisabledObservers
    }

    /// Whether the transaction ends without a word to the observers (see ``mayEndUnheard``). None is to be
    /// forgotten then, except one held weakly that went away (a released region observation): every sixteenth
    /// such end looks for one (reading each weak reference costs every write), and makes the end be told as usual
    /// when it finds one, so that it is forgotten.
    private func endsUnheard() -> Bool {
        guard mayEndUnheard else { return false }
        unheardEnds &+= 1
        return unheardEnds % 16 != 0 || !observers.contains(where: \.isGone)
    }

    /// Tells the observers how the transaction ended, then forgets those whose registration ended with it and
    /// enables the others again.
    func deliverTransactionEnd() {
        guard let end = pendingEnd else { return }
        pendingEnd = nil
        var hasLeavingObservers = false
        for registered in observers {
            let stays: Bool
            switch end {
            case .commit: stays = registered.databaseDidCommit(database)
            case .rollback: stays = registered.databaseDidRollback(database)
            }
            if !stays {
                registered.isLeaving = true
                hasLeavingObservers = true
            }
        }
        if hasLeavingObservers {
            observers.removeAll { $0.isLeaving }
            observersDidChange()
        }
        if hasDisabledObservers {
            hasDisabledObservers = false
            for registered in observers { registered.isEnabled = true }
            decisions.forget()
        }
    }

    private func deliverBufferedEvents() {
        guard !buffer.isEmpty else { return }
        let events = buffer
        buffer.removeAll()
        statementBufferStart = 0
        Self.withCurrent(self) {
            for (event, recipients) in events {
                for registered in recipients { registered.databaseDidChange(with: event) }
            }
        }
    }

    /// The innermost open savepoint named `name` (names compare as SQLite's, ASCII case-insensitively).
    private func savepointIndex(_ name: String) -> Int? {
        let key = Self.foldedASCII(name)
        return savepoints.lastIndex { Self.foldedASCII($0.name) == key }
    }

    private static func foldedASCII(_ name: String) -> [UInt8] {
        name.utf8.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }
    }

    // MARK: Current broker

    private static let currentKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// The broker delivering changes on this thread, for
    /// ``TransactionObserver/stopObservingDatabaseChangesUntilNextTransaction()``.
    static var current: DatabaseObservationBroker? {
        pthread_getspecific(currentKey).map {
            Unmanaged<DatabaseObservationBroker>.fromOpaque($0).takeUnretainedValue()
        }
    }

    private static func withCurrent(_ broker: DatabaseObservationBroker, _ body: () -> Void) {
        let previous = pthread_getspecific(currentKey)
        pthread_setspecific(currentKey, Unmanaged.passUnretained(broker).toOpaque())
        defer { pthread_setspecific(currentKey, previous) }
        body()
    }
}
