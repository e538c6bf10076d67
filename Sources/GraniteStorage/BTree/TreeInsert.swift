// Inserting an entry: into its leaf, or by sharing with a sibling, a multi-page balance or a split that may
// climb the path; and the in-place replacement where the last lookup left off.

extension BTree {
    /// Inserts or replaces the entry at `key`; returns whether one was replaced.
    /// Throws ``StorageError/duplicateKey`` when it exists and `replace` is false.
    func insert(
        _ searchKey: SearchKey, rowid: Int64, key: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer,
        replace: Bool
    ) throws -> Bool {
        try pager.prepareForWrite()
        let path = context.path
        let (leaf, index, found) = try descend(searchKey, path)
        if found {
            guard replace else { throw StorageError.duplicateKey }
            let page = try writableTreePage(leaf.number)
            let cell = try page.cell(at: index)
            // Same-size, all-local replacement (an UPDATE that keeps the row's size): overwrite in place, which
            // leaves no fragment behind and needs no defragmentation.
            let total = kind == .table ? payload.count : key.count + payload.count
            if cell.overflow == 0, pager.geometry.localLength(total) == total {
                let replacement = try buildLeafCell(rowid: rowid, key: key, payload: payload)
                if replacement.count == cell.size {
                    (page.base + cell.offset).copyMemory(from: replacement.baseAddress!, byteCount: cell.size)
                    context.noteChange()
                    try pager.safePoint()
                    return true
                }
            }
            try freeOverflow(page, cell)
            page.removeCell(at: index, size: cell.size)
        }
        context.noteChange()
        let cell = try buildLeafCell(rowid: rowid, key: key, payload: payload)
        if let split = try insertCell(cell, level: path.count - 1, index: index), kind == .table {
            try spreadAfterSplit(left: split.left, right: split.right)
        }
        try pager.safePoint()
        return found
    }

    /// Inserts `cell` at `index` of the page at `level` of the path,
    /// splitting pages up the path as needed. Returns the two pages of a leaf split away from the right edge.
    @discardableResult
    func insertCell(
        _ cell: UnsafeRawBufferPointer, level: Int, index: Int
    ) throws -> (left: PageNumber, right: PageNumber)? {
        let path = context.path
        let page = try writableTreePage(path.pages[level])
        if try page.insertCell(cell, at: index) { return nil }
        let append = try index == page.cellCount && isRightEdge(below: level)
        let isLeaf = page.isLeaf
        var level = level
        if level == 0 {
            try deepenRoot()
            level = 1
        }
        if isLeaf && !append {
            if try shiftToSibling(level: level, index: index, cell: cell) { return nil }
            if kind == .table, try balanceLeaves(level: level, extra: (cell, index)) { return nil }
        }
        let splitPage = path.pages[level]
        let (right, separator) = try split(level: level, index: index, cell: cell, append: append)
        let parentLevel = level - 1
        let parent = try writableTreePage(path.pages[parentLevel])
        let parentIndex = path.indices[parentLevel]
        if parentIndex < parent.cellCount {
            parent.setChild(at: parentIndex, right)
        } else {
            parent.setRightChild(right)
        }
        _ = try separator.withUnsafeBytes { try insertCell($0, level: parentLevel, index: parentIndex) }
        return isLeaf && !append ? (splitPage, right) : nil
    }

    /// Moves the root's contents to a new child so the root can split while
    /// keeping its page number; the path gains a level.
    func deepenRoot() throws {
        let path = context.path
        let child = try pager.allocatePage()
        let childImage = try pager.writablePage(child)
        let rootPage = try writableTreePage(root)
        childImage.copyMemory(from: rootPage.base, byteCount: pager.pageSize)
        rootPage.initialize(kind.interiorType)
        rootPage.setRightChild(child)
        path.insert(child, path.indices[0], at: 1)
        path.indices[0] = 0
    }

    /// Whether every page above `level` was entered through its right child.
    func isRightEdge(below level: Int) throws -> Bool {
        let path = context.path
        for l in 0..<level where try path.indices[l] != treePage(path.pages[l]).cellCount {
            return false
        }
        return true
    }

