// The working state of tree operations over one pager: the descent path, the generation that tells cursors and
// hints the trees changed, the row hint, scratch buffers and balance statistics. Tree operations never nest, so
// one context per pager is shared by every tree and cursor of a connection.

/// Reusable state shared by the tree operations of one connection.
///
/// The buffers exist so that inserts, lookups and rebuilds allocate nothing; the counters are marked
/// `@exclusivity(unchecked)` because they are read and bumped on every row operation.
final class TreeContext {
    /// The pager every tree of this context reads and changes pages through.
    let pager: Pager
    /// The descent path shared by tree operations (they never nest).
    let path = TreePath()
    /// Bumped by every change to any tree through this context.
    @exclusivity(unchecked) private var changes: UInt64 = 0
    /// Where the last lookup of a row by rowid found it; valid while ``generation`` stays the same.
    @exclusivity(unchecked) var rowHint = RowHint()
    /// How many multi-page leaf balances ran (on overflow, on underflow): statistics for tests.
    @exclusivity(unchecked) var leafBalances = (overflow: 0, underflow: 0)
    /// A page-sized scratch buffer for page rebuilds.
    let scratch: UnsafeMutableRawPointer
    /// A second scratch buffer (merges work on two pages).
    let scratch2: UnsafeMutableRawPointer
    /// A page-sized buffer where leaf cells are built before insertion.
    let cellBuffer: UnsafeMutableRawPointer

    init(pager: Pager) {
        self.pager = pager
        scratch = .allocate(byteCount: pager.pageSize, alignment: 16)
        scratch2 = .allocate(byteCount: pager.pageSize, alignment: 16)
        cellBuffer = .allocate(byteCount: pager.pageSize, alignment: 16)
    }

    deinit {
        scratch.deallocate()
        scratch2.deallocate()
        cellBuffer.deallocate()
    }

    /// Changes whenever any tree may have changed: a change through this context, or pages replaced under it by the
    /// pager (rollback, rollback to a savepoint, a new snapshot, a dropped cache). Both counters only grow, so their
    /// sum changes whenever either does. Cursors re-seek and row hints lapse when it differs from what they saw.
    var generation: UInt64 {
        @inline(__always) get { changes &+ pager.reloadGeneration }
    }

    /// Records a change to a tree.
    @inline(__always)
    func noteChange() { changes &+= 1 }
}
