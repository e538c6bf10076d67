/// A transaction observer of this module whose ``TransactionObserver/databaseWillCommit()``,
/// ``TransactionObserver/databaseDidCommit(_:)`` and ``TransactionObserver/databaseDidRollback(_:)`` do nothing
/// in a transaction that told it of no change (neither ``TransactionObserver/databaseDidChange(with:)`` nor
/// ``TransactionObserver/databaseDidChange()``), and whose owner removes it when it ends, or lets it go when it
/// is held weakly.
///
/// When every registered observer is one of them and none was told of a change, the observation broker skips
/// the end of the transaction: a write into a table that only such observers watch costs nothing at its commit.
/// An embedder's observer never conforms: GRDB tells every observer of every commit and rollback.
protocol SilentWithoutChanges: TransactionObserver {}
