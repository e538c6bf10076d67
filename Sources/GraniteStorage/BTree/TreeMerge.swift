// Merging two sibling pages, or redistributing their cells evenly between them (also how a full leaf shares a new
// cell with a sibling that has room). The phases: copy both pages and gather their cells (with the separator
// pulled down between interior pages), then either merge into the left page or cut the cells in two and replace
// the separator in the parent.

/// Two sibling pages being merged or redistributed: copies of both (in the tree context's scratch buffers) and the
/// separator between them in the parent.
struct SiblingPair {
    var leftOld: TreePage
    var rightOld: TreePage
    /// The parent, writable, and its cell between the two.
    var parent: TreePage
    var separator: Int
    var separatorCell: Cell
    var isLeaf: Bool { leftOld.isLeaf }
}

extension BTree {
    /// Merges two sibling pages, or redistributes their cells evenly, and
    /// updates the separator between them in the parent. With `extra`, a new
    /// leaf cell joins the cells at `position` (an insert that found its page
    /// full) and the pages are never merged. Returns false, changing nothing,
    /// when `extra` is given and no even split fits.
    @discardableResult
    func mergeOrRedistribute(
        parentLevel: Int, separator: Int, left leftNumber: PageNumber, right rightNumber: PageNumber,
        extra: (cell: UnsafeRawBufferPointer, position: Int)? = nil
    ) throws -> Bool {
        let pair = try copySiblings(parentLevel: parentLevel, separator: separator, leftNumber, rightNumber)
        var pulledDown = [UInt8](
            UnsafeRawBufferPointer(start: pair.parent.base + pair.separatorCell.offset, count: pair.separatorCell.size))
        if !pair.isLeaf {
            pulledDown.withUnsafeMutableBytes { $0.baseAddress!.setU32(0, pair.leftOld.rightChild) }
        }
        let outcome = try pulledDown.withUnsafeBytes { pulled -> (done: Bool, merged: Bool) in
            var items = try siblingCells(pair, pulledDown: pulled)
            if let extra { items.insert(extra.cell, at: extra.position) }
            let total = items.reduce(0) { $0 + $1.count + 2 }
            let area = pager.geometry.usableEnd - TreeGeometry.headerSize
            if total <= area && extra == nil {
                try mergeSiblings(pair, items)
                return (true, true)
            }
            return (try redistribute(pair, items, parentLevel: parentLevel, hasExtra: extra != nil), false)
        }
        // A merge took a cell from the parent, which may now be underfull.
        if outcome.merged { try rebalance(level: parentLevel) }
        return outcome.done
    }

    /// Copies both siblings into the context's scratch buffers (the pages are rebuilt from the copies) and finds
    /// their separator in the parent.
    func copySiblings(
        parentLevel: Int, separator: Int, _ leftNumber: PageNumber, _ rightNumber: PageNumber
    ) throws -> SiblingPair {
        let geometry = pager.geometry
        let leftCopy = context.scratch
        let rightCopy = context.scratch2
        leftCopy.copyMemory(from: try treePage(leftNumber).base, byteCount: pager.pageSize)
        rightCopy.copyMemory(from: try treePage(rightNumber).base, byteCount: pager.pageSize)
        let leftOld = TreePage(unchecked: leftNumber, base: leftCopy, geometry: geometry)
        let rightOld = TreePage(unchecked: rightNumber, base: rightCopy, geometry: geometry)
        guard leftOld.type == rightOld.type else {
            throw StorageError.corrupt(
                page: rightNumber, "sibling pages \(leftNumber) and \(rightNumber) differ in type")
        }
        let parent = try writableTreePage(context.path.pages[parentLevel])
        let separatorCell = try parent.cell(at: separator)
        return SiblingPair(
            leftOld: leftOld, rightOld: rightOld, parent: parent, separator: separator, separatorCell: separatorCell)
    }

