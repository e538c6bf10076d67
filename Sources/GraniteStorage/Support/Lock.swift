// A small mutual-exclusion lock for the storage layer (no Foundation, no Synchronization).
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A non-recursive mutual-exclusion lock built on `pthread_mutex_t`.
///
/// ```swift
/// let lock = Lock()
/// let value = lock.withLock { counter += 1; return counter }
/// ```
package final class Lock: @unchecked Sendable {
    /// The mutex lives at a stable heap address, as pthreads requires.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// Creates an unlocked lock.
    package init() {
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` while holding the lock and returns its result.
    package func withLock<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
