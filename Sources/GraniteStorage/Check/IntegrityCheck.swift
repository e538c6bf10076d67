// A full structural check of a database file: every page accounted for once,
// every tree ordered and balanced, every chain and freelist well formed.

/// What one page of the file is used for, as found by an integrity check.
public struct PageOwner: Equatable, Sendable {
    /// The page's role.
    public var type: PageType?
    /// The tree the page belongs to (nil for the header and freelist pages;
    /// "(catalog)" for the catalog tree).
    public var tree: String?
    /// Depth in its tree (0 = root); overflow pages take their cell's depth.
    public var depth: Int
    /// Whether the page is a free page listed by a freelist trunk.
    public var isFreeLeaf: Bool
}

/// The shape of one tree, as found by an integrity check.
public struct TreeStatistics: Equatable, Sendable {
    /// The tree's catalog entry.
    public var info: TreeInfo
    /// The number of levels (1 = the root is a leaf).
    public var depth = 0
    /// Entries in the leaves.
    public var entries = 0
    /// Leaf, interior and overflow page counts.
    public var leafPages = 0
    public var interiorPages = 0
    public var overflowPages = 0
    /// Bytes used by cells and pointers over bytes available, for leaves.
    public var leafBytesUsed = 0
    public var leafBytesAvailable = 0
    /// Sum of children over interior pages (for the average fan-out).
    public var children = 0

    /// Average children per interior page.
    public var averageFanOut: Double { interiorPages == 0 ? 0 : Double(children) / Double(interiorPages) }
    /// Average fill of leaf pages, 0...1.
    public var leafFill: Double { leafBytesAvailable == 0 ? 0 : Double(leafBytesUsed) / Double(leafBytesAvailable) }
}

/// The result of ``StorageEngine/checkIntegrity()``.
public struct IntegrityReport: Sendable {
    /// Every problem found, each naming its page; empty when the file is sound.
    public var problems: [String] = []
    /// The role of each page, indexed by page number (index 0 unused).
    public var owners: [PageOwner?] = []
    /// Statistics of the catalog and of each tree.
    public var trees: [TreeStatistics] = []

    /// Whether no problem was found.
    public var isOK: Bool { problems.isEmpty }
}

extension StorageEngine {
    /// Checks the whole file; problems are reported, not thrown, so that one
    /// damaged page does not hide the others. Checks what the transaction in progress sees (its own changes
    /// included); with none in progress, begins a read transaction for the check and ends it after.
    ///
    /// With `trees`, only the trees of those names are checked, and not the freelist nor whether every page is
    /// accounted for (which needs every tree): a check of one table and its indexes.
    public func checkIntegrity(maxProblems: Int = 100, trees: Set<String>? = nil) -> IntegrityReport {
        let ownRead: ReadTransaction?
        do {
            ownRead = isInTransaction ? nil : try beginRead()
        } catch {
            return IntegrityReport(problems: ["cannot begin a read transaction: \(error)"])
        }
        defer { try? ownRead?.commit() }
        var checker = IntegrityChecker(context: treeContext, maxProblems: maxProblems)
        if let trees { checker.run(only: trees) } else { checker.run() }
        return checker.report
    }
}

private enum Bound {
    case rowid(Int64)
    case bytes([UInt8])

    func compare(_ other: Bound) -> Int {
        switch (self, other) {
        case (.rowid(let a), .rowid(let b)): return a < b ? -1 : (a == b ? 0 : 1)
        case (.bytes(let a), .bytes(let b)):
            return a.withUnsafeBytes { x in b.withUnsafeBytes { y in compareBytes(x, y) } }
        default: return 0
        }
    }
}

private struct IntegrityChecker {
    let context: TreeContext
    var pager: Pager { context.pager }
    let maxProblems: Int
    var report = IntegrityReport()

    init(context: TreeContext, maxProblems: Int) {
        self.context = context
        self.maxProblems = maxProblems
        report.owners = Array(repeating: nil, count: Int(pager.pageCount) + 1)
    }

    mutating func problem(_ text: String) {
        if report.problems.count < maxProblems { report.problems.append(text) }
    }

    /// Records the owner of a page; false when it was already claimed.
    mutating func claim(_ number: PageNumber, _ owner: PageOwner) -> Bool {
        guard number >= 1, Int(number) < report.owners.count else {
            problem("page \(number) is out of range (page count \(pager.pageCount))")
            return false
        }
        if let previous = report.owners[Int(number)] {
            problem(
                "page \(number) is used twice: by \(previous.tree ?? "freelist") and by \(owner.tree ?? "freelist")")
            return false
        }
        report.owners[Int(number)] = owner
        return true
    }

    mutating func run() {
        _ = claim(1, PageOwner(type: .header, tree: nil, depth: 0, isFreeLeaf: false))
        // Freelist.
        do {
            let (trunks, leaves) = try pager.freelistPages()
            for t in trunks { _ = claim(t, PageOwner(type: .freelistTrunk, tree: nil, depth: 0, isFreeLeaf: false)) }
            for l in leaves { _ = claim(l, PageOwner(type: nil, tree: nil, depth: 0, isFreeLeaf: true)) }
        } catch {
            problem("freelist: \(error)")
        }
        // Catalog, then every tree it lists.
        let catalogInfo = TreeInfo(name: "(catalog)", kind: .index, root: pager.header.catalogRoot)
        checkTree(catalogInfo)
        do {
            for info in try Catalog(context: context).all() { checkTree(info) }
        } catch {
            problem("catalog: \(error)")
        }
        for n in 2..<max(report.owners.count, 2) where report.owners[n] == nil {
            problem("page \(n) is neither in a tree nor on the freelist (leaked)")
        }
        try? pager.safePoint()
    }

