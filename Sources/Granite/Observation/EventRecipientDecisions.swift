import GraniteSQL

/// Which registered observers want each shape of row change, as the observation broker last asked them with
/// `observes(eventsOfKind:)`.
///
/// The answers are kept for the running statement, so that the observers are asked once per statement and kind
/// rather than once per row. When every observer's answers are reusable (see ``ReusableEventKindAnswers``), they
/// are kept from one statement and transaction to the next: a write into a table nobody observes then costs one
/// comparison with the shape of the previous change. They are checked once per statement against the observers'
/// revisions and the schema version, and dropped when the observers change or one of them stops observing until
/// the transaction ends.
struct EventRecipientDecisions {
    private var entries: [(shape: EventShape, recipients: [RegisteredTransactionObserver])] = []
    /// The entry the latest row change used: the next one is most often of the same shape.
    private var lastUsed = 0
    /// Whether the entries may outlive the statement that made them.
    private var outliveStatements = true
    /// The revisions of the observers whose answers may change, and their sum when the entries were checked.
    private var revisions: [EventKindAnswersRevision] = []
    private var revisionsSeen: UInt64 = 0
    /// The schema version when the entries were checked.
    private var schemaVersionSeen = -1
    /// Whether the entries were checked since the running statement began.
    private var isChecked = false
    /// A bound on the entries, beyond which they are all dropped (a transaction that changes many tables).
    private static let capacity = 64

    /// The observers were added, removed or dropped: the entries no longer tell whom to deliver to.
    mutating func observersDidChange(_ observers: [RegisteredTransactionObserver]) {
        outliveStatements = observers.allSatisfy(\.answersAreReusable)
        revisions = observers.compactMap(\.answersRevision)
        forget()
    }

    /// Drops every entry.
    mutating func forget() {
        entries.removeAll(keepingCapacity: true)
        lastUsed = 0
        isChecked = false
    }

    mutating func statementDidEnd() {
        isChecked = false
        if !outliveStatements && !entries.isEmpty { forget() }
    }

    /// The observers that want changes of `shape`: those of the entry of that shape, or else those `ask` finds
    /// (the broker asks each enabled observer), noted in a new entry. `schemaVersion` is read once per statement.
    @inline(__always)
    mutating func recipients(
        for shape: EventShape, schemaVersion: () -> Int, ask: (DatabaseEventKind) -> [RegisteredTransactionObserver]
    ) -> [RegisteredTransactionObserver] {
        if !isChecked { check(schemaVersion: schemaVersion()) }
        if lastUsed < entries.count && entries[lastUsed].shape == shape { return entries[lastUsed].recipients }
        return findOrAsk(shape, ask)
    }

    /// Once per statement: drops the entries when an observer's answers or the schema may have changed since
    /// they were made. The revisions are read before any observer is asked, so that a change made while asking
    /// is seen by the next check.
    private mutating func check(schemaVersion: Int) {
        isChecked = true
        var revision: UInt64 = 0
        for counter in revisions { revision &+= counter.value }
        guard revision != revisionsSeen || schemaVersion != schemaVersionSeen else { return }
        revisionsSeen = revision
        schemaVersionSeen = schemaVersion
        entries.removeAll(keepingCapacity: true)
        lastUsed = 0
    }

    private mutating func findOrAsk(
        _ shape: EventShape, _ ask: (DatabaseEventKind) -> [RegisteredTransactionObserver]
    ) -> [RegisteredTransactionObserver] {
        if let index = entries.firstIndex(where: { $0.shape == shape }) {
            lastUsed = index
            return entries[index].recipients
        }
        if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
        let recipients = ask(shape.eventKind)
        entries.append((shape, recipients))
        lastUsed = entries.count - 1
        return recipients
    }
}

/// What decides which observers want a row change: its kind, table and assigned columns.
struct EventShape: Equatable {
    var kind: SQLRowChange.Kind
    var tableName: String
    var columnNames: [String]?

    init(_ change: SQLRowChange) {
        kind = change.kind
        tableName = change.tableName
        columnNames = change.updatedColumnNames
    }

    var eventKind: DatabaseEventKind {
        switch kind {
        case .insert: return .insert(tableName: tableName)
        case .delete: return .delete(tableName: tableName)
        case .update: return .update(tableName: tableName, columnNames: Set(columnNames ?? []))
        }
    }

    var eventKindCode: DatabaseEvent.Kind {
        switch kind {
        case .insert: return .insert
        case .delete: return .delete
        case .update: return .update
        }
    }
}
