// What a checkpoint may wait for, and what it did.

/// What a checkpoint may wait for.
public enum CheckpointMode: String, Sendable, CaseIterable {
    /// Copies what no live snapshot still needs; never waits.
    case passive
    /// Waits (up to the busy time-out) for older snapshots to end, then copies every committed frame.
    case full
    /// Like `full`, then empties the log file.
    case truncate
}

/// The outcome of a checkpoint.
public struct CheckpointResult: Sendable, Equatable {
    /// Committed frames in the log when the checkpoint began.
    public var logFrames: Int
    /// Frames now copied into the database file.
    public var backfilledFrames: Int
    /// Whether the log was emptied.
    public var truncated: Bool
}
