import Dispatch
import Foundation
import GraniteStorage

/// One database connection and the serial queue that guards it: every access runs on the queue, one at a
/// time.
final class SerializedDatabase: @unchecked Sendable {
    /// The connection; only touched on `queue`.
    private let db: Database
    let queue: DispatchQueue
    private let lock = NSLock()
    /// The thread currently running an access (guarded by `lock`), to detect reentrant calls.
    private var activeThread: pthread_t?

    /// The stop requests of the connection, set from any thread by ``interrupt()``.
    private let interruption: InterruptFlag

    init(database: Database, label: String, qos: DispatchQoS) {
        db = database
        queue = DispatchQueue(label: label, qos: qos)
        interruption = database.connection.engine.interruption
    }

    /// Stops the statement the connection runs, from any thread (see ``DatabaseReader/interrupt()``).
    func interrupt() {
        interruption.set()
    }

    /// The connection's description.
    var description: String { db.description }

    /// Whether the current thread is inside an access of this connection.
    var isReentrant: Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let activeThread else { return false }
        return pthread_equal(activeThread, pthread_self()) != 0
    }

    private func enter<T>(_ block: (Database) throws -> T) rethrows -> T {
        lock.lock()
        let previous = activeThread
        activeThread = pthread_self()
        lock.unlock()
        defer {
            lock.lock()
            activeThread = previous
            lock.unlock()
        }
        // The connection's functions and collations are bound once for the whole access, not per statement.
        return try db.connection.withFunctionRegistry { try block(db) }
    }

    static let reentrancyMessage = "Database methods are not reentrant."

    /// Runs `block` on the queue and waits; a reentrant call throws `SQLITE_MISUSE`.
    func sync<T>(_ block: (Database) throws -> T) throws -> T {
        if isReentrant { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: Self.reentrancyMessage) }
        return try queue.sync { try enter(block) }
    }

    /// Runs `block` on the queue and waits; a reentrant call is a programmer error (as in GRDB).
    func syncRethrowing<T>(_ block: (Database) throws -> T) rethrows -> T {
        precondition(!isReentrant, Self.reentrancyMessage)
        return try queue.sync { try enter(block) }
    }

    /// Runs `block` on the queue, or right away when already inside an access of this connection.
    func reentrantSync<T>(_ block: (Database) throws -> T) rethrows -> T {
        if isReentrant { return try block(db) }
        return try queue.sync { try enter(block) }
    }

    /// Runs `block` on the queue without waiting.
    func async(_ block: @escaping @Sendable (Database) -> Void) {
        queue.async { self.enter(block) }
    }

    /// Runs `block` on the queue and awaits its result.
    func execute<T: Sendable>(_ block: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            queue.async {
                continuation.resume(with: Result { try self.enter(block) })
            }
        }
    }
}
