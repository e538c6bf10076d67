// Where the bytes of a database file go: a walk that visits every page once, attributes it to a tree, the
// freelist or nothing, and measures each tree (pages, entries, payload, fill, leaf order on disk, compression).
// It trusts nothing it reads: a page it cannot decode is counted as unreadable and named in a problem, and the
// walk goes on with the rest of the file.

/// What one page of the file holds, as found by ``StorageEngine/analyzeSpace()``.
package enum PageUse: Equatable, Sendable {
    /// Page 1: the file header.
    case header
    /// A freelist trunk page.
    case freelistTrunk
    /// A free page listed by a trunk.
    case free
    /// A page of tree number `tree` (an index into ``SpaceAnalysis/trees``).
    case tree(Int)
    /// A page that tree number `tree` points to but that could not be decoded.
    case unreadable(tree: Int)
    /// A page no tree and no freelist reaches (leaked, or cut off by damage).
    case unattributed
}

/// The space one tree takes.
package struct TreeSpace: Equatable, Sendable {
    /// The tree's catalog entry ("(catalog)" for the catalog itself).
    package var info: TreeInfo
    package var leafPages = 0
    package var interiorPages = 0
    package var overflowPages = 0
    /// Pages the tree points to that could not be decoded.
    package var unreadablePages = 0
    /// Entries in the leaves.
    package var entries = 0
    /// Sum and maximum of the leaf entries' payload lengths (row bytes; key and value bytes for an index).
    package var payloadBytes = 0
    package var maxPayload = 0
    /// Bytes used by cells and their pointers, and bytes available for them, over leaf and interior pages.
    package var usedBytes = 0
    package var availableBytes = 0
    /// Leaf pages whose next leaf in key order is not the next page of the file.
    package var leafBreaks = 0
    /// Compressed TEXT values in the leaves, their length uncompressed and as stored.
    package var compressedValues = 0
    package var compressedPlainBytes = 0
    package var compressedStoredBytes = 0

    package init(info: TreeInfo) {
        self.info = info
    }

    /// Every page the tree owns, readable or not.
    package var pages: Int { leafPages + interiorPages + overflowPages + unreadablePages }
    /// Bytes the compressed values save: their uncompressed length minus their stored length.
    package var compressionSavings: Int { compressedPlainBytes - compressedStoredBytes }
    /// Used over available bytes in the tree's leaf and interior pages, 0...1.
    package var fill: Double { availableBytes == 0 ? 0 : Double(usedBytes) / Double(availableBytes) }
    /// The share of consecutive leaves in key order that are not adjacent on disk, 0...1 (0 for one leaf).
    package var fragmentation: Double { leafPages < 2 ? 0 : Double(leafBreaks) / Double(leafPages - 1) }
}

/// The result of ``StorageEngine/analyzeSpace()``.
package struct SpaceAnalysis: Sendable {
    package var pageSize: Int
    package var pageCount: Int
    /// What each page holds, indexed by page number (index 0 unused, `.unattributed`).
    package var pages: [PageUse]
    /// The catalog (index 0), then every tree the catalog lists, in catalog order.
    package var trees: [TreeSpace] = []
    /// Every page that could not be read or attributed, or a pointer that goes wrong, in one line each (at most
    /// `maxProblems` of them).
    package var problems: [String] = []
    /// Problems found beyond those kept in ``problems``.
    package var omittedProblems = 0

    /// Pages of the given use.
    package func count(_ use: PageUse) -> Int { pages.dropFirst().filter { $0 == use }.count }
    /// Pages no tree reached that no freelist lists.
    package var unattributedPages: Int { count(.unattributed) }
    /// Free pages and freelist trunks.
    package var freelistPages: Int { count(.free) + count(.freelistTrunk) }
}

extension StorageEngine {
    /// Walks the whole file once and measures the space of every tree and of the freelist (`granite stats`).
    /// Reads what the transaction in progress sees; with none in progress, begins a read transaction and ends
    /// it after. Damage is reported in ``SpaceAnalysis/problems``, never thrown; only failing to begin the
    /// read transaction throws.
    package func analyzeSpace(maxProblems: Int = 100) throws -> SpaceAnalysis {
        let ownRead = isInTransaction ? nil : try beginRead()
        defer { try? ownRead?.commit() }
        var walk = SpaceWalk(context: treeContext, maxProblems: maxProblems)
        walk.run()
        return walk.analysis
    }
}

/// The state of one ``StorageEngine/analyzeSpace()`` walk.
private struct SpaceWalk {
    let context: TreeContext
    var pager: Pager { context.pager }
    let maxProblems: Int
    var analysis: SpaceAnalysis

    init(context: TreeContext, maxProblems: Int) {
        self.context = context
        self.maxProblems = maxProblems
        let count = Int(context.pager.pageCount)
        analysis = SpaceAnalysis(
            pageSize: context.pager.pageSize, pageCount: count,
            pages: Array(repeating: .unattributed, count: count + 1))
    }

    /// Records a problem; past `maxProblems` only counts it (the walk goes on, so the figures stay whole).
    mutating func problem(_ text: String) {
        if analysis.problems.count < maxProblems {
            analysis.problems.append(text)
        } else {
            analysis.omittedProblems += 1
        }
    }

    /// Records what page `number` holds; false (and a problem) when it is out of range or already taken.
    mutating func claim(_ number: PageNumber, _ use: PageUse, from owner: String) -> Bool {
        guard number >= 1, Int(number) <= analysis.pageCount else {
            problem("\(owner): page \(number) is out of range (page count \(analysis.pageCount))")
            return false
        }
        guard analysis.pages[Int(number)] == .unattributed else {
            problem("\(owner): page \(number) is already used elsewhere")
            return false
        }
        analysis.pages[Int(number)] = use
        return true
    }

