import Foundation

/// Tracks a value fetched from the database: delivers it once, then again after each committed transaction
/// that changed the part of the database it reads.
///
/// ```swift
/// let observation = ValueObservation.tracking { db in
///     try Player.fetchAll(db)
/// }
/// let cancellable = observation.start(in: dbQueue, scheduling: .async(onQueue: .main)) { error in
///     // handle error
/// } onChange: { players in
///     print("Fresh players: \(players)")
/// }
/// // Or: for try await players in observation.values(in: dbQueue) { ... }
/// ```
///
/// Values may be coalesced: several transactions committed in a row may give one fresh value. A value never
/// shows an uncommitted change, and no committed change is missed: the latest value delivered reflects the
/// latest commit. An error stops the observation.
public struct ValueObservation<Reducer: ValueReducer>: Sendable {
    /// The callbacks of ``handleEvents(willStart:willFetch:willTrackRegion:databaseDidChange:didReceiveValue:didFail:didCancel:)``.
    var events = ValueObservationEvents()

    /// Whether values are fetched in a write transaction on the writer (for fetches that write, such as those
    /// using temporary tables). By default they are fetched in a read transaction, concurrently with writes on a
    /// ``DatabasePool``.
    public var requiresWriteAccess = false

    /// How the observed region is found.
    var tracking: ValueObservationTracking

    /// A fresh reducer for each start.
    var makeReducer: @Sendable () -> Reducer

    /// The observation with its reducer transformed by `transform`.
    func mapReducer<R>(_ transform: @escaping @Sendable (Reducer) -> R) -> ValueObservation<R> {
        let makeReducer = self.makeReducer
        return ValueObservation<R>(
            events: events, requiresWriteAccess: requiresWriteAccess, tracking: tracking,
            makeReducer: { transform(makeReducer()) })
    }

    func with(_ update: (inout Self) -> Void) -> Self {
        var copy = self
        update(&copy)
        return copy
    }
}

/// How a ``ValueObservation`` finds the region it observes.
enum ValueObservationTracking: Sendable {
    /// The region read by each fetch (it may change from one fetch to the next).
    case eachFetch
    /// The region read by the first fetch.
    case firstFetch
    /// The given regions.
    case regions([any DatabaseRegionConvertible])
}

/// The callbacks of a ``ValueObservation`` (see ``ValueObservation/handleEvents(willStart:willFetch:willTrackRegion:databaseDidChange:didReceiveValue:didFail:didCancel:)``).
struct ValueObservationEvents: Sendable {
    var willStart: (@Sendable () -> Void)?
    var willTrackRegion: (@Sendable (DatabaseRegion) -> Void)?
    var databaseDidChange: (@Sendable () -> Void)?
    var didFail: (@Sendable (any Error) -> Void)?
    var didCancel: (@Sendable () -> Void)?
}

/// Both callbacks, in order, or the one given.
private func chain<each T>(
    _ first: (@Sendable (repeat each T) -> Void)?, _ second: (@Sendable (repeat each T) -> Void)?
) -> (@Sendable (repeat each T) -> Void)? {
    guard let first else { return second }
    guard let second else { return first }
    return { (value: repeat each T) in
        first(repeat each value)
        second(repeat each value)
    }
}

extension ValueObservation {
    /// Observes the value `fetch` returns, tracking the region it reads, which may change from one fetch to the
    /// next (`if` branches, a request depending on a previous fetch).
    @preconcurrency
    public static func tracking<Value>(_ fetch: @escaping @Sendable (Database) throws -> Value) -> Self
    where Reducer == ValueReducers.Fetch<Value> {
        ValueObservation(tracking: .eachFetch, makeReducer: { ValueReducers.Fetch(fetch) })
    }

    /// Observes the value `fetch` returns, tracking the region its first fetch reads: more efficient than
    /// ``tracking(_:)`` when the region does not change.
    @preconcurrency
    public static func trackingConstantRegion<Value>(_ fetch: @escaping @Sendable (Database) throws -> Value)
        -> Self
    where Reducer == ValueReducers.Fetch<Value> {
        ValueObservation(tracking: .firstFetch, makeReducer: { ValueReducers.Fetch(fetch) })
    }

    /// Observes the value `fetch` returns, fetched again after each transaction that changes one of the regions.
    ///
    /// ```swift
    /// let observation = ValueObservation.tracking(region: Table("player"), fetch: { db in
    ///     try Player.fetchCount(db)
    /// })
    /// ```
    @preconcurrency
    public static func tracking<Value>(
        region: any DatabaseRegionConvertible, _ otherRegions: any DatabaseRegionConvertible...,
        fetch: @escaping @Sendable (Database) throws -> Value
    ) -> Self where Reducer == ValueReducers.Fetch<Value> {
        tracking(regions: [region] + otherRegions, fetch: fetch)
    }

