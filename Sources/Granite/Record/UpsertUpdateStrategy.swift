/// Which columns an upsert overwrites when the inserted row conflicts with an existing one.
///
/// ```swift
/// // Only update the score on conflict:
/// try player.upsertAndFetch(db, updating: .noColumnUnlessSpecified, doUpdate: { excluded in
///     [Column("score").set(to: excluded["score"])]
/// })
/// ```
public struct UpsertUpdateStrategy: OptionSet, Sendable {
    /// The raw value.
    public let rawValue: Int

    /// A strategy from its raw value.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Only the columns of the `doUpdate` assignments are updated.
    public static let noColumnUnlessSpecified = Self([])

    /// Every encoded column that is not part of the primary key or of the conflict target is overwritten
    /// (unless the `doUpdate` assignments update it).
    public static let allColumns = Self(rawValue: 1 << 0)
}
