// The B+tree algorithms shared by table and index trees: search, insert with
// splits (and the append fast path), delete with merges and redistribution.
// FORMAT.md § "Tree pages" describes the invariants these keep.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A key to search for: a rowid in a table tree, encoded bytes in an index.
enum SearchKey {
    case rowid(Int64)
    case bytes(UnsafeRawBufferPointer)
}

/// Compares two byte strings as unsigned bytes, shorter prefix first.
///
/// Keys are short (an index entry is typically under 32 bytes), so they are compared eight bytes at a time inline
/// rather than through a `memcmp` call; long keys still go to `memcmp`.
@inline(__always)
func compareBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
    let n = min(a.count, b.count)
    if n > 0 {
        let x = a.baseAddress!
        let y = b.baseAddress!
        if n > 64 {
            let r = memcmp(x, y, n)
            if r != 0 { return r < 0 ? -1 : 1 }
        } else {
            var i = 0
            while i + 8 <= n {
                let u = UInt64(bigEndian: x.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                let v = UInt64(bigEndian: y.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                if u != v { return u < v ? -1 : 1 }
                i += 8
            }
            while i < n {
                let u = x.load(fromByteOffset: i, as: UInt8.self)
                let v = y.load(fromByteOffset: i, as: UInt8.self)
                if u != v { return u < v ? -1 : 1 }
                i += 1
            }
        }
    }
    return a.count < b.count ? -1 : (a.count == b.count ? 0 : 1)
}

/// One B+tree, identified by its root page, operated through a pager.
struct BTree {
    let pager: Pager
    let root: PageNumber
    let kind: TreeKind

    @inline(__always)
    func treePage(_ number: PageNumber) throws -> TreePage {
        try TreePage(number: number, base: try pager.page(number), geometry: pager.geometry, kind: kind)
    }

    @inline(__always)
    func writableTreePage(_ number: PageNumber) throws -> TreePage {
        try TreePage(number: number, base: try pager.writablePage(number), geometry: pager.geometry, kind: kind)
    }

    // MARK: Reading keys and payloads

    /// Calls `body` with the key bytes of an index cell, assembling them from
    /// the overflow chain when the key does not fit in the cell.
    func withKey<R>(_ page: TreePage, _ cell: Cell, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        if cell.keyLength <= cell.localLength {
            return try body(UnsafeRawBufferPointer(start: page.base + cell.localOffset, count: cell.keyLength))
        }
        let bytes = try assemble(page, cell, length: cell.keyLength)
        return try bytes.withUnsafeBytes(body)
    }

    /// Calls `body` with a cell's whole payload.
    func withPayload<R>(_ page: TreePage, _ cell: Cell, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        if cell.localLength == cell.payloadLength {
            return try body(UnsafeRawBufferPointer(start: page.base + cell.localOffset, count: cell.payloadLength))
        }
        let bytes = try assemble(page, cell, length: cell.payloadLength)
        return try bytes.withUnsafeBytes(body)
    }

    /// The first `length` bytes of a cell's payload, from the cell and its overflow chain.
    func assemble(_ page: TreePage, _ cell: Cell, length: Int) throws -> [UInt8] {
        // A damaged length may claim up to 2 GiB: refuse one that more pages than the file has would hold
        // before reserving memory for it.
        let needed = pager.geometry.overflowPageCount(cell.payloadLength)
        guard needed < Int(pager.pageCount) else {
            throw StorageError.corrupt(
                page: page.number,
                "payload of \(cell.payloadLength) bytes needs \(needed) overflow pages, the file has \(pager.pageCount)"
            )
        }
        var bytes = [UInt8]()
        bytes.reserveCapacity(length)
        let local = min(length, cell.localLength)
        bytes.append(contentsOf: UnsafeRawBufferPointer(start: page.base + cell.localOffset, count: local))
        if length > local {
            var wanted = length - local
            try pager.readOverflow(
                from: cell.overflow, length: cell.payloadLength - cell.localLength, owner: page.number
            ) { chunk in
                guard wanted > 0 else { return }
                let n = min(wanted, chunk.count)
                bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[0..<n]))
                wanted -= n
            }
        }
        return bytes
    }

    // MARK: Searching

    @inline(__always)
    func compare(_ page: TreePage, _ index: Int, _ key: SearchKey) throws -> Int {
        switch key {
        case .rowid(let target):
            let rowid = try page.rowid(at: index)
            return rowid < target ? -1 : (rowid == target ? 0 : 1)
        case .bytes(let target):
            if let key = try page.localKey(at: index) { return compareBytes(key, target) }
            let cell = try page.cell(at: index)
            return try withKey(page, cell) { compareBytes($0, target) }
        }
    }

    /// The first cell whose key is ≥ `key`, and whether it is equal.
    @inline(__always)
    func search(_ page: TreePage, _ key: SearchKey) throws -> (index: Int, found: Bool) {
        switch key {
        case .rowid(let target): return try searchRowid(page, target)
        case .bytes(let target): return try searchBytes(page, target)
        }
    }

    /// ``search(_:_:)`` for key bytes on an index page: a binary search.
    @inline(__always)
    func searchBytes(_ page: TreePage, _ target: UnsafeRawBufferPointer) throws -> (index: Int, found: Bool) {
        var low = 0
        var high = page.cellCount
        var found = false
        while low < high {
            let mid = (low &+ high) >> 1
            let c: Int
            if let key = try page.localKey(at: mid) {
                c = compareBytes(key, target)
            } else {
                let cell = try page.cell(at: mid)
                c = try withKey(page, cell) { compareBytes($0, target) }
            }
            if c < 0 {
                low = mid + 1
            } else {
                high = mid
                if c == 0 { found = true }
            }
        }
        return (low, found && low < page.cellCount)
    }

    /// ``search(_:_:)`` for a rowid on a table page.
    ///
    /// Rowids are mostly assigned in increasing order, so the rowids of a page are usually close to evenly
    /// spaced. On a page of at least 8 cells the search reads the first and last rowids, guesses the position
    /// of `target` by interpolating between them and looks at the guess and up to three neighbours before
    /// falling back to a binary search of what is left. On such pages it reads three or four cells instead of
    /// the six to nine of a binary search: on a leaf that is not in the processor's cache, each cell read is a
    /// cache miss. Whatever the rowids, the result is that of a binary search, and at most five more cells are
    /// read. Not inlined, so that the index search inlined next to it in ``descend(_:_:)`` stays as compact as
    /// before.
    @inline(never)
    func searchRowid(_ page: TreePage, _ target: Int64) throws -> (index: Int, found: Bool) {
        let n = page.cellCount
        // The result is in low...high: every cell before `low` is below `target`, every cell from `high` on is
        // above or equal to it.
        var low = 0
        var high = n
        if n >= 8 {
            let first = try page.rowid(at: 0)
            if target <= first { return (0, target == first) }
            let last = try page.rowid(at: n - 1)
            if target > last { return (n, false) }
            if target == last { return (n - 1, true) }
            // first < target < last, so the result is in 1...n-1. The guess is clamped there (far-apart rowids lose
            // precision as doubles; a NaN position compares false and gives 1).
            let span = Double(last) - Double(first)
            let end = Double(n - 1)
            var guess = (n - 1) / 2
            if span > 0 {
                let position = (Double(target) - Double(first)) / span * end
                if position >= 1 && position <= end {
                    guess = Int(position)
                } else {
                    guess = position > end ? n - 1 : 1
                }
            }
            let r = try page.rowid(at: guess)
            if r == target { return (guess, true) }
            if r < target {
                low = guess + 1
                high = n - 1
                var probes = 0
                while low < high && probes < 3 {
                    let v = try page.rowid(at: low)
                    if v >= target { return (low, v == target) }
                    low += 1
                    probes += 1
                }
            } else {
                low = 1
                high = guess
                var probes = 0
                while low < high && probes < 3 {
                    let v = try page.rowid(at: high - 1)
                    if v < target { return (high, false) }
                    if v == target { return (high - 1, true) }
                    high -= 1
                    probes += 1
                }
            }
        }
        var found = false
        while low < high {
            let mid = (low &+ high) >> 1
            let rowid = try page.rowid(at: mid)
            if rowid < target {
                low = mid + 1
            } else {
                high = mid
                if rowid == target { found = true }
            }
        }
        return (low, found && low < n)
    }

    /// The child followed from cell index `index` of an interior page.
    @inline(__always)
    func childPage(_ page: TreePage, _ index: Int) throws -> PageNumber {
        let child = index < page.cellCount ? try page.child(at: index) : page.rightChild
        guard pager.isValidPageNumber(child) else {
            throw StorageError.corrupt(page: page.number, "child pointer \(child) is out of range")
        }
        return child
    }

    /// Walks from the root to the leaf where `key` is or belongs.
    func descend(_ key: SearchKey, _ path: TreePath) throws -> (leaf: TreePage, index: Int, found: Bool) {
        try pager.prepareForRead()
        path.reset()
        var number = root
        while path.count < TreePath.maximumDepth {
            let page = try treePage(number)
            let (index, found) = try search(page, key)
            path.push(number, index)
            if page.isLeaf { return (page, index, found) }
            number = try childPage(page, index)
        }
        throw StorageError.corrupt(page: root, "tree is deeper than \(TreePath.maximumDepth) levels (pointer cycle?)")
    }

    // MARK: Building cells

    /// Builds a leaf cell for `key` (rowid, or key bytes) and `payload` into
    /// the pager's cell buffer, spilling to overflow pages when needed.
    func buildLeafCell(
        rowid: Int64, key: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer
    ) throws -> UnsafeRawBufferPointer {
        let out = pager.cellBuffer
        var p = 0
        let total: Int
        if kind == .table {
            p += Varint.write(UInt64(bitPattern: rowid), to: out)
            total = payload.count
            p += Varint.write(UInt64(total), to: out + p)
        } else {
            p += Varint.write(UInt64(key.count), to: out)
            p += Varint.write(UInt64(payload.count), to: out + p)
            total = key.count + payload.count
        }
        guard total <= TreePage.maxPayload else {
            throw StorageError.invalidArgument(
                "payload of \(total) bytes exceeds the maximum of \(TreePage.maxPayload)")
        }
        let local = pager.geometry.localLength(total)
        // Local bytes: the first `local` bytes of key ++ payload.
        let fromKey = min(local, key.count)
        if fromKey > 0 { (out + p).copyMemory(from: key.baseAddress!, byteCount: fromKey) }
        if local > fromKey { (out + p + fromKey).copyMemory(from: payload.baseAddress!, byteCount: local - fromKey) }
        p += local
        if local < total {
            let first = try pager.writeOverflow(key, payload, skip: local)
            out.setU32(p, first)
            p += 4
        }
        return UnsafeRawBufferPointer(start: out, count: p)
    }

    /// An interior cell pointing at `child` with separator `key`.
    func makeInteriorCell(child: PageNumber, rowid: Int64, key: UnsafeRawBufferPointer) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 4)
        bytes.withUnsafeMutableBytes { $0.baseAddress!.setU32(0, child) }
        if kind == .table {
            Varint.append(UInt64(bitPattern: rowid), to: &bytes)
            return bytes
        }
        Varint.append(UInt64(key.count), to: &bytes)
        let local = pager.geometry.localLength(key.count)
        bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: key[0..<local]))
        if local < key.count {
            let first = try pager.writeOverflow(key, UnsafeRawBufferPointer(start: nil, count: 0), skip: local)
            bytes.append(contentsOf: [0, 0, 0, 0])
            let at = bytes.count - 4
            bytes.withUnsafeMutableBytes { $0.baseAddress!.setU32(at, first) }
        }
        return bytes
    }

    /// Frees the overflow chain of a cell, if it has one.
    func freeOverflow(_ page: TreePage, _ cell: Cell) throws {
        guard cell.overflow != 0 else { return }
        try pager.freeOverflow(
            from: cell.overflow, length: cell.payloadLength - cell.localLength, owner: page.number)
    }

    // MARK: Insert

    /// Inserts or replaces the entry at `key`; returns whether one was replaced.
    /// Throws ``StorageError/duplicateKey`` when it exists and `replace` is false.
    func insert(
        _ searchKey: SearchKey, rowid: Int64, key: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer,
        replace: Bool
    ) throws -> Bool {
        try pager.prepareForWrite()
        let path = pager.path
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
                    pager.treeGeneration &+= 1
                    try pager.safePoint()
                    return true
                }
            }
            try freeOverflow(page, cell)
            page.removeCell(at: index, size: cell.size)
        }
        pager.treeGeneration &+= 1
        let cell = try buildLeafCell(rowid: rowid, key: key, payload: payload)
        if let split = try insertCell(cell, level: path.count - 1, index: index), kind == .table {
            try spreadAfterSplit(left: split.left, right: split.right)
        }
        try pager.safePoint()
        return found
    }

    /// After a table leaf split in the middle of a tree (only when ``balanceLeaves`` could not rebuild the leaf's
    /// neighbourhood, whose parent had no room for its separators), which leaves two half-full pages, moves cells
    /// from the fuller outer neighbours into them (left page with its left sibling, right page with its right
    /// sibling): a split then costs one page for three full ones, as in a B*-tree, instead of one for two. Each move
    /// is an ordinary redistribution between two siblings, found by a fresh descent, so the tree is valid between
    /// them.
    private func spreadAfterSplit(left: PageNumber, right: PageNumber) throws {
        try spread(right, withLeftSibling: false)
        try spread(left, withLeftSibling: true)
    }

    /// Redistributes the cells of leaf `number` and its left or right sibling (under the same parent) when the
    /// sibling has less than half the page's free space.
    private func spread(_ number: PageNumber, withLeftSibling: Bool) throws {
        let page = try treePage(number)
        guard page.isLeaf, page.cellCount > 0 else { return }
        let path = pager.path
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
        pager.treeGeneration &+= 1
        try mergeOrRedistribute(
            parentLevel: parentLevel, separator: separator, left: withLeftSibling ? sibling : number,
            right: withLeftSibling ? number : sibling)
    }

    /// Overwrites table row `rowid` in place where the last lookup found it (``Pager/rowHint``), when no tree
    /// changed since and the new cell has the old one's size, all local: no descent. Returns false, changing
    /// nothing, when it cannot.
    func replaceAtHint(rowid: Int64, payload: UnsafeRawBufferPointer) throws -> Bool {
        guard kind == .table, pager.rowHint.root == root, pager.rowHint.page != 0 else { return false }
        try pager.prepareForWrite()
        let hint = pager.rowHint
        guard hint.generation == pager.treeGeneration, pager.isValidPageNumber(hint.page) else { return false }
        let leaf = try treePage(hint.page)
        guard leaf.isLeaf, hint.index < leaf.cellCount, try leaf.rowid(at: hint.index) == rowid else { return false }
        let cell = try leaf.cell(at: hint.index)
        guard cell.overflow == 0, pager.geometry.localLength(payload.count) == payload.count else { return false }
        let replacement = try buildLeafCell(
            rowid: rowid, key: UnsafeRawBufferPointer(start: nil, count: 0), payload: payload)
        guard replacement.count == cell.size else { return false }
        let page = try writableTreePage(hint.page)
        (page.base + cell.offset).copyMemory(from: replacement.baseAddress!, byteCount: cell.size)
        pager.treeGeneration &+= 1
        try pager.safePoint()
        return true
    }

    /// Deletes table row `rowid` where the last lookup found it (``Pager/rowHint``), when no tree changed since and
    /// the leaf stays full enough to need no rebalancing (which would need the descent's path). Returns false,
    /// changing nothing, when it cannot.
    func deleteAtHint(rowid: Int64) throws -> Bool {
        guard kind == .table, pager.rowHint.root == root, pager.rowHint.page != 0 else { return false }
        try pager.prepareForWrite()
        let hint = pager.rowHint
        guard hint.generation == pager.treeGeneration, pager.isValidPageNumber(hint.page) else { return false }
        let leaf = try treePage(hint.page)
        guard leaf.isLeaf, hint.index < leaf.cellCount, try leaf.rowid(at: hint.index) == rowid else { return false }
        let cell = try leaf.cell(at: hint.index)
        guard
            hint.page == root
                || (leaf.cellCount > 1 && leaf.usedBytes - cell.size - 2 >= pager.geometry.minimumFill)
        else { return false }
        pager.treeGeneration &+= 1
        let page = try writableTreePage(hint.page)
        try freeOverflow(page, cell)
        page.removeCell(at: hint.index, size: cell.size)
        try pager.safePoint()
        return true
    }

    /// Inserts `cell` at `index` of the page at `level` of the path,
    /// splitting pages up the path as needed. Returns the two pages of a leaf split away from the right edge.
    @discardableResult
    func insertCell(
        _ cell: UnsafeRawBufferPointer, level: Int, index: Int
    ) throws -> (left: PageNumber, right: PageNumber)? {
        let path = pager.path
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
    private func deepenRoot() throws {
        let path = pager.path
        let child = try pager.allocatePage()
        let childImage = try pager.writablePage(child)
        let rootPage = try writableTreePage(root)
        childImage.copyMemory(from: rootPage.base, byteCount: pager.pageSize)
        rootPage.initialize(kind.interiorType)
        rootPage.setRightChild(child)
        path.insert(child, path.indices[0], at: 1)
        path.indices[0] = 0
    }

    /// Instead of splitting a full leaf, spreads its cells and the new one
    /// over the leaf and a sibling with room (for a table a sixteenth of a page or room for four cells of the new
    /// one's size, whichever is more; a quarter of a page for an index), which keeps leaves fuller under random
    /// inserts. Returns whether it did.
    private func shiftToSibling(level: Int, index: Int, cell: UnsafeRawBufferPointer) throws -> Bool {
        let path = pager.path
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

    /// How many siblings on each side of a table leaf ``balanceLeaves`` takes in: up to five pages in all.
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
    private func balanceLeaves(level: Int, extra: (cell: UnsafeRawBufferPointer, index: Int)?) throws -> Bool {
        precondition(kind == .table, "multi-page balance is for table leaves")
        let path = pager.path
        guard level >= 1 else { return false }
        let geometry = pager.geometry
        let pageSize = pager.pageSize
        let parentLevel = level - 1
        let parentNumber = path.pages[parentLevel]
        let childIndex = path.indices[parentLevel]
        var numbers: [PageNumber] = []
        var lo = 0
        do {
            let parent = try treePage(parentNumber)
            let childCount = parent.cellCount + 1
            let width = 2 * BTree.balanceReach + 1
            lo = max(0, childIndex - BTree.balanceReach)
            let hi = min(childCount, lo + width)
            lo = max(0, hi - width)
            numbers.reserveCapacity(hi - lo + 1)
            for i in lo..<hi { numbers.append(try childPage(parent, i)) }
        }
        let m = numbers.count
        guard numbers[childIndex - lo] == path.pages[level] else {
            throw StorageError.corrupt(page: parentNumber, "child \(childIndex) is not the page descended into")
        }
        if extra == nil && m < 2 { return false }

        // Copies of the window's pages (and of the new cell), which the rebuilt pages are filled from.
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: (m + 1) * pageSize, alignment: 16)
        defer { buffer.deallocate() }
        var items: [UnsafeRawBufferPointer] = []
        var leafType = PageType.tableLeaf
        var extraPosition = 0
        for (j, number) in numbers.enumerated() {
            let page = try treePage(number)
            guard page.isLeaf else {
                throw StorageError.corrupt(page: number, "sibling of a leaf is not a leaf")
            }
            leafType = page.type
            let copy = buffer + j * pageSize
            copy.copyMemory(from: page.base, byteCount: pageSize)
            let old = TreePage(unchecked: number, base: copy, geometry: geometry)
            if j == childIndex - lo { extraPosition = items.count + (extra?.index ?? 0) }
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
        guard !items.isEmpty else { return false }

        // How many pages: the fewest that hold the cells packed in order, and one more than the window on overflow.
        let area = geometry.usableEnd - TreeGeometry.headerSize
        var total = 0
        var pageCount = 1
        var running = 0
        for item in items {
            let size = item.count + 2
            if running + size > area {
                pageCount += 1
                running = 0
            }
            running += size
            total += size
        }
        if extra != nil { pageCount = max(pageCount, m + 1) }
        pageCount = min(pageCount, items.count)
        // Even cuts: page j ends where the running total passes (j + 1) / pageCount of the bytes.
        var starts = [0]
        starts.reserveCapacity(pageCount + 1)
        running = 0
        var cumulative = 0
        for (i, item) in items.enumerated() {
            let size = item.count + 2
            if running > 0 && starts.count < pageCount
                && (running + size > area || (2 * cumulative + size) * pageCount > 2 * total * starts.count)
            {
                starts.append(i)
                running = 0
            }
            running += size
            cumulative += size
        }
        guard running <= area else { return false }
        starts.append(items.count)
        let k = starts.count - 1

        // The separators: after each new page but the last, the rowid of its last cell. The last page takes the
        // place of the window's last page, whose separator in the parent (or right-child slot) stays.
        var separators: [[UInt8]] = []
        separators.reserveCapacity(k)
        var needed = 0
        for j in 0..<(k - 1) {
            let separator = try leafSeparator(left: items[starts[j + 1] - 1], right: items[starts[j + 1]], child: 0)
            if j > 0 { needed += separator.count + 2 }
            separators.append(separator)
        }
        do {
            // Every separator but the first must fit in the parent directly; the first may split it.
            let parent = try treePage(parentNumber)
            var available = parent.freeBytes
            for i in lo..<(lo + m - 1) { available += try parent.cellSize(at: i) + 2 }
            guard needed <= available else { return false }
        }

        // Rebuild the pages: the window's own first, then a new one, or free those no longer needed.
        var pages = numbers
        while pages.count < k { pages.append(try pager.allocatePage()) }
        for j in 0..<k {
            let page = TreePage(unchecked: pages[j], base: try pager.writablePage(pages[j]), geometry: geometry)
            try fill(page, leafType, items[starts[j]..<starts[j + 1]])
        }
        for j in min(k, m)..<m { try pager.freePage(pages[j]) }

        // Update the parent: drop the window's separators, point the last slot at the last page, insert the new ones.
        let parent = try writableTreePage(parentNumber)
        for i in stride(from: lo + m - 2, through: lo, by: -1) {
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
                throw StorageError.corrupt(page: parentNumber, "separators do not fit in the parent")
            }
            j -= 1
        }
        let depth = path.count
        if k >= 2 {
            separators[0].withUnsafeMutableBytes { $0.baseAddress!.setU32(0, pages[0]) }
            path.indices[parentLevel] = lo
            _ = try separators[0].withUnsafeBytes { try insertCell($0, level: parentLevel, index: lo) }
        }
        if extra != nil { pager.leafBalances.overflow += 1 } else { pager.leafBalances.underflow += 1 }
        // Fewer pages: the parent lost separators and may be underfull (a root split above shifts its level).
        if k < m { try rebalance(level: parentLevel + path.count - depth) }
        return true
    }

    /// Whether every page above `level` was entered through its right child.
    private func isRightEdge(below level: Int) throws -> Bool {
        let path = pager.path
        for l in 0..<level where try path.indices[l] != treePage(path.pages[l]).cellCount {
            return false
        }
        return true
    }

    /// Splits the full page at `level` while inserting `cell` at `index`.
    /// The page keeps the lower half; returns the new right page and the
    /// separator cell (pointing at the kept page) for the parent.
    private func split(
        level: Int, index: Int, cell: UnsafeRawBufferPointer, append: Bool
    ) throws -> (right: PageNumber, separator: [UInt8]) {
        let path = pager.path
        let number = path.pages[level]
        if append, let quick = try appendSplit(number, cell: cell) { return quick }
        let copy = pager.scratch
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
    private func appendSplit(
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
    private func balancedSplit(_ items: [UnsafeRawBufferPointer], promote: Bool) -> Int? {
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

    /// Rewrites `page` as a page of `type` holding `cells` in order (and a zero right child): the cells are laid out
    /// from the end of the content area down, as inserting them one by one would, then the header and pointers are
    /// written and the gap between pointers and cells is zeroed. Every byte before the trailer is written once, so the
    /// page needs no initializing first (and no stale data lingers in its free space). The cells must not point into
    /// the page itself.
    private func fill<C: Collection>(
        _ page: TreePage, _ type: PageType, _ cells: C
    ) throws where C.Element == UnsafeRawBufferPointer {
        let base = page.base
        var i = 0
        var start = pager.geometry.usableEnd
        for cell in cells {
            let size = cell.count
            guard start - size >= TreeGeometry.headerSize + 2 * (i + 1) else {
                throw StorageError.corrupt(page: page.number, "cells do not fit while rebuilding the page")
            }
            start -= size
            if size > 0 { copyCell(to: base + start, from: cell.baseAddress!, count: size) }
            base.setU16(TreeGeometry.headerSize + 2 * i, start)
            i += 1
        }
        let gap = TreeGeometry.headerSize + 2 * i
        (base + gap).initializeMemory(as: UInt8.self, repeating: 0, count: start - gap)
        base.initializeMemory(as: UInt8.self, repeating: 0, count: TreeGeometry.headerSize)
        base.setU8(0, type.rawValue)
        base.setU16(2, i)
        base.setU16(4, start)
    }

    /// The separator between two adjacent leaf cells, pointing at `child`:
    /// the left cell's rowid, or the shortest key ≥ the left key and < the right key.
    private func leafSeparator(
        left: UnsafeRawBufferPointer, right: UnsafeRawBufferPointer, child: PageNumber
    ) throws -> [UInt8] {
        let leftKey = try leafCellKey(left)
        if kind == .table {
            return try makeInteriorCell(
                child: child, rowid: leftKey.rowid, key: UnsafeRawBufferPointer(start: nil, count: 0))
        }
        let rightKey = try leafCellKey(right)
        return try leftKey.bytes.withUnsafeBytes { l in
            try rightKey.bytes.withUnsafeBytes { r in
                // Shortest prefix of the right key that is greater than the left key.
                var common = 0
                while common < l.count && common < r.count && l[common] == r[common] { common += 1 }
                let length = common + 1
                if length < r.count {
                    return try makeInteriorCell(
                        child: child, rowid: 0, key: UnsafeRawBufferPointer(rebasing: r[0..<length]))
                }
                return try makeInteriorCell(child: child, rowid: 0, key: l)
            }
        }
    }

    /// The key of a leaf cell given as raw bytes (rowid, or key bytes read
    /// through the overflow chain when needed).
    private func leafCellKey(_ cell: UnsafeRawBufferPointer) throws -> (rowid: Int64, bytes: [UInt8]) {
        let base = cell.baseAddress!
        if kind == .table {
            guard let r = Varint.read(base, at: 0, limit: cell.count) else {
                throw StorageError.malformed("leaf cell rowid")
            }
            return (Int64(bitPattern: r.value), [])
        }
        guard let k = Varint.read(base, at: 0, limit: cell.count),
            let v = Varint.read(base, at: k.length, limit: cell.count)
        else { throw StorageError.malformed("leaf cell lengths") }
        guard k.value <= UInt64(TreePage.maxPayload), v.value <= UInt64(TreePage.maxPayload) - k.value else {
            throw StorageError.malformed("leaf cell lengths")
        }
        let keyLength = Int(k.value)
        let total = keyLength + Int(v.value)
        let local = pager.geometry.localLength(total)
        let start = k.length + v.length
        if keyLength <= local {
            return (0, [UInt8](UnsafeRawBufferPointer(start: base + start, count: keyLength)))
        }
        var bytes = [UInt8](UnsafeRawBufferPointer(start: base + start, count: local))
        let first = base.u32(start + local)
        try pager.readOverflow(
            from: first, length: total - local, owner: pager.path.count > 0 ? pager.path.leafPage : 0
        ) { chunk in
            let n = min(keyLength - bytes.count, chunk.count)
            if n > 0 { bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[0..<n])) }
        }
        return (0, bytes)
    }

    // MARK: Delete

    /// Deletes the entry at `key`; returns whether there was one.
    func delete(_ searchKey: SearchKey) throws -> Bool {
        try pager.prepareForWrite()
        let path = pager.path
        let (leaf, index, found) = try descend(searchKey, path)
        guard found else { return false }
        pager.treeGeneration &+= 1
        let page = try writableTreePage(leaf.number)
        let cell = try page.cell(at: index)
        try freeOverflow(page, cell)
        page.removeCell(at: index, size: cell.size)
        try rebalance(level: path.count - 1)
        try pager.safePoint()
        return true
    }

    /// Restores fill after a removal at `level`: merges an underfull page
    /// with a sibling, or redistributes cells between them.
    private func rebalance(level: Int) throws {
        let path = pager.path
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
    private func collapseRoot() throws {
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

    /// Merges two sibling pages, or redistributes their cells evenly, and
    /// updates the separator between them in the parent. With `extra`, a new
    /// leaf cell joins the cells at `position` (an insert that found its page
    /// full) and the pages are never merged. Returns false, changing nothing,
    /// when `extra` is given and no even split fits.
    @discardableResult
    private func mergeOrRedistribute(
        parentLevel: Int, separator: Int, left leftNumber: PageNumber, right rightNumber: PageNumber,
        extra: (cell: UnsafeRawBufferPointer, position: Int)? = nil
    ) throws -> Bool {
        let geometry = pager.geometry
        let leftCopy = pager.scratch
        let rightCopy = pager.scratch2
        leftCopy.copyMemory(from: try treePage(leftNumber).base, byteCount: pager.pageSize)
        rightCopy.copyMemory(from: try treePage(rightNumber).base, byteCount: pager.pageSize)
        let leftOld = TreePage(unchecked: leftNumber, base: leftCopy, geometry: geometry)
        let rightOld = TreePage(unchecked: rightNumber, base: rightCopy, geometry: geometry)
        guard leftOld.type == rightOld.type else {
            throw StorageError.corrupt(
                page: rightNumber, "sibling pages \(leftNumber) and \(rightNumber) differ in type")
        }
        let isLeaf = leftOld.isLeaf
        let parent = try writableTreePage(pager.path.pages[parentLevel])
        let separatorCell = try parent.cell(at: separator)
        var pulledDown = [UInt8](
            UnsafeRawBufferPointer(start: parent.base + separatorCell.offset, count: separatorCell.size))
        if !isLeaf {
            pulledDown.withUnsafeMutableBytes { $0.baseAddress!.setU32(0, leftOld.rightChild) }
        }
        var items: [UnsafeRawBufferPointer] = []
        items.reserveCapacity(leftOld.cellCount + rightOld.cellCount + 2)
        for i in 0..<leftOld.cellCount {
            let size = try leftOld.cellSize(at: i)
            items.append(UnsafeRawBufferPointer(start: leftCopy + leftOld.cellOffset(i), count: size))
        }
        let outcome = try pulledDown.withUnsafeBytes { pulled -> (done: Bool, merged: Bool) in
            if !isLeaf { items.append(pulled) }
            for i in 0..<rightOld.cellCount {
                let size = try rightOld.cellSize(at: i)
                items.append(UnsafeRawBufferPointer(start: rightCopy + rightOld.cellOffset(i), count: size))
            }
            if let extra { items.insert(extra.cell, at: extra.position) }
            let total = items.reduce(0) { $0 + $1.count + 2 }
            let area = geometry.usableEnd - TreeGeometry.headerSize
            if total <= area && extra == nil {
                // Merge everything into the left page; drop the right page.
                let left = try writableTreePage(leftNumber)
                try fill(left, leftOld.type, items)
                left.setRightChild(rightOld.rightChild)
                if isLeaf { try freeOverflow(parent, separatorCell) }
                parent.removeCell(at: separator, size: separatorCell.size)
                if separator < parent.cellCount {
                    parent.setChild(at: separator, leftNumber)
                } else {
                    parent.setRightChild(leftNumber)
                }
                try pager.freePage(rightNumber)
                return (true, true)
            }
            // Redistribute between the two pages.
            guard let k = balancedSplit(items, promote: !isLeaf) else {
                if extra != nil { return (false, false) }
                throw StorageError.corrupt(page: leftNumber, "sibling cells cannot be redistributed")
            }
            let left = try writableTreePage(leftNumber)
            let right = try writableTreePage(rightNumber)
            var newSeparator: [UInt8]
            if isLeaf {
                try fill(left, leftOld.type, items[0..<k])
                try fill(right, leftOld.type, items[k...])
                newSeparator = try leafSeparator(left: items[k - 1], right: items[k], child: leftNumber)
                try freeOverflow(parent, separatorCell)
            } else {
                try fill(left, leftOld.type, items[0..<k])
                try fill(right, leftOld.type, items[(k + 1)...])
                left.setRightChild(items[k].baseAddress!.u32(0))
                right.setRightChild(rightOld.rightChild)
                newSeparator = [UInt8](items[k])
                newSeparator.withUnsafeMutableBytes { $0.baseAddress!.setU32(0, leftNumber) }
            }
            if newSeparator.count == separatorCell.size {
                // Same size: overwrite the separator in place, which leaves no fragment in the parent.
                newSeparator.withUnsafeBytes {
                    (parent.base + separatorCell.offset).copyMemory(from: $0.baseAddress!, byteCount: $0.count)
                }
                return (true, false)
            }
            parent.removeCell(at: separator, size: separatorCell.size)
            // Reinsert the separator; the path above the parent is still valid.
            pager.path.indices[parentLevel] = separator
            _ = try newSeparator.withUnsafeBytes { try insertCell($0, level: parentLevel, index: separator) }
            return (true, false)
        }
        // A merge took a cell from the parent, which may now be underfull.
        if outcome.merged { try rebalance(level: parentLevel) }
        return outcome.done
    }
}
