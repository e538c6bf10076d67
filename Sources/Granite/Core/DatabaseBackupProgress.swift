/// How far a backup (``Database/backup(to:pagesPerStep:progress:)``) has gone, reported after each step.
public struct DatabaseBackupProgress: Sendable {
    /// The number of pages still to copy.
    public let remainingPageCount: Int

    /// The number of pages of the source database.
    public let totalPageCount: Int

    /// The number of pages copied so far.
    public var completedPageCount: Int { totalPageCount - remainingPageCount }

    /// Whether the backup is complete: reported once, after the last step (an error thrown then is ignored).
    public let isCompleted: Bool
}
