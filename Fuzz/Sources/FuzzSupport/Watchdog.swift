// Stops an input that runs too long. SQL can ask for unbounded work (a recursive CTE without an end under an
// aggregate, a cross join of many tables): SQLite's own fuzzers bound it with a progress handler, Granite's with the
// connection's interrupt flag, which GRDB's `Database.interrupt()` also sets. A statement that stops this way throws
// `interrupted`, a legal outcome, and the database must still pass its integrity check afterwards; a loop that does
// not check the flag shows up as a libFuzzer timeout.
import Dispatch
import GraniteStorage
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Watches one input at a time from a background thread: once the input has run longer than its budget, the
/// watchdog sets the input's interrupt flag, and sets it again on every tick (a statement that starts while none
/// runs withdraws an earlier request, as in SQLite) until the input ends.
public final class FuzzWatchdog: Sendable {
    /// The time one input may run before its statements are interrupted; libFuzzer's own `-timeout` (20 s in
    /// Fuzz/run.sh) then only fires for a loop that never checks the flag.
    public static let budget: Duration = .seconds(2)

    /// The watchdog of this process, started on first use.
    public static let shared: FuzzWatchdog = {
        let watchdog = FuzzWatchdog()
        DispatchQueue(label: "granite.fuzz.watchdog").async { watchdog.run() }
        return watchdog
    }()

    private struct Watched {
        var flag: InterruptFlag
        var deadline: ContinuousClock.Instant
    }

    private let watched = Mutex<Watched?>(nil)

    private init() {}

    /// Starts watching an input that runs on the connection whose stop requests `flag` holds.
    public func begin(_ flag: InterruptFlag) {
        let deadline = ContinuousClock.now.advanced(by: Self.budget)
        watched.withLock { $0 = Watched(flag: flag, deadline: deadline) }
    }

    /// Stops watching the current input.
    public func end() {
        watched.withLock { $0 = nil }
    }

    /// Whether the current input has used up its budget (its later statements should not start).
    public var isOverdue: Bool {
        watched.withLock { current in current.map { ContinuousClock.now >= $0.deadline } ?? false }
    }

    private func run() {
        while true {
            usleep(20_000)
            watched.withLock { current in
                if let current, ContinuousClock.now >= current.deadline { current.flag.set() }
            }
        }
    }
}
