// The multi-page balance of table leaves, applying a LeafBalancePlan: a window of up to five sibling leaves is
// rebuilt as pages of nearly equal fill, and the parent's separators are replaced. The phases: find the window,
// copy its cells, plan the cuts (LeafBalancePlan.swift), check the parent can take the separators, rebuild the
// pages, update the parent.

/// The sibling leaves a multi-page balance rebuilds: children `first..<first + pages.count` of the parent.
struct LeafWindow {
    /// The parent page and its level on the path.
    var parent: PageNumber
    var parentLevel: Int
    /// The parent's cell index of the window's first page.
    var first: Int
    /// The window's pages, left to right.
    var pages: [PageNumber]
}

extension BTree {
    /// How many siblings on each side of a table leaf ``balanceLeaves(level:extra:)`` takes in: up to five pages in
    /// all.
    static let balanceReach = 2

    /// Rebalances the table leaf at `level` of the path together with up to ``balanceReach`` siblings on each side
    /// (children of the same parent), rebuilding them as pages of nearly equal fill.
    ///
    /// With `extra`, the leaf is full and `extra.cell` belongs at `extra.index` of it: the cells of the window and
    /// the new one are spread over one page more than the window had (one new page shared by up to five full ones,
    /// so that each ends about five-sixths full rather than three quarters after a split). Without `extra`, the leaf
    /// underflowed after a delete: the cells of the window are packed into as few pages as hold them, spread evenly,
    /// and the pages left over are freed.
    ///
    /// Returns false, changing nothing, when it cannot: no even distribution fits, or the parent could not take the
    /// new separators with at most one split (the caller then falls back to a two-page split or merge).
    func balanceLeaves(level: Int, extra: (cell: UnsafeRawBufferPointer, index: Int)?) throws -> Bool {
        precondition(kind == .table, "multi-page balance is for table leaves")
        guard level >= 1 else { return false }
        let window = try leafWindow(level: level)
        let m = window.pages.count
        if extra == nil && m < 2 { return false }
        // Copies of the window's pages (and of the new cell), which the rebuilt pages are filled from.
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: (m + 1) * pager.pageSize, alignment: 16)
        defer { buffer.deallocate() }
        let (items, leafType) = try copyWindowCells(
            window, into: buffer, extra: extra, at: context.path.indices[window.parentLevel] - window.first)
        let area = pager.geometry.usableEnd - TreeGeometry.headerSize
        guard
            let plan = LeafBalancePlan.plan(
                cellSizes: items.lazy.map(\.count), area: area, windowPages: m, overflowing: extra != nil)
        else { return false }
        guard var separators = try windowSeparators(items, plan, window) else { return false }
        let pages = try rebuildWindow(window, items, plan, leafType)
        let depth = context.path.count
        try replaceSeparators(window, pages: pages, separators: &separators)
        if extra != nil { context.leafBalances.overflow += 1 } else { context.leafBalances.underflow += 1 }
        // Fewer pages: the parent lost separators and may be underfull (a root split above shifts its level).
        if plan.pageCount < m { try rebalance(level: window.parentLevel + context.path.count - depth) }
        return true
    }

    /// The window around the leaf at `level` of the path: up to ``balanceReach`` siblings on each side, more on one
    /// side where the other runs out.
    func leafWindow(level: Int) throws -> LeafWindow {
        let path = context.path
        let parentLevel = level - 1
        let parentNumber = path.pages[parentLevel]
        let childIndex = path.indices[parentLevel]
        let parent = try treePage(parentNumber)
        let childCount = parent.cellCount + 1
        let width = 2 * BTree.balanceReach + 1
        var lo = max(0, childIndex - BTree.balanceReach)
        let hi = min(childCount, lo + width)
        lo = max(0, hi - width)
        var numbers: [PageNumber] = []
        numbers.reserveCapacity(hi - lo + 1)
        for i in lo..<hi { numbers.append(try childPage(parent, i)) }
        guard numbers[childIndex - lo] == path.pages[level] else {
            throw StorageError.corrupt(page: parentNumber, "child \(childIndex) is not the page descended into")
        }
        return LeafWindow(parent: parentNumber, parentLevel: parentLevel, first: lo, pages: numbers)
    }

    /// Copies the window's pages (then `extra.cell`) into `buffer`, one page each, and returns their cells in order,
    /// with `extra.cell` at `extra.index` of the window's page `extraPage`, and the leaves' page type.
    func copyWindowCells(
        _ window: LeafWindow, into buffer: UnsafeMutableRawPointer, extra: (cell: UnsafeRawBufferPointer, index: Int)?,
        at extraPage: Int
    ) throws -> (items: [UnsafeRawBufferPointer], leafType: PageType) {
        let pageSize = pager.pageSize
        let m = window.pages.count
        var items: [UnsafeRawBufferPointer] = []
        var leafType = PageType.tableLeaf
        var extraPosition = 0
        for (j, number) in window.pages.enumerated() {
            let page = try treePage(number)
            guard page.isLeaf else {
                throw StorageError.corrupt(page: number, "sibling of a leaf is not a leaf")
            }
            leafType = page.type
            let copy = buffer + j * pageSize
            copy.copyMemory(from: page.base, byteCount: pageSize)
            let old = TreePage(unchecked: number, base: copy, geometry: pager.geometry)
            if j == extraPage { extraPosition = items.count + (extra?.index ?? 0) }
            let count = old.cellCount
            if items.isEmpty { items.reserveCapacity(count * (m + 1) + 1) }
            for i in 0..<count {
                items.append(UnsafeRawBufferPointer(start: copy + old.cellOffset(i), count: try old.cellSize(at: i)))
            }
        }
        if let extra {
            let copy = buffer + m * pageSize
            copy.copyMemory(from: extra.cell.baseAddress!, byteCount: extra.cell.count)
            items.insert(UnsafeRawBufferPointer(start: copy, count: extra.cell.count), at: extraPosition)
        }
        return (items, leafType)
    }

    /// The separators for the planned pages: after each page but the last, the rowid of its last cell (the last
    /// page takes the place of the window's last page, whose separator in the parent, or right-child slot, stays).
    /// Nil when the parent cannot take them: every separator but the first must fit in it directly once the
    /// window's old separators are gone; the first may split it.
    func windowSeparators(
        _ items: [UnsafeRawBufferPointer], _ plan: LeafBalancePlan, _ window: LeafWindow
    ) throws -> [[UInt8]]? {
        let starts = plan.starts
        let k = plan.pageCount
        var separators: [[UInt8]] = []
        separators.reserveCapacity(k)
        var needed = 0
        for j in 0..<(k - 1) {
            let separator = try leafSeparator(left: items[starts[j + 1] - 1], right: items[starts[j + 1]], child: 0)
            if j > 0 { needed += separator.count + 2 }
            separators.append(separator)
        }
        let parent = try treePage(window.parent)
        var available = parent.freeBytes
        for i in window.first..<(window.first + window.pages.count - 1) { available += try parent.cellSize(at: i) + 2 }
        return needed <= available ? separators : nil
    }

    /// Fills the planned pages (the window's own first, then new ones) and frees the window's pages no longer
    /// needed; returns the pages in order.
    func rebuildWindow(
        _ window: LeafWindow, _ items: [UnsafeRawBufferPointer], _ plan: LeafBalancePlan, _ leafType: PageType
    ) throws -> [PageNumber] {
        let k = plan.pageCount
        let m = window.pages.count
        var pages = window.pages
        while pages.count < k { pages.append(try pager.allocatePage()) }
        for j in 0..<k {
            let page = TreePage(unchecked: pages[j], base: try pager.writablePage(pages[j]), geometry: pager.geometry)
            try fill(page, leafType, items[plan.starts[j]..<plan.starts[j + 1]])
        }
        for j in min(k, m)..<m { try pager.freePage(pages[j]) }
        return Array(pages[0..<k])
    }

    /// Updates the parent after a rebuild: drops the window's separators, points the window's last slot at the
    /// last page and inserts the new separators (the first through ``insertCell(_:level:index:)``, which may split
    /// the parent).
    func replaceSeparators(_ window: LeafWindow, pages: [PageNumber], separators: inout [[UInt8]]) throws {
        let lo = window.first
        let k = pages.count
        let parent = try writableTreePage(window.parent)
        for i in stride(from: lo + window.pages.count - 2, through: lo, by: -1) {
            let cell = try parent.cell(at: i)
            parent.removeCell(at: i, size: cell.size)
        }
        if lo < parent.cellCount {
            parent.setChild(at: lo, pages[k - 1])
        } else {
            parent.setRightChild(pages[k - 1])
        }
        var j = k - 2
        while j >= 1 {
            separators[j].withUnsafeMutableBytes { $0.baseAddress!.setU32(0, pages[j]) }
            guard try separators[j].withUnsafeBytes({ try parent.insertCell($0, at: lo) }) else {
                throw StorageError.corrupt(page: window.parent, "separators do not fit in the parent")
            }
            j -= 1
        }
        if k >= 2 {
            separators[0].withUnsafeMutableBytes { $0.baseAddress!.setU32(0, pages[0]) }
            context.path.indices[window.parentLevel] = lo
            _ = try separators[0].withUnsafeBytes { try insertCell($0, level: window.parentLevel, index: lo) }
        }
    }
}
