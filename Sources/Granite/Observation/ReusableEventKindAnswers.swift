import Synchronization

/// A transaction observer of this module whose ``TransactionObserver/observes(eventsOfKind:)`` answers stay the
/// same until its ``eventKindAnswersRevision`` moves, so that the observation broker may keep them from one
/// statement and transaction to the next instead of asking again for every statement.
///
/// An embedder's observer never conforms: its answers may depend on anything, so it is asked once per statement
/// and kind, as ``TransactionObserver/observes(eventsOfKind:)`` documents. Conforming observers are those whose
/// answers read only their observed region: with one of them watching table A, a write into table B costs one
/// comparison with a remembered answer instead of a region lookup.
protocol ReusableEventKindAnswers: TransactionObserver {
    /// Moves each time the answers may have changed (the observed region was replaced); nil when they never
    /// change.
    var eventKindAnswersRevision: EventKindAnswersRevision? { get }
}

/// A counter an observer advances when its ``TransactionObserver/observes(eventsOfKind:)`` answers may have
/// changed. Shared between the observer, which advances it from any thread (a concurrent fetch on a pool's
/// reader records a new region), and the broker, which reads it on the writer's thread before relying on the
/// answers it kept.
final class EventKindAnswersRevision: Sendable {
    private let counter = Atomic<UInt64>(0)

    var value: UInt64 { counter.load(ordering: .acquiring) }

    /// Call after the state the answers read has changed.
    func advance() {
        counter.wrappingAdd(1, ordering: .releasing)
    }
}
