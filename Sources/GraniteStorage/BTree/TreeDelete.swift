// Deleting an entry, and restoring fill on the path afterwards.

extension BTree {
    /// Deletes the entry at `key`; returns whether there was one.
    func delete(_ searchKey: SearchKey) throws -> Bool {
        try pager.prepareForWrite()
        let path = context.path
        let (leaf, index, found) = try descend(searchKey, path)
        guard found else { return false }
        context.noteChange()
        let page = try writableTreePage(leaf.number)
        let cell = try page.cell(at: index)
        try freeOverflow(page, cell)
        page.removeCell(at: index, size: cell.size)
        try rebalance(level: path.count - 1)
        try pager.safePoint()
        return true
    }

    /// Deletes table row `rowid` where the last lookup found it (``TreeContext/rowHint``), when no tree changed since and
    /// the leaf stays full enough to need no rebalancing (which would need the descent's path). Returns false,
    /// changing nothing, when it cannot.
    func deleteAtHint(rowid: Int64) throws -> Bool {
        guard let (leaf, hint, cell) = try hintedCell(rowid: rowid) else { return false }
        guard
            hint.page == root
                || (leaf.cellCount > 1 && leaf.usedBytes - cell.size - 2 >= pager.geometry.minimumFill)
        else { return false }
        context.noteChange()
        let page = try writableTreePage(hint.page)
        try freeOverflow(page, cell)
        page.removeCell(at: hint.index, size: cell.size)
        try pager.safePoint()
        return true
    }

    /// Restores fill after a removal at `level`: merges an underfull page
    /// with a sibling, or redistributes cells between them.
    func rebalance(level: Int) throws {
        let path = context.path
        let page = try treePage(path.pages[level])
        if level == 0 {
            try collapseRoot()
            return
        }
        guard page.cellCount == 0 || page.usedBytes < pager.geometry.minimumFill else { return }
        let parentLevel = level - 1
        let parent = try treePage(path.pages[parentLevel])
        let parentCount = parent.cellCount
        guard parentCount > 0 else { return }
        if kind == .table && page.isLeaf, try balanceLeaves(level: level, extra: nil) { return }
        let childIndex = path.indices[parentLevel]
        let separator = childIndex > 0 ? childIndex - 1 : 0
        let leftNumber = try childPage(parent, separator)
        let rightNumber = try childPage(parent, separator + 1)
        try mergeOrRedistribute(parentLevel: parentLevel, separator: separator, left: leftNumber, right: rightNumber)
    }

    /// While the root is an interior page with no cells, pulls its only child up into it.
    func collapseRoot() throws {
        var rootPage = try treePage(root)
        var steps = 0
        while !rootPage.isLeaf && rootPage.cellCount == 0 {
            steps += 1
            guard steps < TreePath.maximumDepth else {
                throw StorageError.corrupt(page: root, "root collapse does not terminate")
            }
            let child = try childPage(rootPage, 0)
            let childPage = try treePage(child)
            let writable = try pager.writablePage(root)
            writable.copyMemory(from: childPage.base, byteCount: pager.pageSize)
            try pager.freePage(child)
            rootPage = try treePage(root)
        }
    }
}
