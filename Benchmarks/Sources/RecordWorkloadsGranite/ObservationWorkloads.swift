// The observation workloads, compiled twice from this one file: into RecordWorkloadsGranite (`import Granite`)
// and, through a symbolic link, into RecordWorkloadsGRDB (`import GRDB`).
import Dispatch
import Foundation

#if GRANITE
    import Granite
#else
    import GRDB
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What one observation workload measured.
public struct ObservationResult: Sendable {
    /// From the first write's start to the observation's receipt of the last write's value (or to the last write's
    /// return when the observation watches another table), in nanoseconds.
    public var totalNanoseconds: UInt64
    /// For each value the observation received after a write: the time from that write's commit returning to the
    /// value's arrival in `onChange`, in nanoseconds (0 when the value arrived before the write returned).
    public var latencies: [UInt64]
    /// The number of `player` rows at the end, and the last value the observation received.
    public var rowCount: Int
    public var lastObservedValue: Int
    /// The number of values `onChange` received, the first one included.
    public var notifications: Int

    public init(
        totalNanoseconds: UInt64, latencies: [UInt64], rowCount: Int, lastObservedValue: Int, notifications: Int
    ) {
        self.totalNanoseconds = totalNanoseconds
        self.latencies = latencies
        self.rowCount = rowCount
        self.lastObservedValue = lastObservedValue
        self.notifications = notifications
    }
}

/// The observation workloads: one-row write transactions into `player`, observed by a `ValueObservation` of
/// `player`, of the unrelated table `team`, or by none. The observation delivers its values on a private serial
/// dispatch queue (`.async(onQueue:)`), the same on both engines.
public final class ObservationHarness {
    /// What the observation tracks.
    public enum Observed: Sendable {
        /// `SELECT id FROM player ORDER BY id DESC LIMIT 1`: every write changes it, and it reads one row.
        case writtenTable
        /// `SELECT count(*) FROM team`: no write changes it.
        case unrelatedTable
        /// No observation at all: the cost of the writes alone.
        case nothing
    }

    private let writer: any DatabaseWriter
    private let closeWriter: () throws -> Void

    /// Creates the database at `path` (WAL, synchronous NORMAL): a `DatabasePool` when `pool` is true, else a
    /// `DatabaseQueue`, with empty `player` and `team` tables.
    public init(path: String, pool: Bool) throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        if pool {
            let dbPool = try DatabasePool(path: path, configuration: configuration)
            writer = dbPool
            closeWriter = { try dbPool.close() }
        } else {
            configuration.journalMode = .wal
            let dbQueue = try DatabaseQueue(path: path, configuration: configuration)
            writer = dbQueue
            closeWriter = { try dbQueue.close() }
        }
        try writer.write { db in
            try db.execute(sql: "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL)")
            try db.execute(sql: "CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
            try db.execute(sql: "INSERT INTO team(id, name) VALUES (1, 'red'), (2, 'blue')")
        }
    }

    /// Writes `count` one-row transactions into `player` while `observed` is observed; times them as
    /// ``ObservationResult`` describes. The observation starts (and delivers its first value) before the timing.
    public func run(writes count: Int, observing observed: Observed) throws -> ObservationResult {
        // One function per case, so that a profile tells them apart.
        switch observed {
        case .writtenTable: return try runObservingWrittenTable(writes: count)
        case .unrelatedTable: return try runObservingUnrelatedTable(writes: count)
        case .nothing: return try runUnobserved(writes: count)
        }
    }

    @inline(never)
    private func runObservingWrittenTable(writes count: Int) throws -> ObservationResult {
        try timedWrites(count, observing: .writtenTable)
    }

    @inline(never)
    private func runObservingUnrelatedTable(writes count: Int) throws -> ObservationResult {
        try timedWrites(count, observing: .unrelatedTable)
    }

    @inline(never)
    private func runUnobserved(writes count: Int) throws -> ObservationResult {
        try timedWrites(count, observing: .nothing)
    }

