import Foundation

/// The running state of a started ``ValueObservation`` on a writer: a transaction observer of the writer's
/// connection that notes whether a transaction changed the observed region, and after its commit fetches a
/// fresh value (concurrently with later writes on a ``DatabasePool``) and delivers it through the scheduler.
///
/// Thread safety: the reducer, the region and the flags are guarded by `lock`. Transaction callbacks run on the
/// writer's queue; concurrent fetches complete on reader queues.
final class ValueObserver<Reducer: ValueReducer>: ReusableEventKindAnswers, SilentWithoutChanges, @unchecked Sendable {
    private let lock = NSLock()
    /// Held while a fetched value is reduced and its delivery scheduled (see `reduceAndDeliver`); taken before `lock`.
    private let deliveryOrder = NSLock()
    private let writer: any DatabaseWriter
    private let scheduler: any ValueObservationScheduler
    private let tracking: ValueObservationTracking
    private let requiresWriteAccess: Bool
    private let events: ValueObservationEvents
    private let fetcher: Reducer.Fetcher
    private let onChange: @Sendable (Reducer.Value) -> Void

    private var reducer: Reducer
    /// The observed region (guarded by `lock`; read on the writer's queue by the transaction callbacks).
    private var region = DatabaseRegion()
    /// Advanced after each change of ``region``, which alone decides ``observes(eventsOfKind:)``.
    let eventKindAnswersRevision: EventKindAnswersRevision? = EventKindAnswersRevision()
    /// Whether the current transaction changed the region (writer's queue only).
    private var isChanged = false
    /// Whether the observation ended (cancelled or failed).
    private var isFinished = false
    /// The number of the latest fetch started, and of the latest one whose value was reduced: a concurrent fetch
    /// that completes after a later one is dropped, since the later one saw more.
    private var fetchesStarted = 0
    private var fetchesReduced = 0
    /// The file's change feed and the subscription to the commits of the other connections to the file.
    private var changeFeedSubscription: (feed: DatabaseChangeFeed, token: UInt64)?
    /// Whether a fetch for another connection's commit is scheduled and has not begun: later commits need no
    /// other, since that fetch will see them.
    private var isOtherCommitFetchPending = false
    /// On a pool, for a constant region: whether a fetch runs, and whether a commit came after it began.
    private var poolFetch = PoolFetchState.idle

    /// The coalesced fetches of an observation of a constant region on a pool (see ``setNeedsPoolFetch(_:)``).
    private enum PoolFetchState {
        case idle, fetching, fetchingAndNeedsFetch
    }

    init(
        writer: any DatabaseWriter, scheduler: any ValueObservationScheduler, observation: ValueObservation<Reducer>,
        onChange: @escaping @Sendable (Reducer.Value) -> Void
    ) {
        self.writer = writer
        self.scheduler = scheduler
        tracking = observation.tracking
        requiresWriteAccess = observation.requiresWriteAccess
        events = observation.events
        let reducer = observation.makeReducer()
        self.reducer = reducer
        fetcher = reducer._makeFetcher()
        self.onChange = onChange
    }

    // MARK: Start and end

    /// On the writer's queue, outside a transaction: fetches the first value, registers for the changes of its
    /// region, and delivers the value (synchronously when the scheduler wants it first).
    func start(_ db: Database) {
        do {
            if case .regions(let regions) = tracking {
                setRegion(try DatabaseRegion.union(regions, in: db).ignoringInternalTables())
            }
            // Before the first fetch, so that the other connections' commits that this fetch does not see are told.
            subscribeToOtherConnections(db)
            let fetched = try fetchOnWriter(db)
            db.add(transactionObserver: self, extent: .observerLifetime)
            guard let value = try reduce(fetched, number: nil) else { return }
            scheduler.scheduleInitial { [self] in deliver(value) }
        } catch {
            fail(error)
        }
    }

    /// Stops the observation: no value is delivered afterwards, and the writer forgets the observer.
    func cancel() {
        guard finish() else { return }
        unsubscribeFromOtherConnections()
        events.didCancel?()
        writer.asyncWriteWithoutTransaction { [self] db in db.remove(transactionObserver: self) }
    }