    /// The cells of both siblings in order, with `pulledDown` (the separator, pointing at the left page's right
    /// child) between them when they are interior pages.
    func siblingCells(_ pair: SiblingPair, pulledDown: UnsafeRawBufferPointer) throws -> [UnsafeRawBufferPointer] {
        let leftOld = pair.leftOld
        let rightOld = pair.rightOld
        var items: [UnsafeRawBufferPointer] = []
        items.reserveCapacity(leftOld.cellCount + rightOld.cellCount + 2)
        for i in 0..<leftOld.cellCount {
            let size = try leftOld.cellSize(at: i)
            items.append(UnsafeRawBufferPointer(start: leftOld.base + leftOld.cellOffset(i), count: size))
        }
        if !pair.isLeaf { items.append(pulledDown) }
        for i in 0..<rightOld.cellCount {
            let size = try rightOld.cellSize(at: i)
            items.append(UnsafeRawBufferPointer(start: rightOld.base + rightOld.cellOffset(i), count: size))
        }
        return items
    }

    /// Merges everything into the left page, drops the separator from the parent and frees the right page.
    func mergeSiblings(_ pair: SiblingPair, _ items: [UnsafeRawBufferPointer]) throws {
        let leftNumber = pair.leftOld.number
        let parent = pair.parent
        let separator = pair.separator
        let left = try writableTreePage(leftNumber)
        try fill(left, pair.leftOld.type, items)
        left.setRightChild(pair.rightOld.rightChild)
        if pair.isLeaf { try freeOverflow(parent, pair.separatorCell) }
        parent.removeCell(at: separator, size: pair.separatorCell.size)
        if separator < parent.cellCount {
            parent.setChild(at: separator, leftNumber)
        } else {
            parent.setRightChild(leftNumber)
        }
        try pager.freePage(pair.rightOld.number)
    }

    /// Cuts the cells evenly between the two pages and replaces the separator in the parent. Returns false,
    /// changing nothing, when no cut fits and `hasExtra` (a damaged pair throws instead).
    func redistribute(
        _ pair: SiblingPair, _ items: [UnsafeRawBufferPointer], parentLevel: Int, hasExtra: Bool
    ) throws -> Bool {
        let leftNumber = pair.leftOld.number
        let isLeaf = pair.isLeaf
        guard let k = balancedSplit(items, promote: !isLeaf) else {
            if hasExtra { return false }
            throw StorageError.corrupt(page: leftNumber, "sibling cells cannot be redistributed")
        }
        let left = try writableTreePage(leftNumber)
        let right = try writableTreePage(pair.rightOld.number)
        var newSeparator: [UInt8]
        if isLeaf {
            try fill(left, pair.leftOld.type, items[0..<k])
            try fill(right, pair.leftOld.type, items[k...])
            newSeparator = try leafSeparator(left: items[k - 1], right: items[k], child: leftNumber)
            try freeOverflow(pair.parent, pair.separatorCell)
        } else {
            try fill(left, pair.leftOld.type, items[0..<k])
            try fill(right, pair.leftOld.type, items[(k + 1)...])
            left.setRightChild(items[k].baseAddress!.u32(0))
            right.setRightChild(pair.rightOld.rightChild)
            newSeparator = [UInt8](items[k])
            newSeparator.withUnsafeMutableBytes { $0.baseAddress!.setU32(0, leftNumber) }
        }
        try replaceSeparator(pair, with: newSeparator, parentLevel: parentLevel)
        return true
    }

    /// Replaces the pair's separator in the parent by `newSeparator`: in place when the sizes match (no fragment is
    /// left in the parent), otherwise removed and inserted again, which may split the parent.
    func replaceSeparator(_ pair: SiblingPair, with newSeparator: [UInt8], parentLevel: Int) throws {
        let parent = pair.parent
        let separatorCell = pair.separatorCell
        if newSeparator.count == separatorCell.size {
            newSeparator.withUnsafeBytes {
                (parent.base + separatorCell.offset).copyMemory(from: $0.baseAddress!, byteCount: $0.count)
            }
            return
        }
        parent.removeCell(at: pair.separator, size: separatorCell.size)
        // Reinsert the separator; the path above the parent is still valid.
        context.path.indices[parentLevel] = pair.separator
        _ = try newSeparator.withUnsafeBytes { try insertCell($0, level: parentLevel, index: pair.separator) }
    }
}