    /// Checks the trees named `names` alone.
    mutating func run(only names: Set<String>) {
        do {
            for info in try Catalog(context: context).all() where names.contains(info.name) { checkTree(info) }
        } catch {
            problem("catalog: \(error)")
        }
        try? pager.safePoint()
    }

    mutating func checkTree(_ info: TreeInfo) {
        var stats = TreeStatistics(info: info)
        var leafDepth: Int? = nil
        let tree = BTree(context: context, root: info.root, kind: info.kind)
        checkPage(tree, info.root, depth: 0, lower: nil, upper: nil, stats: &stats, leafDepth: &leafDepth)
        stats.depth = (leafDepth ?? 0) + 1
        report.trees.append(stats)
    }

    func key(_ tree: BTree, _ page: TreePage, _ cell: Cell) throws -> Bound {
        if tree.kind == .table { return .rowid(cell.rowid) }
        return .bytes(try tree.withKey(page, cell) { [UInt8]($0) })
    }

    mutating func checkPage(
        _ tree: BTree, _ number: PageNumber, depth: Int, lower: Bound?, upper: Bound?,
        stats: inout TreeStatistics, leafDepth: inout Int?
    ) {
        guard report.problems.count < maxProblems else { return }
        guard depth < TreePath.maximumDepth else {
            problem(
                "tree '\(tree.kind)' \(stats.info.name): deeper than \(TreePath.maximumDepth) levels at page \(number)")
            return
        }
        let page: TreePage
        do {
            page = try tree.treePage(number)
        } catch {
            _ = claim(number, PageOwner(type: nil, tree: stats.info.name, depth: depth, isFreeLeaf: false))
            problem("tree '\(stats.info.name)': \(error)")
            return
        }
        guard claim(number, PageOwner(type: page.type, tree: stats.info.name, depth: depth, isFreeLeaf: false)) else {
            return
        }
        let name = stats.info.name
        var cells: [Cell] = []
        var previous: Bound? = lower
        do {
            for i in 0..<page.cellCount {
                let cell = try page.cell(at: i)
                cells.append(cell)
                let k = try key(tree, page, cell)
                if let p = previous, k.compare(p) <= 0 {
                    problem("page \(number) (tree '\(name)'): cell \(i) is out of key order")
                }
                if let u = upper, k.compare(u) > 0 {
                    problem("page \(number) (tree '\(name)'): cell \(i) is above its parent's separator")
                }
                previous = k
                if cell.overflow != 0 { checkOverflow(page, cell, depth: depth, stats: &stats) }
            }
        } catch {
            problem("tree '\(name)': \(error)")
            return
        }
        // Space accounting: cells must not overlap and must add up.
        let sorted = cells.sorted { $0.offset < $1.offset }
        var end = page.contentStart
        var total = 0
        for c in sorted {
            if c.offset < end { problem("page \(number) (tree '\(name)'): cells overlap at offset \(c.offset)") }
            end = c.offset + c.size
            total += c.size
        }
        if total + page.fragmentedBytes != pager.geometry.usableEnd - page.contentStart {
            problem(
                "page \(number) (tree '\(name)'): free space accounting is off "
                    + "(cells \(total) + fragmented \(page.fragmentedBytes) != content area \(pager.geometry.usableEnd - page.contentStart))"
            )
        }
        if page.isLeaf {
            stats.leafPages += 1
            stats.entries += page.cellCount
            stats.leafBytesUsed += page.usedBytes
            stats.leafBytesAvailable += pager.geometry.usableEnd - TreeGeometry.headerSize
            if let d = leafDepth, d != depth {
                problem("page \(number) (tree '\(name)'): leaf at depth \(depth), others at depth \(d)")
            }
            leafDepth = leafDepth ?? depth
            if depth > 0 && page.cellCount == 0 { problem("page \(number) (tree '\(name)'): empty non-root leaf") }
            return
        }
        stats.interiorPages += 1
        stats.children += page.cellCount + 1
        if page.cellCount == 0 && depth > 0 {
            problem("page \(number) (tree '\(name)'): interior page without cells")
        }
        var low = lower
        for i in 0...page.cellCount {
            let child: PageNumber
            var high = upper
            do {
                child = try tree.childPage(page, i)
                if i < page.cellCount { high = try key(tree, page, cells[i]) }
            } catch {
                problem("tree '\(name)': \(error)")
                return
            }
            checkPage(tree, child, depth: depth + 1, lower: low, upper: high, stats: &stats, leafDepth: &leafDepth)
            low = high
        }
    }

    mutating func checkOverflow(_ page: TreePage, _ cell: Cell, depth: Int, stats: inout TreeStatistics) {
        var next = cell.overflow
        var remaining = cell.payloadLength - cell.localLength
        var owner = page.number
        while remaining > 0 {
            guard pager.isValidPageNumber(next) else {
                problem("page \(owner): overflow pointer \(next) is out of range")
                return
            }
            guard claim(next, PageOwner(type: .overflow, tree: stats.info.name, depth: depth, isFreeLeaf: false)) else {
                return
            }
            stats.overflowPages += 1
            do {
                let image = try pager.page(next)
                guard image.u8(0) == PageType.overflow.rawValue else {
                    problem("page \(next): expected an overflow page, found type \(image.u8(0))")
                    return
                }
                owner = next
                next = image.u32(4)
            } catch {
                problem("\(error)")
                return
            }
            remaining -= pager.geometry.overflowCapacity
        }
        if next != 0 { problem("page \(owner): overflow chain is longer than its payload") }
    }
}
