import Foundation

/// A running observation that can be stopped.
public protocol DatabaseCancellable: Sendable {
    /// Stops the observation: no value or change is delivered after the call returns, except one already
    /// being delivered on another thread.
    func cancel()
}

/// A type-erased ``DatabaseCancellable``, which cancels when deallocated: keep it as long as the observation
/// should run.
///
/// ```swift
/// let cancellable = observation.start(in: dbQueue) { error in
///     // handle error
/// } onChange: { players in
///     print("Fresh players: \(players)")
/// }
/// // Later
/// cancellable.cancel()
/// ```
public final class AnyDatabaseCancellable: DatabaseCancellable {
    private let lock = NSLock()
    /// The cancellation to run, nil once it ran.
    nonisolated(unsafe) private var onCancel: (@Sendable () -> Void)?

    /// A cancellable that runs `cancel` once, on the first call to ``cancel()`` or at deallocation.
    public init(cancel: @escaping @Sendable () -> Void) {
        onCancel = cancel
    }

    /// A cancellable that cancels `base`.
    public convenience init(_ base: some DatabaseCancellable) {
        self.init(cancel: { base.cancel() })
    }

    deinit {
        cancel()
    }

    public func cancel() {
        let action = lock.withLock {
            defer { onCancel = nil }
            return onCancel
        }
        action?()
    }
}
