import Foundation

/// Tells, after each transaction that modified a region, that it did: for side effects that follow database
/// changes (unlike ``ValueObservation``, it fetches nothing and may not miss a single transaction).
///
/// ```swift
/// let observation = DatabaseRegionObservation(tracking: Table("player"))
/// let cancellable = observation.start(in: dbQueue) { error in
///     // handle error
/// } onChange: { db in
///     print("Players were changed")
/// }
/// ```
public struct DatabaseRegionObservation: Sendable {
    private let regions: [any DatabaseRegionConvertible]

    /// Observes the union of `regions`.
    public init(tracking regions: any DatabaseRegionConvertible...) {
        self.init(tracking: regions)
    }

    /// Observes the union of `regions`.
    public init(tracking regions: [any DatabaseRegionConvertible]) {
        self.regions = regions
    }

    /// Starts observing `writer`: `onChange` runs on the writer's queue, right after each commit of a transaction
    /// that changed the region, with the connection (which it may use). A commit by another queue or pool of this
    /// process on the same file is told too, once it has returned, from a later access of the writer's queue
    /// (its connection then sees that commit). The region is computed before the
    /// method returns; if that fails, `onError` receives the error and the observation does not start. The
    /// observation stops when the returned cancellable is cancelled or deallocated.
    @preconcurrency
    public func start(
        in writer: any DatabaseWriter, onError: @escaping @Sendable (any Error) -> Void,
        onChange: @escaping @Sendable (Database) -> Void
    ) -> AnyDatabaseCancellable {
        let holder = ObserverHolder()
        let regions = self.regions
        do {
            try writer.unsafeReentrantWrite { db in
                let region = try DatabaseRegion.union(regions, in: db).ignoringInternalTables()
                let observer = RegionChangeObserver(region: region) { db in
                    if !holder.isCancelled { onChange(db) }
                }
                guard holder.keep(observer) else { return }
                db.add(transactionObserver: observer, extent: .observerLifetime)
                // The commits of the other connections of this process to the file (see DatabaseChangeFeed).
                let token = db.changeFeed.subscribe(host: db) { changes in
                    guard !holder.isCancelled, !region.intersection(changes).isEmpty else { return }
                    writer.asyncWriteWithoutTransaction { db in
                        if !holder.isCancelled { onChange(db) }
                    }
                }
                holder.keep(subscription: token, in: db.changeFeed)
            }
        } catch {
            onError(error)
        }
        return AnyDatabaseCancellable { holder.cancel() }
    }
}

/// Holds a region observer until cancellation: the connection holds it weakly, so releasing it ends the
/// observation without a write access.
private final class ObserverHolder: @unchecked Sendable {
    private let lock = NSLock()
    private var observer: RegionChangeObserver?
    private var subscription: (feed: DatabaseChangeFeed, token: UInt64)?
    private var cancelled = false

    var isCancelled: Bool { lock.withLock { cancelled } }

    /// Keeps `observer`, unless the observation was already cancelled.
    func keep(_ observer: RegionChangeObserver) -> Bool {
        lock.withLock {
            if !cancelled { self.observer = observer }
            return !cancelled
        }
    }

    /// Keeps the subscription to the other connections' commits, to end with the observation.
    func keep(subscription token: UInt64, in feed: DatabaseChangeFeed) {
        let kept = lock.withLock { () -> Bool in
            if !cancelled { subscription = (feed, token) }
            return !cancelled
        }
        if !kept { feed.unsubscribe(token) }
    }

    func cancel() {
        let (released, subscription) = lock.withLock {
            cancelled = true
            defer {
                observer = nil
                self.subscription = nil
            }
            return (observer, self.subscription)
        }
        _ = released
        if let subscription { subscription.feed.unsubscribe(subscription.token) }
    }
}

/// Notes whether a transaction changed the region, and tells so after the commit.
private final class RegionChangeObserver: ReusableEventKindAnswers, SilentWithoutChanges {
    let region: DatabaseRegion
    /// None: the region, which alone decides ``observes(eventsOfKind:)``, never changes.
    var eventKindAnswersRevision: EventKindAnswersRevision? { nil }
    let onChange: (Database) -> Void
    private var isChanged = false

    init(region: DatabaseRegion, onChange: @escaping (Database) -> Void) {
        self.region = region
        self.onChange = onChange
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        region.isModified(byEventsOfKind: eventKind)
    }

    func databaseDidChange() {
        isChanged = true
        stopObservingDatabaseChangesUntilNextTransaction()
    }

    func databaseDidChange(with event: DatabaseEvent) {
        guard region.isModified(by: event) else { return }
        isChanged = true
        stopObservingDatabaseChangesUntilNextTransaction()
    }

    func databaseDidCommit(_ db: Database) {
        guard isChanged else { return }
        isChanged = false
        onChange(db)
    }

    func databaseDidRollback(_ db: Database) {
        isChanged = false
    }
}
