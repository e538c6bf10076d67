// Finding a key: the search within one page and the descent from the root to a leaf.

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

extension BTree {
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

    /// Where the last lookup found table row `rowid` (``TreeContext/rowHint``), prepared for a change in place:
    /// the leaf, the hint and the row's cell; nil when the hint is for another tree or row, or any tree changed
    /// since. Used by the in-place replace and delete, which skip the descent.
    @inline(__always)
    func hintedCell(rowid: Int64) throws -> (leaf: TreePage, hint: RowHint, cell: Cell)? {
        guard kind == .table, context.rowHint.root == root, context.rowHint.page != 0 else { return nil }
        try pager.prepareForWrite()
        let hint = context.rowHint
        guard hint.generation == context.generation, pager.isValidPageNumber(hint.page) else { return nil }
        let leaf = try treePage(hint.page)
        guard leaf.isLeaf, hint.index < leaf.cellCount, try leaf.rowid(at: hint.index) == rowid else { return nil }
        return (leaf, hint, try leaf.cell(at: hint.index))
    }
}