    mutating func run() {
        guard analysis.pageCount >= 1 else { return }
        _ = claim(1, .header, from: "header")
        walkFreelist()
        walkTree(TreeInfo(name: "(catalog)", kind: .index, root: pager.header.catalogRoot))
        do {
            for info in try Catalog(context: context).all() { walkTree(info) }
        } catch {
            problem("catalog: \(error)")
        }
        try? pager.safePoint()
    }

    mutating func walkFreelist() {
        do {
            let (trunks, leaves) = try pager.freelistPages()
            for trunk in trunks { _ = claim(trunk, .freelistTrunk, from: "freelist") }
            for leaf in leaves { _ = claim(leaf, .free, from: "freelist") }
        } catch {
            problem("freelist: \(error)")
        }
    }

    /// Measures one tree: its pages depth first in key order, so that the leaves come in key order.
    mutating func walkTree(_ info: TreeInfo) {
        let index = analysis.trees.count
        var space = TreeSpace(info: info)
        let tree = BTree(context: context, root: info.root, kind: info.kind)
        var stack: [(page: PageNumber, depth: Int)] = [(info.root, 0)]
        var previousLeaf: PageNumber? = nil
        while let (number, depth) = stack.popLast() {
            guard claim(number, .tree(index), from: "tree '\(info.name)'") else { continue }
            switch measurePage(number, depth: depth, of: tree, into: &space, tree: index) {
            case .interior(let children):
                stack.append(contentsOf: children.reversed().map { ($0, depth + 1) })
            case .leaf:
                if let previous = previousLeaf, number != previous + 1 { space.leafBreaks += 1 }
                previousLeaf = number
            case .unreadable:
                break
            }
            try? pager.safePoint()
        }
        analysis.trees.append(space)
    }

    /// What ``measurePage(_:depth:of:into:tree:)`` found.
    enum PageKind {
        case leaf
        /// An interior page and the children it points to, in key order (as many as could be read).
        case interior([PageNumber])
        case unreadable
    }

    /// Measures page `number` of `tree`, marking it unreadable when it cannot be decoded.
    mutating func measurePage(
        _ number: PageNumber, depth: Int, of tree: BTree, into space: inout TreeSpace, tree index: Int
    ) -> PageKind {
        let name = space.info.name
        guard depth < TreePath.maximumDepth else {
            markUnreadable(number, "tree '\(name)' is deeper than \(TreePath.maximumDepth) levels", &space, index)
            return .unreadable
        }
        let page: TreePage
        do {
            page = try tree.treePage(number)
        } catch {
            markUnreadable(number, "tree '\(name)': \(error)", &space, index)
            return .unreadable
        }
        space.usedBytes += page.usedBytes
        space.availableBytes += pager.geometry.usableEnd - TreeGeometry.headerSize
        var children: [PageNumber] = []
        do {
            for i in 0..<page.cellCount {
                let cell = try page.cell(at: i)
                if page.isLeaf { measureEntry(cell, in: page, of: tree, into: &space) }
                if cell.overflow != 0 { claimOverflow(of: cell, in: page, into: &space, tree: index) }
            }
            if !page.isLeaf {
                for i in 0...page.cellCount { children.append(try tree.childPage(page, i)) }
            }
        } catch {
            problem("tree '\(name)', page \(number): \(error)")
        }
        if page.isLeaf {
            space.leafPages += 1
            return .leaf
        }
        space.interiorPages += 1
        return .interior(children)
    }

    mutating func markUnreadable(_ number: PageNumber, _ text: String, _ space: inout TreeSpace, _ index: Int) {
        analysis.pages[Int(number)] = .unreadable(tree: index)
        space.unreadablePages += 1
        problem(text)
    }

    /// Counts one leaf entry: its payload and, for a table row, its compressed values (a row that does not
    /// decode is a problem, and the walk goes on with the next entry).
    mutating func measureEntry(_ cell: Cell, in page: TreePage, of tree: BTree, into space: inout TreeSpace) {
        space.entries += 1
        space.payloadBytes += cell.payloadLength
        space.maxPayload = max(space.maxPayload, cell.payloadLength)
        guard tree.kind == .table else { return }
        do {
            try measureCompression(cell, in: page, of: tree, into: &space)
        } catch {
            problem("tree '\(space.info.name)', page \(page.number), rowid \(cell.rowid): \(error)")
        }
    }

    /// Adds the compressed TEXT values of the row in `cell` to the tree's figures.
    func measureCompression(_ cell: Cell, in page: TreePage, of tree: BTree, into space: inout TreeSpace) throws {
        let (values, plain, stored) = try tree.withPayload(page, cell) { payload in
            let row = try RowDecoder(payload)
            var values = 0
            var plain = 0
            var stored = 0
            for column in 0..<row.count where row.isCompressed(at: column) {
                values += 1
                plain += row.textLength(at: column) ?? 0
                stored += row.column(column).length
            }
            return (values, plain, stored)
        }
        space.compressedValues += values
        space.compressedPlainBytes += plain
        space.compressedStoredBytes += stored
    }

    /// Claims the overflow chain of `cell` for the tree.
    mutating func claimOverflow(of cell: Cell, in page: TreePage, into space: inout TreeSpace, tree index: Int) {
        do {
            let chain = try pager.overflowChain(
                from: cell.overflow, length: cell.payloadLength - cell.localLength, owner: page.number)
            for number in chain where claim(number, .tree(index), from: "tree '\(space.info.name)'") {
                space.overflowPages += 1
            }
        } catch {
            problem("tree '\(space.info.name)', page \(page.number): \(error)")
        }
    }
}
