import Synchronization

/// A request to stop the running operation of one connection, set from any thread (`sqlite3_interrupt`) and
/// checked by tree cursors whenever they leave a leaf, seek, or start over: cheap enough for every move that
/// reads a new page, frequent enough that a long scan stops within one leaf of rows.
public final class InterruptFlag: Sendable {
    private let requested = Atomic<Bool>(false)

    package init() {}

    /// Asks the running operation to stop: its next check throws ``StorageError/interrupted``.
    public func set() {
        requested.store(true, ordering: .relaxed)
    }

    /// Withdraws the request (done when a statement starts while none runs, as SQLite does).
    public func clear() {
        requested.store(false, ordering: .relaxed)
    }

    /// Whether a stop was requested.
    public var isSet: Bool { requested.load(ordering: .relaxed) }

    /// Throws ``StorageError/interrupted`` when a stop was requested.
    @inline(__always)
    func check() throws {
        if requested.load(ordering: .relaxed) { throw StorageError.interrupted }
    }
}
