// Ordered traversal of one B+tree.

/// A position in a table or index tree, moving in key order.
///
/// A cursor survives changes made to its tree (through the tree's own insert,
/// replace and delete): the next move re-seeks from the key it was on, so a
/// caller can delete the current entry and continue with ``next()``.
public final class TreeCursor {
    let tree: BTree
    /// The tree's pager, held here because every move reads it several times and `tree` only reaches it
    /// through its context.
    private let pager: Pager
    /// The pager's stop requests, unretained (``pager`` keeps them alive): reading them through `pager` (or an
    /// `unowned(unsafe)` reference) cost a retain and a release per check.
    private let interruption: Unmanaged<InterruptFlag>
    private let path = TreePath()
    /// Whether the cursor is on an entry.
    @exclusivity(unchecked) public private(set) var isValid = false
    @exclusivity(unchecked) private var generation: UInt64 = 0
    @exclusivity(unchecked) private var currentRowid: Int64 = 0
    @exclusivity(unchecked) private var currentKey: [UInt8] = []
    /// The current leaf, valid while the pager's cache epoch equals `leafEpoch`.
    @exclusivity(unchecked) private var leaf: TreePage?
    @exclusivity(unchecked) private var leafEpoch: UInt64 = 0
    /// The parsed cell of the current entry, valid while `leaf` is and `cellIndex` is the leaf index.
    @exclusivity(unchecked) private var cell = Cell()
    @exclusivity(unchecked) private var cellIndex = -1

    init(tree: BTree) {
        self.tree = tree
        self.pager = tree.pager
        interruption = Unmanaged.passUnretained(tree.pager.interruption)
    }

    /// Throws ``StorageError/interrupted`` when a stop was requested.
    @inline(__always)
    private func checkInterruption() throws {
        try interruption._withUnsafeGuaranteedRef { try $0.check() }
    }

    /// The rowid of the current entry (table trees).
    public var rowid: Int64 { currentRowid }

    /// The key bytes of the current entry (index trees).
    public var key: [UInt8] { currentKey }

    // MARK: Positioning

    /// Moves to the first entry; returns whether there is one.
    @discardableResult
    public func first() throws -> Bool {
        try pager.prepareForRead()
        try checkInterruption()
        try pager.safePoint()
        path.reset()
        try descendToEdge(from: tree.root, rightmost: false)
        return try settleForward()
    }

    /// Moves to the last entry; returns whether there is one.
    @discardableResult
    public func last() throws -> Bool {
        try pager.prepareForRead()
        try checkInterruption()
        try pager.safePoint()
        path.reset()
        try descendToEdge(from: tree.root, rightmost: true)
        return try settleBackward()
    }

    /// Moves to the entry with `rowid`; returns whether it exists (the
    /// cursor is invalid otherwise).
    @discardableResult
    public func seek(rowid: Int64) throws -> Bool {
        let found = try seek(.rowid(rowid))
        if !found { isValid = false }
        return found
    }

    /// Moves to the first entry whose rowid is ≥ `rowid`; returns whether there is one.
    @discardableResult
    public func seek(atOrAfter rowid: Int64) throws -> Bool {
        _ = try seek(.rowid(rowid))
        return isValid
    }

    /// Moves to the entry with `key`; returns whether it exists.
    @discardableResult
    public func seek(key: [UInt8]) throws -> Bool {
        let found = try key.withUnsafeBytes { try seek(.bytes($0)) }
        if !found { isValid = false }
        return found
    }

    /// Moves to the first entry whose key is ≥ `key`; returns whether there is one.
    @discardableResult
    public func seek(atOrAfter key: [UInt8]) throws -> Bool {
        _ = try key.withUnsafeBytes { try seek(.bytes($0)) }
        return isValid
    }

    /// ``seek(atOrAfter:)-([UInt8])`` for a key that is likely on the cursor's current leaf, a little ahead: the
    /// entry is looked for there first (see ``seekInLeaf(atOrAfter:)``), then from the root. For the repeated
    /// searches of a nested loop; a lone search is better served by ``seek(atOrAfter:)-([UInt8])``, which does
    /// not spend the two comparisons that find the key elsewhere.
    @discardableResult
    public func seekNearby(atOrAfter key: [UInt8]) throws -> Bool {
        try key.withUnsafeBytes { target in
            if try !seekInLeaf(atOrAfter: target) { _ = try seek(.bytes(target)) }
        }
        return isValid
    }

