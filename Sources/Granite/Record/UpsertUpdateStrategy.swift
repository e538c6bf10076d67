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

extension ColumnExpression {
    /// An upsert assignment that keeps the existing value of the column on conflict (it adds nothing to the
    /// `DO UPDATE` clause, and prevents the `.allColumns` strategy from overwriting the column).
    ///
    /// ```swift
    /// try vocabulary.upsertAndFetch(db, onConflict: ["word"], doUpdate: { _ in
    ///     [Column("count") += 1, Column("isTainted").noOverwrite]
    /// })
    /// ```
    public var noOverwrite: ColumnAssignment {
        var assignment = ColumnAssignment(columnName: name, value: .column(name))
        assignment.overwrites = false
        return assignment
    }
}
