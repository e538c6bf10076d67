// Splitting a full page in two, and the append split of the right edge.

extension BTree {
    /// Splits the full page at `level` while inserting `cell` at `index`.
    /// The page keeps the lower half; returns the new right page and the
    /// separator cell (pointing at the kept page) for the parent.
    func split(
        level: Int, index: Int, cell: UnsafeRawBufferPointer, append: Bool
    ) throws -> (right: PageNumber, separator: [UInt8]) {
        let path = context.path
        let number = path.pages[level]
        if append, let quick = try appendSplit(number, cell: cell) { return quick }
        let copy = context.scratch
        copy.copyMemory(from: try pager.page(number), byteCount: pager.pageSize)
        let old = TreePage(unchecked: number, base: copy, geometry: pager.geometry)
        let isLeaf = old.isLeaf
        let oldRightChild = old.rightChild
        var items: [UnsafeRawBufferPointer] = []
        items.reserveCapacity(old.cellCount + 1)
        for i in 0..<old.cellCount {
            let size = try old.cellSize(at: i)
            items.append(UnsafeRawBufferPointer(start: copy + old.cellOffset(i), count: size))
        }
        items.insert(cell, at: index)

        let rightNumber = try pager.allocatePage()
        let left = try writableTreePage(number)
        let right = TreePage(
            unchecked: rightNumber, base: try pager.writablePage(rightNumber), geometry: pager.geometry)

        // A sound full page holds several cells; a damaged one may claim to be full with none (or one), and the
        // split points below would then fall outside `items`.
        if isLeaf {
            guard let k = append ? items.count - 1 : balancedSplit(items, promote: false), k >= 1 else {
                throw StorageError.corrupt(page: number, "cells cannot be split between two pages")
            }
            try fill(left, old.type, items[0..<k])
            try fill(right, old.type, items[k...])
            let separator = try leafSeparator(left: items[k - 1], right: items[k], child: number)
            return (rightNumber, separator)
        } else {
            guard let p = append ? items.count - 2 : balancedSplit(items, promote: true), p >= 0 else {
                throw StorageError.corrupt(page: number, "cells cannot be split between two pages")
            }
            try fill(left, old.type, items[0..<p])
            try fill(right, old.type, items[(p + 1)...])
            left.setRightChild(items[p].baseAddress!.u32(0))
            right.setRightChild(oldRightChild)
            var separator = [UInt8](items[p])
            separator.withUnsafeMutableBytes { $0.baseAddress!.setU32(0, number) }
            return (rightNumber, separator)
        }
    }

    /// The split of a full leaf by a cell appended after its last one (ascending keys): the leaf stays as it is and
    /// the cell starts a new right page, which gives the same pages as rebuilding both without touching the full
    /// one. Returns nil when the page is not a leaf with cells.
    func appendSplit(
        _ number: PageNumber, cell: UnsafeRawBufferPointer
    ) throws -> (right: PageNumber, separator: [UInt8])? {
        let page = try treePage(number)
        let count = page.cellCount
        guard page.isLeaf, count > 0 else { return nil }
        let type = page.type
        let last = try page.cell(at: count - 1)
        // A copy: allocating the right page may move pages in the cache.
        let lastBytes = [UInt8](UnsafeRawBufferPointer(start: page.base + last.offset, count: last.size))
        let separator = try lastBytes.withUnsafeBytes { try leafSeparator(left: $0, right: cell, child: number) }
        let rightNumber = try pager.allocatePage()
        let right = TreePage(
            unchecked: rightNumber, base: try pager.writablePage(rightNumber), geometry: pager.geometry)
        right.initialize(type)
        guard try right.insertCell(cell, at: 0) else {
            throw StorageError.corrupt(page: number, "a cell does not fit in an empty page")
        }
        return (rightNumber, separator)
    }

    /// The split point that best balances bytes between two pages: for
    /// leaves the index of the first item of the right page; with `promote`
    /// the index of the item that moves up to the parent.
    func balancedSplit(_ items: [UnsafeRawBufferPointer], promote: Bool) -> Int? {
        let total = items.reduce(0) { $0 + $1.count + 2 }
        let area = pager.geometry.usableEnd - TreeGeometry.headerSize
        var running = 0
        var best: Int? = nil
        var bestImbalance = Int.max
        let highest = promote ? items.count - 2 : items.count - 1
        for k in 0..<items.count {
            if k >= 1 && k <= highest {
                let leftBytes = running
                let rightBytes = total - running - (promote ? items[k].count + 2 : 0)
                if leftBytes <= area && rightBytes <= area {
                    let imbalance = abs(leftBytes - rightBytes)
                    if imbalance < bestImbalance {
                        bestImbalance = imbalance
                        best = k
                    }
                }
            }
            running += items[k].count + 2
        }
        return best
    }
}
