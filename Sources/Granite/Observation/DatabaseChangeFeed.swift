import Foundation
import Synchronization

/// The commits of one database file, told to the observations of every connection of this process to that file:
/// what lets a ``ValueObservation`` or ``DatabaseRegionObservation`` started on one `DatabaseQueue` or
/// `DatabasePool` see the writes of another queue or pool opened on the same path.
///
/// Every connection to the file shares one feed (kept by the storage layer with the file's shared state). An
/// observation subscribes with the connection that hosts it (its writer), before its first fetch; a connection
/// that commits a write transaction while another connection's observations are subscribed publishes, once the
/// commit has returned, the region the transaction changed (the rows of its tables, or the full database when the
/// connection did not record the whole transaction). The subscriptions of the committing connection are skipped:
/// its own transaction observers tell them already.
///
/// Thread safety: subscriptions are guarded by `lock`; ``version`` lets each connection notice a change of the
/// subscriptions with one atomic load per statement.
final class DatabaseChangeFeed: @unchecked Sendable {
    /// A subscribed observation: the connection that hosts it, and what it does with another connection's commit
    /// (on the committing connection's thread, which it must not block).
    private struct Subscription {
        var host: ObjectIdentifier
        /// The file's commit sequence when the observation subscribed: the commits up to it are older than the
        /// observation's first fetch.
        var commitsBefore: UInt64
        var onCommit: @Sendable (DatabaseRegion) -> Void
    }

    private let lock = NSLock()
    private var subscriptions: [UInt64: Subscription] = [:]
    private var nextToken: UInt64 = 0
    /// Incremented by every subscription and unsubscription.
    let version = Atomic<UInt64>(0)

    /// Subscribes `onCommit` to the commits of every connection but `host` that come after the current one;
    /// returns the token that unsubscribes. Call it before the observation's first fetch.
    func subscribe(host: Database, onCommit: @escaping @Sendable (DatabaseRegion) -> Void) -> UInt64 {
        let commitsBefore = host.connection.engine.latestCommitSequence
        return lock.withLock {
            nextToken += 1
            subscriptions[nextToken] = Subscription(
                host: ObjectIdentifier(host), commitsBefore: commitsBefore, onCommit: onCommit)
            version.add(1, ordering: .sequentiallyConsistent)
            return nextToken
        }
    }

    func unsubscribe(_ token: UInt64) {
        lock.withLock {
            guard subscriptions.removeValue(forKey: token) != nil else { return }
            version.add(1, ordering: .sequentiallyConsistent)
        }
    }

    /// Whether an observation hosted by another connection than `connection` is subscribed.
    func isWatched(byOtherThan connection: Database) -> Bool {
        let identifier = ObjectIdentifier(connection)
        return lock.withLock { subscriptions.values.contains { $0.host != identifier } }
    }

    /// Tells the subscriptions of the other connections that `connection` committed changes to `region` with
    /// commit number `sequence` (those that subscribed after it see it in their first fetch).
    func publish(_ region: DatabaseRegion, committedBy connection: Database, sequence: UInt64) {
        let identifier = ObjectIdentifier(connection)
        let recipients = lock.withLock {
            subscriptions.values.filter { $0.host != identifier && $0.commitsBefore < sequence }
        }
        for recipient in recipients { recipient.onCommit(region) }
    }
}

/// The transaction observer that notes, for the change feed, the rows that the connection's transaction changes
/// (in the tables of the file: temporary tables are the connection's own). Installed only while observations of
/// other connections watch the file.
final class ChangeFeedRecorder: ReusableEventKindAnswers {
    /// The changes of the running transaction, and of the last committed one not published yet.
    private var running = DatabaseRegion()
    private(set) var committed: DatabaseRegion?
    /// Whether the running transaction began before the recorder heard its changes.
    private var missedChanges: Bool

    /// `missedChanges`: whether the running transaction changed the file before the recorder was installed.
    init(missedChanges: Bool) {
        self.missedChanges = missedChanges
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
    /// None: the recorder wants every change, always.
    var eventKindAnswersRevision: EventKindAnswersRevision? { nil }

    func databaseDidChange() {
        running = .fullDatabase
    }

    func databaseDidChange(with event: DatabaseEvent) {
        guard event.databaseName == "main", !running.isFullDatabase else { return }
        running.formUnion(DatabaseRegion(table: event.tableName, rowIDs: [event.rowID]))
    }

    func databaseDidCommit(_ db: Database) {
        committed = (committed ?? DatabaseRegion()).union(missedChanges ? .fullDatabase : running)
        running = DatabaseRegion()
        missedChanges = false
    }

    func databaseDidRollback(_ db: Database) {
        running = DatabaseRegion()
        missedChanges = false
    }

    /// The changes committed since the last call (nil when the recorder heard of no commit).
    func takeCommitted() -> DatabaseRegion? {
        defer { committed = nil }
        return committed
    }
}