    /// Instead of splitting a full leaf, spreads its cells and the new one
    /// over the leaf and a sibling with room (for a table a sixteenth of a page or room for four cells of the new
    /// one's size, whichever is more; a quarter of a page for an index), which keeps leaves fuller under random
    /// inserts. Returns whether it did.
    func shiftToSibling(level: Int, index: Int, cell: UnsafeRawBufferPointer) throws -> Bool {
        let path = context.path
        let parentLevel = level - 1
        let parent = try treePage(path.pages[parentLevel])
        let childIndex = path.indices[parentLevel]
        let number = path.pages[level]
        // Table leaves accept a sibling with less room: their cells are few and large, and their splits come from
        // rows that grew in place, where fuller pages matter more than the cost of more frequent sharing (when
        // neither sibling has room, ``balanceLeaves`` spreads the leaf's neighbourhood over one more page). Room for
        // four cells keeps large rows inserted at random from sharing (rebuilding two pages) every few inserts. Index
        // leaves under random inserts share only with a sibling a quarter empty, which keeps inserts cheap.
        let area = pager.geometry.usableEnd - TreeGeometry.headerSize
        let roomy = kind == .table ? max(area / 16, 4 * (cell.count + 2)) : area / 4
        if childIndex > 0 {
            let leftNumber = try childPage(parent, childIndex - 1)
            let left = try treePage(leftNumber)
            if left.freeBytes >= max(roomy, cell.count + 2) {
                return try mergeOrRedistribute(
                    parentLevel: parentLevel, separator: childIndex - 1, left: leftNumber, right: number,
                    extra: (cell, left.cellCount + index))
            }
        }
        if childIndex < parent.cellCount {
            let rightNumber = try childPage(parent, childIndex + 1)
            let right = try treePage(rightNumber)
            if right.freeBytes >= max(roomy, cell.count + 2) {
                return try mergeOrRedistribute(
                    parentLevel: parentLevel, separator: childIndex, left: number, right: rightNumber,
                    extra: (cell, index))
            }
        }
        return false
    }

    /// After a table leaf split in the middle of a tree (only when ``balanceLeaves`` could not rebuild the leaf's
    /// neighbourhood, whose parent had no room for its separators), which leaves two half-full pages, moves cells
    /// from the fuller outer neighbours into them (left page with its left sibling, right page with its right
    /// sibling): a split then costs one page for three full ones, as in a B*-tree, instead of one for two. Each move
    /// is an ordinary redistribution between two siblings, found by a fresh descent, so the tree is valid between
    /// them.
    func spreadAfterSplit(left: PageNumber, right: PageNumber) throws {
        try spread(right, withLeftSibling: false)
        try spread(left, withLeftSibling: true)
    }

    /// Redistributes the cells of leaf `number` and its left or right sibling (under the same parent) when the
    /// sibling has less than half the page's free space.
    func spread(_ number: PageNumber, withLeftSibling: Bool) throws {
        let page = try treePage(number)
        guard page.isLeaf, page.cellCount > 0 else { return }
        let path = context.path
        let reached: PageNumber
        if kind == .table {
            reached = try descend(.rowid(try page.rowid(at: 0)), path).leaf.number
        } else {
            let first = try withKey(page, try page.cell(at: 0)) { [UInt8]($0) }
            reached = try first.withUnsafeBytes { try descend(.bytes($0), path).leaf.number }
        }
        guard reached == number, path.count >= 2 else { return }
        let parentLevel = path.count - 2
        let parent = try treePage(path.pages[parentLevel])
        let childIndex = path.indices[parentLevel]
        let separator = withLeftSibling ? childIndex - 1 : childIndex
        guard separator >= 0, separator < parent.cellCount else { return }
        let sibling = try childPage(parent, withLeftSibling ? childIndex - 1 : childIndex + 1)
        let siblingPage = try treePage(sibling)
        // `page` may have moved in the cache during the descent: read its free space again.
        guard siblingPage.isLeaf, siblingPage.freeBytes * 2 < (try treePage(number)).freeBytes else { return }
        context.noteChange()
        try mergeOrRedistribute(
            parentLevel: parentLevel, separator: separator, left: withLeftSibling ? sibling : number,
            right: withLeftSibling ? number : sibling)
    }

    /// Overwrites table row `rowid` in place where the last lookup found it (``TreeContext/rowHint``), when no tree
    /// changed since and the new cell has the old one's size, all local: no descent. Returns false, changing
    /// nothing, when it cannot.
    func replaceAtHint(rowid: Int64, payload: UnsafeRawBufferPointer) throws -> Bool {
        guard let (_, hint, cell) = try hintedCell(rowid: rowid) else { return false }
        guard cell.overflow == 0, pager.geometry.localLength(payload.count) == payload.count else { return false }
        let replacement = try buildLeafCell(
            rowid: rowid, key: UnsafeRawBufferPointer(start: nil, count: 0), payload: payload)
        guard replacement.count == cell.size else { return false }
        let page = try writableTreePage(hint.page)
        (page.base + cell.offset).copyMemory(from: replacement.baseAddress!, byteCount: cell.size)
        context.noteChange()
        try pager.safePoint()
        return true
    }
}