    /// Ends the observation with `error`, told through the scheduler.
    private func fail(_ error: any Error) {
        guard finish() else { return }
        unsubscribeFromOtherConnections()
        writer.asyncWriteWithoutTransaction { [self] db in db.remove(transactionObserver: self) }
        let didFail = events.didFail
        scheduler.schedule { didFail?(error) }
    }

    /// Marks the observation finished; false when it already was.
    private func finish() -> Bool {
        lock.withLock {
            defer { isFinished = true }
            return !isFinished
        }
    }

    private var finished: Bool { lock.withLock { isFinished } }

    private func deliver(_ value: Reducer.Value) {
        if !finished { onChange(value) }
    }

    // MARK: TransactionObserver

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        lock.withLock { region }.isModified(byEventsOfKind: eventKind)
    }

    func databaseDidChange() {
        isChanged = true
        stopObservingDatabaseChangesUntilNextTransaction()
    }

    func databaseDidChange(with event: DatabaseEvent) {
        guard lock.withLock({ region }).isModified(by: event) else { return }
        isChanged = true
        stopObservingDatabaseChangesUntilNextTransaction()
    }

    func databaseDidCommit(_ db: Database) {
        guard isChanged else { return }
        isChanged = false
        guard !finished else { return }
        events.databaseDidChange?()
        fetchAfterCommit(db)
    }

    func databaseDidRollback(_ db: Database) {
        isChanged = false
    }

    // MARK: Other connections

    /// Subscribes to the commits of the other connections of this process to the file (see ``DatabaseChangeFeed``).
    private func subscribeToOtherConnections(_ db: Database) {
        let feed = db.changeFeed
        let token = feed.subscribe(host: db) { [weak self] changes in self?.otherConnectionDidCommit(changes) }
        let subscribed = lock.withLock { () -> Bool in
            guard !isFinished else { return false }
            changeFeedSubscription = (feed, token)
            return true
        }
        if !subscribed { feed.unsubscribe(token) }
    }

    private func unsubscribeFromOtherConnections() {
        let subscription = lock.withLock {
            defer { changeFeedSubscription = nil }
            return changeFeedSubscription
        }
        if let subscription { subscription.feed.unsubscribe(subscription.token) }
    }

    /// On the committing connection's thread: schedules a fetch on the writer when another connection committed
    /// changes to the observed region, unless one is scheduled already.
    private func otherConnectionDidCommit(_ changes: DatabaseRegion) {
        let schedules = lock.withLock { () -> Bool in
            guard !isFinished, !isOtherCommitFetchPending, !region.intersection(changes).isEmpty else { return false }
            isOtherCommitFetchPending = true
            return true
        }
        guard schedules else { return }
        writer.asyncWriteWithoutTransaction { [self] db in
            lock.withLock { isOtherCommitFetchPending = false }
            guard !finished else { return }
            events.databaseDidChange?()
            fetchAfterCommit(db)
        }
    }

    // MARK: Fetching

    /// Fetches the value the commit that just ended produced: on the writer when the observation requires
    /// write access; on a pool, for a constant region, in a coalesced read that sees this commit or a later one
    /// (``setNeedsPoolFetch(_:)``); else in a read that sees the writer's state now (concurrent with later writes
    /// on a pool).
    private func fetchAfterCommit(_ db: Database) {
        if !requiresWriteAccess, let pool = writer as? DatabasePool, !tracksEachFetch {
            setNeedsPoolFetch(pool)
            return
        }
        let number = lock.withLock {
            fetchesStarted += 1
            return fetchesStarted
        }
        if requiresWriteAccess {
            reduceAndDeliver(Result { try fetchOnWriter(db) }, number: number)
            return
        }
        writer.spawnConcurrentRead { [self] result in
            // A queue runs the read right away on the writer; a pool on a reader, while the writer goes on.
            let concurrent = !(writer is DatabaseQueue)
            reduceAndDeliver(
                result.flatMap { db in Result { try fetchRecordingRegion(db, concurrent: concurrent) } },
                number: number)
        }
    }

    /// Whether the observed region may change from one fetch to the next.
    private var tracksEachFetch: Bool {
        if case .eachFetch = tracking { return true }
        return false
    }

    /// After a commit that changed the constant region observed on `pool`: starts a fetch on a reader unless one
    /// runs, and then has it start another when it ends. The writer does not wait for the read; the fetch sees
    /// the last commit when it begins, so a commit made while a fetch runs is seen by the next, and commits that
    /// come faster than fetches give one value for several (as GRDB's pool observations do).
    private func setNeedsPoolFetch(_ pool: DatabasePool) {
        let starts = lock.withLock { () -> Bool in
            switch poolFetch {
            case .idle:
                poolFetch = .fetching
                return true
            case .fetching, .fetchingAndNeedsFetch:
                poolFetch = .fetchingAndNeedsFetch
                return false
            }
        }
        if starts { startPoolFetch(pool) }
    }

    /// Fetches on one of `pool`'s readers, then fetches again if a commit asked for it meanwhile.
    private func startPoolFetch(_ pool: DatabasePool) {
        let number = lock.withLock {
            fetchesStarted += 1
            return fetchesStarted
        }
        pool.asyncRead { [self] result in
            guard !finished else { return }
            reduceAndDeliver(result.flatMap { db in Result { try fetchRecordingRegion(db) } }, number: number)
            let again = lock.withLock { () -> Bool in
                if case .fetchingAndNeedsFetch = poolFetch {
                    poolFetch = .fetching
                    return true
                }
                poolFetch = .idle
                return false
            }
            if again { startPoolFetch(pool) }
        }
    }

    /// A fetch on the writer's connection: in a write transaction when required, else in a snapshot read.
    private func fetchOnWriter(_ db: Database) throws -> Reducer.Fetcher.Value {
        if requiresWriteAccess {
            return try db.writeInTransaction(nil) { try fetchRecordingRegion(db) }
        }
        return try db.isolatedRead { try fetchRecordingRegion(db) }
    }

    /// Fetches with `db`, noting the region the fetch reads when the observation tracks it.
    private func fetchRecordingRegion(_ db: Database, concurrent: Bool = false) throws -> Reducer.Fetcher.Value {
        let records: Bool
        switch tracking {
        case .eachFetch: records = true
        case .firstFetch: records = lock.withLock { fetchesReduced == 0 && fetchesStarted == 0 }
        case .regions: records = false
        }
        guard records else { return try fetcher.fetch(db) }
        let outer = db.recordedRegion
        db.recordedRegion = DatabaseRegion()
        defer { db.recordedRegion = outer }
        let fetched = try fetcher.fetch(db)
        let recorded = (db.recordedRegion ?? DatabaseRegion()).ignoringInternalTables()
        if recorded != lock.withLock({ region }) {
            setRegion(recorded)
            // Writes committed between this fetch's snapshot and now may have changed the new part of the
            // region unseen: fetch once more after them.
            if concurrent { refetchOnWriter() }
        }
        return fetched
    }

    private func setRegion(_ newRegion: DatabaseRegion) {
        lock.withLock { region = newRegion }
        eventKindAnswersRevision?.advance()
        events.willTrackRegion?(newRegion)
    }

    /// Schedules a fetch from the writer's queue, as after a commit.
    private func refetchOnWriter() {
        writer.asyncWriteWithoutTransaction { [self] db in
            if !finished { fetchAfterCommit(db) }
        }
    }

    /// Reduces the fetched value numbered `number` (nil for the first), unless a later fetch was reduced already.
    private func reduce(_ fetched: Reducer.Fetcher.Value, number: Int?) throws -> Reducer.Value? {
        try lock.withLock {
            if let number {
                guard number > fetchesReduced, !isFinished else { return nil }
                fetchesReduced = number
            }
            return try reducer._value(fetched)
        }
    }

    /// Reduces a fetched value and schedules its delivery. On a pool, fetches end on several reader threads at
    /// once: reducing and scheduling happen under one lock, so that values are scheduled in the order they were
    /// reduced (a later commit's value never overtakes an earlier one's).
    private func reduceAndDeliver(_ result: Result<Reducer.Fetcher.Value, any Error>, number: Int) {
        deliveryOrder.withLock {
            do {
                guard let value = try reduce(result.get(), number: number) else { return }
                scheduler.schedule { [self] in deliver(value) }
            } catch {
                fail(error)
            }
        }
    }
}
