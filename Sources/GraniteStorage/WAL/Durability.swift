// The durability levels of commits (`PRAGMA synchronous`).

/// How hard a commit works to survive a power cut: SQLite's `PRAGMA synchronous` levels in WAL mode. Each
/// connection has its own level, which governs the syncs of the commits and checkpoints it runs.
public enum Durability: String, Sendable, CaseIterable {
    /// The log is synced at every commit: a commit that returned survives.
    case full
    /// The log is synced only before a checkpoint: a power cut may lose the
    /// latest commits, never consistency.
    case normal
    /// Nothing is ever synced: a power cut may lose commits and leave the database corrupt (a crash of the
    /// process alone loses nothing, since the operating system keeps the written pages).
    case off
    /// SQLite's EXTRA: in WAL mode, the same syncs as ``full`` (its extra sync is for the rollback journal,
    /// which Granite does not have).
    case extra

    /// Whether a commit syncs the log before it returns.
    var syncsCommits: Bool { self == .full || self == .extra }

    /// Whether anything is ever synced (checkpoints, log restarts, database creation).
    var syncs: Bool { self != .off }
}