    /// Observes the value `fetch` returns, fetched again after each transaction that changes one of `regions`.
    @preconcurrency
    public static func tracking<Value>(
        regions: [any DatabaseRegionConvertible], fetch: @escaping @Sendable (Database) throws -> Value
    ) -> Self where Reducer == ValueReducers.Fetch<Value> {
        ValueObservation(tracking: .regions(regions), makeReducer: { ValueReducers.Fetch(fetch) })
    }
}

extension ValueObservation {
    /// Delivers the values transformed by `transform`; an error it throws ends the observation.
    @preconcurrency
    public func map<T>(_ transform: @escaping @Sendable (Reducer.Value) throws -> T)
        -> ValueObservation<ValueReducers.Map<Reducer, T>>
    {
        mapReducer { ValueReducers.Map(base: $0, transform: transform) }
    }

    /// Skips the values that `predicate` says duplicate the previous value delivered.
    public func removeDuplicates(by predicate: sending @escaping (Reducer.Value, Reducer.Value) -> Bool)
        -> ValueObservation<ValueReducers.RemoveDuplicates<Reducer>>
    {
        nonisolated(unsafe) let predicate = predicate
        return mapReducer { ValueReducers.RemoveDuplicates(base: $0, isDuplicate: predicate) }
    }

    /// Performs side effects at each step of the observation, for debugging: start, fetch, tracked region,
    /// database change, value, error, cancellation.
    public func handleEvents(
        willStart: (@Sendable () -> Void)? = nil,
        willFetch: (@Sendable () -> Void)? = nil,
        willTrackRegion: (@Sendable (DatabaseRegion) -> Void)? = nil,
        databaseDidChange: (@Sendable () -> Void)? = nil,
        didReceiveValue: (@Sendable (Reducer.Value) -> Void)? = nil,
        didFail: (@Sendable (any Error) -> Void)? = nil,
        didCancel: (@Sendable () -> Void)? = nil
    ) -> ValueObservation<ValueReducers.Trace<Reducer>> {
        mapReducer {
            ValueReducers.Trace(base: $0, willFetch: willFetch ?? {}, didReceiveValue: didReceiveValue ?? { _ in })
        }
        .with {
            $0.events.willStart = chain($0.events.willStart, willStart)
            $0.events.willTrackRegion = chain($0.events.willTrackRegion, willTrackRegion)
            $0.events.databaseDidChange = chain($0.events.databaseDidChange, databaseDidChange)
            $0.events.didFail = chain($0.events.didFail, didFail)
            $0.events.didCancel = chain($0.events.didCancel, didCancel)
        }
    }

    /// Prints each step of the observation, prefixed by `prefix`, to `stream` (standard output by default).
    ///
    /// ```swift
    /// ValueObservation.tracking { try Player.fetchAll($0) }.print("players")
    /// // players: start
    /// // players: fetch
    /// // players: tracked region: player(*)
    /// // players: value: [...]
    /// ```
    public func print(_ prefix: String = "", to stream: sending (any TextOutputStream)? = nil)
        -> ValueObservation<ValueReducers.Trace<Reducer>>
    {
        let output = LockedTextStream(stream)
        let prefix = prefix.isEmpty ? "" : "\(prefix): "
        return handleEvents(
            willStart: { output.write("\(prefix)start") },
            willFetch: { output.write("\(prefix)fetch") },
            willTrackRegion: { output.write("\(prefix)tracked region: \($0)") },
            databaseDidChange: { output.write("\(prefix)database did change") },
            didReceiveValue: { output.write("\(prefix)value: \($0)") },
            didFail: { output.write("\(prefix)failure: \($0)") },
            didCancel: { output.write("\(prefix)cancel") })
    }
}

extension ValueObservation where Reducer.Value: Equatable {
    /// Skips the values equal to the previous value delivered.
    public func removeDuplicates() -> ValueObservation<ValueReducers.RemoveDuplicates<Reducer>> {
        mapReducer { ValueReducers.RemoveDuplicates(base: $0, isDuplicate: ==) }
    }
}

/// A text stream written from any thread, one line per write; standard output when none is given.
private final class LockedTextStream: @unchecked Sendable {
    private let lock = NSLock()
    private var stream: (any TextOutputStream)?

    init(_ stream: sending (any TextOutputStream)?) {
        self.stream = stream
    }

    func write(_ line: String) {
        lock.withLock {
            if stream != nil {
                stream!.write(line + "\n")
            } else {
                Swift.print(line)
            }
        }
    }
}