    /// Moves to the next entry; returns whether there is one.
    @discardableResult
    public func next() throws -> Bool {
        guard isValid else { return false }
        try pager.prepareForRead()
        if let leaf, generation == tree.context.generation, leafEpoch == pager.cacheEpoch {
            // Fast path: the next entry is in the same, still cached leaf.
            let index = path.indices[path.count - 1] + 1
            if index < leaf.cellCount {
                path.indices[path.count - 1] = index
                if tree.kind == .table {
                    cell = try leaf.cell(at: index)
                    cellIndex = index
                    currentRowid = cell.rowid
                    return true
                }
                return try load(leaf)
            }
        }
        // Leaving the leaf: the place where a long scan notices a stop request.
        try checkInterruption()
        try pager.safePoint()
        if generation != tree.context.generation {
            // The tree changed: find our place again from the saved key.
            let found = try reseek()
            if !found { return isValid }
        }
        path.indices[path.count - 1] += 1
        return try settleForward()
    }

    /// Moves to the previous entry; returns whether there is one.
    @discardableResult
    public func previous() throws -> Bool {
        guard isValid else { return false }
        try pager.prepareForRead()
        // Leaving the leaf (or finding our place again): where a long backward scan notices a stop request, as
        // a forward one does in next().
        if path.indices[path.count - 1] <= 0 || generation != tree.context.generation { try checkInterruption() }
        try pager.safePoint()
        if generation != tree.context.generation {
            _ = try reseek()
            if !isValid { return try last() }
        }
        path.indices[path.count - 1] -= 1
        return try settleBackward()
    }

    // MARK: Reading the current entry

    /// Calls `body` with the current entry's payload (table trees: the row;
    /// index trees: the value stored with the key).
    public func withPayload<R>(_ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        let (page, cell) = try currentCell()
        if tree.kind == .table {
            return try tree.withPayload(page, cell, body)
        }
        return try tree.withPayload(page, cell) { record in
            try body(UnsafeRawBufferPointer(rebasing: record[cell.keyLength...]))
        }
    }

    /// The current entry's payload when the page holds all of it (no overflow pages), else nil; for a table tree
    /// the row, for an index tree the value stored with the key. The bytes are the page's own: they stay valid
    /// until the cursor or its tree is used again (read them at once, as ``withPayload(_:)`` does).
    public func localPayload() throws -> UnsafeRawBufferPointer? {
        let (page, cell) = try currentCell()
        guard cell.localLength == cell.payloadLength else { return nil }
        let payload = UnsafeRawBufferPointer(start: page.base + cell.localOffset, count: cell.payloadLength)
        if tree.kind == .table { return payload }
        return UnsafeRawBufferPointer(rebasing: payload[cell.keyLength...])
    }

    /// The current entry's payload (see ``withPayload(_:)``).
    public func payload() throws -> [UInt8] {
        try withPayload { [UInt8]($0) }
    }

    /// Calls `body` with the current entry's key bytes (index trees).
    public func withKey<R>(_ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        try currentKey.withUnsafeBytes(body)
    }

    // MARK: Internals

    private func currentCell() throws -> (TreePage, Cell) {
        guard isValid else { throw StorageError.invalidArgument("cursor is not on an entry") }
        try pager.prepareForRead()
        if generation != tree.context.generation {
            guard try reseek() else { throw StorageError.cursorInvalidated }
        }
        let index = path.indices[path.count - 1]
        if let leaf, leafEpoch == pager.cacheEpoch, index < leaf.cellCount {
            if index == cellIndex { return (leaf, cell) }
            return (leaf, try leaf.cell(at: index))
        }
        let page = try tree.treePage(path.pages[path.count - 1])
        guard index < page.cellCount else { throw StorageError.cursorInvalidated }
        return (page, try page.cell(at: index))
    }

    private func seek(_ key: SearchKey) throws -> Bool {
        try pager.prepareForRead()
        try checkInterruption()
        try pager.safePoint()
        let (leaf, index, found) = try tree.descend(key, path)
        // On the leaf the search stopped in (the common case) the entry is loaded straight from it.
        if index < leaf.cellCount { return try load(leaf) && found }
        let valid = try settleForward()
        return found && valid
    }

