import Foundation

/// How long a ``SharedValueObservation`` keeps its database observation running.
public enum SharedValueObservationExtent: Hashable, Sendable {
    /// As long as the shared observation exists, even without subscribers (until an error ends it).
    case observationLifetime
    /// While it has subscribers: the last one leaving stops the database observation, and a new subscriber
    /// starts a fresh one.
    case whileObserved
}

extension ValueObservation {
    /// One database observation shared by all its subscribers: each subscriber receives the latest value when it
    /// subscribes, then the same fresh values as the others. An error goes to every subscriber and ends the
    /// database observation; the next subscriber starts a new one.
    ///
    /// ```swift
    /// let sharedPlayers = ValueObservation.tracking { try Player.fetchAll($0) }.shared(in: dbQueue)
    /// let cancellable = sharedPlayers.start(onError: { _ in }, onChange: { players in print(players) })
    /// ```
    public func shared(
        in reader: any DatabaseReader,
        scheduling scheduler: some ValueObservationScheduler = .async(onQueue: .main),
        extent: SharedValueObservationExtent = .whileObserved
    ) -> SharedValueObservation<Reducer.Value> {
        SharedValueObservation(scheduler: scheduler, extent: extent) { onError, onChange in
            self.start(in: reader, scheduling: scheduler, onError: onError, onChange: onChange)
        }
    }
}

/// A ``ValueObservation`` shared by several subscribers (see ``ValueObservation/shared(in:scheduling:extent:)``).
public final class SharedValueObservation<Element: Sendable>: @unchecked Sendable {
    private typealias Subscriber = (onError: @Sendable (any Error) -> Void, onChange: @Sendable (Element) -> Void)

    private let lock = NSLock()
    private let scheduler: any ValueObservationScheduler
    private let extent: SharedValueObservationExtent
    private let startObservation: AsyncValueObservation<Element>.Start
    /// The running database observation (guarded by `lock`, as everything below).
    private var databaseObservation: AnyDatabaseCancellable?
    private var subscribers: [Int: Subscriber] = [:]
    private var nextSubscriberID = 0
    /// The latest value of the running database observation.
    private var latestValue: Element?

    init(
        scheduler: some ValueObservationScheduler, extent: SharedValueObservationExtent,
        start: @escaping AsyncValueObservation<Element>.Start
    ) {
        self.scheduler = scheduler
        self.extent = extent
        startObservation = start
    }

    deinit {
        databaseObservation?.cancel()
    }

    /// Subscribes: `onChange` receives the latest value (through the scheduler), then each fresh value;
    /// `onError` the error that ends the database observation. Cancel the returned cancellable (or release it)
    /// to unsubscribe.
    @preconcurrency
    public func start(
        onError: @escaping @Sendable (any Error) -> Void, onChange: @escaping @Sendable (Element) -> Void
    ) -> AnyDatabaseCancellable {
        let (id, latest, mustStart) = lock.withLock {
            nextSubscriberID += 1
            subscribers[nextSubscriberID] = (onError, onChange)
            return (nextSubscriberID, latestValue, databaseObservation == nil)
        }
        if let latest { scheduler.scheduleInitial { onChange(latest) } }
        if mustStart { startDatabaseObservation() }
        return AnyDatabaseCancellable { [weak self] in self?.unsubscribe(id) }
    }

    /// The shared values as an asynchronous sequence, one subscription per iteration.
    public func values(bufferingPolicy: AsyncValueObservation<Element>.BufferingPolicy = .unbounded)
        -> AsyncValueObservation<Element>
    {
        AsyncValueObservation(bufferingPolicy: bufferingPolicy) { [self] onError, onChange in
            start(onError: onError, onChange: onChange)
        }
    }

    private func startDatabaseObservation() {
        let cancellable = startObservation(
            { [weak self] error in self?.broadcast(error) },
            { [weak self] value in self?.broadcast(value) })
        let redundant: AnyDatabaseCancellable? = lock.withLock {
            // An error delivered synchronously, or a concurrent start, leaves this one unused.
            if databaseObservation != nil || subscribers.isEmpty && extent == .whileObserved { return cancellable }
            databaseObservation = cancellable
            return nil
        }
        redundant?.cancel()
    }

    private func broadcast(_ value: Element) {
        let receivers = lock.withLock {
            latestValue = value
            return Array(subscribers.values)
        }
        for receiver in receivers { receiver.onChange(value) }
    }

    private func broadcast(_ error: any Error) {
        let (receivers, ended) = lock.withLock {
            defer {
                subscribers = [:]
                latestValue = nil
                databaseObservation = nil
            }
            return (Array(subscribers.values), databaseObservation)
        }
        ended?.cancel()
        for receiver in receivers { receiver.onError(error) }
    }

    private func unsubscribe(_ id: Int) {
        let ended: AnyDatabaseCancellable? = lock.withLock {
            subscribers[id] = nil
            guard subscribers.isEmpty, extent == .whileObserved else { return nil }
            defer {
                databaseObservation = nil
                latestValue = nil
            }
            return databaseObservation
        }
        ended?.cancel()
    }
}
