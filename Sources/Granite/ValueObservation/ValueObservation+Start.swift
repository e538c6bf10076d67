import Foundation

extension ValueObservation {
    /// Starts observing `reader`: `onChange` receives the first value, then a fresh value after each committed
    /// transaction that changed the observed region, through `scheduler` (those committed by another queue or
    /// pool of this process on the same file included). `onError` receives the error that ends
    /// the observation, if any. The observation stops when the returned cancellable is cancelled or
    /// deallocated. A reader that is not a writer (a ``DatabaseSnapshot``) gives its one value only.
    ///
    /// ```swift
    /// let cancellable = observation.start(in: dbQueue, scheduling: .async(onQueue: .main)) { error in
    ///     // handle error
    /// } onChange: { players in
    ///     print("Fresh players: \(players)")
    /// }
    /// ```
    @preconcurrency
    public func start(
        in reader: any DatabaseReader, scheduling scheduler: some ValueObservationScheduler,
        onError: @escaping @Sendable (any Error) -> Void, onChange: @escaping @Sendable (Reducer.Value) -> Void
    ) -> AnyDatabaseCancellable {
        let observation = with { $0.events.didFail = chainErrors($0.events.didFail, onError) }
        observation.events.willStart?()
        guard let writer = reader as? any DatabaseWriter else {
            return observation.fetchOnce(in: reader, scheduling: scheduler, onChange: onChange)
        }
        let observer = ValueObserver(writer: writer, scheduler: scheduler, observation: observation, onChange: onChange)
        if scheduler.immediateInitialValue() {
            do {
                try writer.unsafeReentrantWrite { db in observer.start(db) }
            } catch {
                scheduler.schedule { observation.events.didFail?(error) }
            }
        } else {
            writer.asyncWriteWithoutTransaction { db in observer.start(db) }
        }
        return AnyDatabaseCancellable { observer.cancel() }
    }

    /// Starts observing `reader` from the main actor: `onChange` and `onError` run on the main actor (see
    /// ``start(in:scheduling:onError:onChange:)``). The default scheduler delivers every value asynchronously;
    /// `.immediate` delivers the first one before this method returns.
    @MainActor @preconcurrency
    public func start(
        in reader: any DatabaseReader,
        scheduling scheduler: some ValueObservationMainActorScheduler = .mainActor,
        onError: @escaping @MainActor (any Error) -> Void,
        onChange: @escaping @MainActor (Reducer.Value) -> Void
    ) -> AnyDatabaseCancellable {
        let anyScheduler: some ValueObservationScheduler = scheduler
        return start(
            in: reader, scheduling: anyScheduler,
            onError: { error in MainActor.assumeIsolated { onError(error) } },
            onChange: { value in MainActor.assumeIsolated { onChange(value) } })
    }

    /// The values of the observation as an asynchronous sequence, which ends with the error that stops the
    /// observation. The observation starts when the iteration does, and stops with it.
    ///
    /// ```swift
    /// for try await players in observation.values(in: dbQueue) {
    ///     print("Fresh players: \(players)")
    /// }
    /// ```
    public func values(
        in reader: any DatabaseReader, scheduling scheduler: some ValueObservationScheduler = .task,
        bufferingPolicy: AsyncValueObservation<Reducer.Value>.BufferingPolicy = .unbounded
    ) -> AsyncValueObservation<Reducer.Value> {
        AsyncValueObservation(bufferingPolicy: bufferingPolicy) { onError, onChange in
            self.start(in: reader, scheduling: scheduler, onError: onError, onChange: onChange)
        }
    }

    /// The one value of a reader that cannot change (no transaction of its own to observe).
    private func fetchOnce(
        in reader: any DatabaseReader, scheduling scheduler: some ValueObservationScheduler,
        onChange: @escaping @Sendable (Reducer.Value) -> Void
    ) -> AnyDatabaseCancellable {
        let state = CancellationFlag()
        let didFail = events.didFail
        let makeReducer = self.makeReducer
        let deliver: @Sendable (Result<Database, any Error>) -> Void = { access in
            do {
                var reducer = makeReducer()
                let db = try access.get()
                guard let value = try reducer._value(reducer._makeFetcher().fetch(db)) else { return }
                scheduler.scheduleInitial { if !state.isSet { onChange(value) } }
            } catch {
                scheduler.schedule { if !state.isSet { didFail?(error) } }
            }
        }
        if scheduler.immediateInitialValue() {
            do {
                try reader.unsafeReentrantRead { db in deliver(.success(db)) }
            } catch {
                deliver(.failure(error))
            }
        } else {
            reader.asyncRead(deliver)
        }
        return AnyDatabaseCancellable { state.set() }
    }
}

/// Both error callbacks, in order.
private func chainErrors(
    _ first: (@Sendable (any Error) -> Void)?, _ second: @escaping @Sendable (any Error) -> Void
) -> @Sendable (any Error) -> Void {
    guard let first else { return second }
    return { error in
        first(error)
        second(error)
    }
}

/// A flag set once, from any thread.
final class CancellationFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