    /// Moves to the first entry whose key is ≥ `target` when the current leaf holds it, without descending from
    /// the root; false, with the cursor unmoved, when it cannot tell (then ``seek(_:)`` finds it).
    ///
    /// A nested loop that searches an index once per outer row with keys that mostly grow (a join on an indexed
    /// column read in order) finds the next key where the last search stopped, or a few entries further on the
    /// same leaf: two key comparisons and a search of the rest of the leaf replace a descent. The leaf must be
    /// the one the cursor stands on, unchanged since (same tree generation, page still cached). The answer is
    /// in it when the entry before the cursor's is below `target` and the leaf's last entry is not.
    private func seekInLeaf(atOrAfter target: UnsafeRawBufferPointer) throws -> Bool {
        guard isValid, tree.kind == .index, let leaf, generation == tree.context.generation else { return false }
        try pager.prepareForRead()
        try checkInterruption()
        try pager.safePoint()
        guard leafEpoch == pager.cacheEpoch else { return false }
        let count = leaf.cellCount
        let current = path.indices[path.count - 1]
        guard current >= 0, current < count else { return false }
        let key = SearchKey.bytes(target)
        if currentKey.withUnsafeBytes({ compareBytes($0, target) }) >= 0 {
            // At or after the target: the current entry is the answer when the one before it is below the target.
            guard current > 0 else { return false }
            return try tree.compare(leaf, current - 1, key) < 0
        }
        // After the current entry: on this leaf when its last key is at or above the target.
        guard try tree.compare(leaf, count - 1, key) >= 0 else { return false }
        // The first entry at or above the target, in current + 1 ... count − 1 (the last one is).
        var low = current + 1
        var high = count - 1
        while low < high {
            let middle = (low &+ high) >> 1
            if try tree.compare(leaf, middle, key) < 0 { low = middle + 1 } else { high = middle }
        }
        path.indices[path.count - 1] = low
        return try load(leaf)
    }

    /// Re-finds the saved key; returns whether it is still present.
    private func reseek() throws -> Bool {
        if tree.kind == .table {
            return try seek(.rowid(currentRowid))
        }
        let saved = currentKey
        return try saved.withUnsafeBytes { try seek(.bytes($0)) }
    }

    /// Walks from `number` down to the leftmost or rightmost leaf, extending the path.
    private func descendToEdge(from number: PageNumber, rightmost: Bool) throws {
        var number = number
        while path.count < TreePath.maximumDepth {
            let page = try tree.treePage(number)
            if page.isLeaf {
                path.push(number, rightmost ? page.cellCount - 1 : 0)
                return
            }
            let index = rightmost ? page.cellCount : 0
            path.push(number, index)
            number = try tree.childPage(page, index)
        }
        throw StorageError.corrupt(page: tree.root, "tree is deeper than \(TreePath.maximumDepth) levels")
    }

    /// After the leaf index was set or advanced: if it is past the leaf's end,
    /// climb and descend to the next leaf. Loads the current key.
    private func settleForward() throws -> Bool {
        while true {
            let leafLevel = path.count - 1
            let leaf = try tree.treePage(path.pages[leafLevel])
            if path.indices[leafLevel] < leaf.cellCount { return try load(leaf) }
            // Climb to the first ancestor with a child to the right.
            var level = leafLevel - 1
            while level >= 0 {
                let page = try tree.treePage(path.pages[level])
                if path.indices[level] < page.cellCount { break }
                level -= 1
            }
            guard level >= 0 else {
                isValid = false
                self.leaf = nil
                return false
            }
            path.truncate(to: level + 1)
            path.indices[level] += 1
            let page = try tree.treePage(path.pages[level])
            try descendToEdge(from: try tree.childPage(page, path.indices[level]), rightmost: false)
        }
    }

    /// Like ``settleForward()`` for backward moves (index may be −1).
    private func settleBackward() throws -> Bool {
        while true {
            let leafLevel = path.count - 1
            let leaf = try tree.treePage(path.pages[leafLevel])
            let index = path.indices[leafLevel]
            if index >= 0 && index < leaf.cellCount { return try load(leaf) }
            var level = leafLevel - 1
            while level >= 0 && path.indices[level] == 0 { level -= 1 }
            guard level >= 0 else {
                isValid = false
                self.leaf = nil
                return false
            }
            path.truncate(to: level + 1)
            path.indices[level] -= 1
            let page = try tree.treePage(path.pages[level])
            try descendToEdge(from: try tree.childPage(page, path.indices[level]), rightmost: true)
        }
    }

    private func load(_ leaf: TreePage) throws -> Bool {
        let index = path.indices[path.count - 1]
        cellIndex = -1
        cell = try leaf.cell(at: index)
        cellIndex = index
        if tree.kind == .table {
            currentRowid = cell.rowid
        } else {
            try tree.withKey(leaf, cell) { key in
                // Neighbouring keys often have the same length: then the bytes are copied over the last key's in
                // place, which costs less than emptying the array and appending them.
                if !key.isEmpty, key.count == currentKey.count, let source = key.baseAddress {
                    currentKey.withUnsafeMutableBytes { $0.baseAddress!.copyMemory(from: source, byteCount: key.count) }
                } else {
                    currentKey.removeAll(keepingCapacity: true)
                    currentKey.append(contentsOf: key)
                }
            }
        }
        generation = tree.context.generation
        self.leaf = leaf
        leafEpoch = pager.cacheEpoch
        isValid = true
        return true
    }
}

/// A cursor over a table tree.
public typealias TableCursor = TreeCursor
/// A cursor over an index tree.
public typealias IndexCursor = TreeCursor