    private func timedWrites(_ count: Int, observing observed: Observed) throws -> ObservationResult {
        let clock = ObservationClock(writes: count)
        let notifications = DispatchQueue(label: "observation-bench.notifications")
        var cancellable: AnyDatabaseCancellable?
        switch observed {
        case .writtenTable:
            let observation = ValueObservation.trackingConstantRegion { db in
                try Int.fetchOne(db, sql: "SELECT id FROM player ORDER BY id DESC LIMIT 1") ?? 0
            }
            cancellable = observation.start(
                in: writer, scheduling: .async(onQueue: notifications), onError: { clock.fail($0) },
                onChange: { clock.receive($0) })
        case .unrelatedTable:
            let observation = ValueObservation.trackingConstantRegion { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM team") ?? 0
            }
            cancellable = observation.start(
                in: writer, scheduling: .async(onQueue: notifications), onError: { clock.fail($0) },
                onChange: { _ in clock.receive(0) })
        case .nothing:
            break
        }
        if cancellable != nil { try clock.waitForInitialValue() }

        let start = ObservationClock.now()
        for index in 1...count {
            try writer.write { db in
                try db.execute(
                    sql: "INSERT INTO player(id, name, score) VALUES (?, ?, ?)",
                    arguments: [index, "Player \(index)", index * 7 % 1000])
            }
            clock.noteCommit(index)
        }
        var end = ObservationClock.now()
        if observed == .writtenTable {
            try clock.waitForValue(count)
            end = clock.arrival(of: count)
        }
        cancellable?.cancel()
        let rowCount = try writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM player") ?? 0 }
        return ObservationResult(
            totalNanoseconds: end - start, latencies: clock.latencies(), rowCount: rowCount,
            lastObservedValue: clock.lastValue, notifications: clock.notifications)
    }

    /// Closes the database.
    public func close() throws {
        try closeWriter()
    }
}

/// The commit and arrival times of one run. The writing thread fills `commits`, the notification queue
/// `arrivals`; the semaphore that ends the wait orders the arrival writes before the reads.
private final class ObservationClock: @unchecked Sendable {
    private let count: Int
    private var commits: [UInt64]
    private var arrivals: [UInt64]
    private let lock = NSLock()
    private var initialReceived = false
    private var awaited: Int?
    private var failure: (any Error)?
    private(set) var lastValue = -1
    private(set) var notifications = 0
    private let signal = DispatchSemaphore(value: 0)

    init(writes: Int) {
        count = writes
        commits = [UInt64](repeating: 0, count: writes + 1)
        arrivals = [UInt64](repeating: 0, count: writes + 1)
    }

    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    func noteCommit(_ index: Int) {
        commits[index] = Self.now()
    }

    /// On the notification queue: notes the arrival of `value` (a row id, 0 for the first value).
    func receive(_ value: Int) {
        let time = Self.now()
        lock.lock()
        if value > 0 && value <= count { arrivals[value] = time }
        lastValue = value
        notifications += 1
        var wake = false
        if !initialReceived {
            initialReceived = true
            wake = true
        }
        if let awaited, value >= awaited {
            self.awaited = nil
            wake = true
        }
        lock.unlock()
        if wake { signal.signal() }
    }

    func fail(_ error: any Error) {
        lock.withLock { failure = error }
        signal.signal()
    }

    func waitForInitialValue() throws {
        signal.wait()
        if let failure = lock.withLock({ failure }) { throw failure }
    }

    /// Waits for the arrival of `value` (or a larger one).
    func waitForValue(_ value: Int) throws {
        let arrived = lock.withLock { () -> Bool in
            if lastValue >= value { return true }
            awaited = value
            return false
        }
        if !arrived { signal.wait() }
        if let failure = lock.withLock({ failure }) { throw failure }
    }

    func arrival(of value: Int) -> UInt64 {
        lock.withLock { arrivals[value] }
    }

    func latencies() -> [UInt64] {
        lock.withLock {
            (1...count).compactMap { index in
                arrivals[index] == 0 ? nil : (arrivals[index] > commits[index] ? arrivals[index] - commits[index] : 0)
            }
        }
    }
}
