// A mutex with a condition variable, for state that threads wait on.
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A mutex paired with a condition variable (`pthread_mutex_t` + `pthread_cond_t`).
final class Monitor: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` holding the mutex.
    func withLock<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Waits (the mutex must be held) until signalled or `deadline` passes;
    /// returns false on time-out.
    func wait(until deadline: timespec) -> Bool {
        var d = deadline
        return pthread_cond_timedwait(condition, mutex, &d) == 0
    }

    /// Wakes every waiter.
    func broadcast() { pthread_cond_broadcast(condition) }

    /// The absolute time `seconds` from now (for ``wait(until:)``).
    static func deadline(after seconds: Double) -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let total = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9 + seconds
        var result = timespec()
        result.tv_sec = Int(total)
        result.tv_nsec = Int((total - Double(Int(total))) * 1e9)
        return result
    }
}
