// Whole-tree walks: counting, visiting every page, and freeing a tree.

extension BTree {
    /// Calls `visit` for every page of the tree (tree pages and overflow
    /// pages) with its depth, parents before children. Throws when a page is
    /// reached twice (a pointer cycle, or two pointers sharing a page): its
    /// caller ``destroy(keepRoot:)`` would free that page twice.
    func forEachPage(_ visit: (PageNumber, Int, TreePage?) throws -> Void) throws {
        try pager.prepareForRead()
        var stack: [(PageNumber, Int)] = [(root, 0)]
        var seen = Set<PageNumber>()
        /// Records `number` as visited, from page `parent`.
        func reach(_ number: PageNumber, from parent: PageNumber) throws {
            guard seen.insert(number).inserted else {
                throw StorageError.corrupt(page: parent, "points to page \(number), which the tree already uses")
            }
        }
        try reach(root, from: root)
        while let (number, depth) = stack.popLast() {
            guard depth < TreePath.maximumDepth else {
                throw StorageError.corrupt(page: number, "tree is deeper than \(TreePath.maximumDepth) levels")
            }
            let page = try treePage(number)
            try visit(number, depth, page)
            for i in 0..<page.cellCount {
                let cell = try page.cell(at: i)
                if cell.overflow != 0 {
                    let chain = try pager.overflowChain(
                        from: cell.overflow, length: cell.payloadLength - cell.localLength, owner: number)
                    for overflow in chain {
                        try reach(overflow, from: number)
                        try visit(overflow, depth, nil)
                    }
                }
            }
            if !page.isLeaf {
                for i in stride(from: page.cellCount, through: 0, by: -1) {
                    let child = try childPage(page, i)
                    try reach(child, from: number)
                    stack.append((child, depth + 1))
                }
            }
            try pager.safePoint()
        }
    }

    /// The number of entries in the tree's leaves.
    func countEntries() throws -> Int {
        try pager.prepareForRead()
        var total = 0
        var stack: [PageNumber] = [root]
        var visited = 0
        while let number = stack.popLast() {
            visited += 1
            guard visited <= Int(pager.pageCount) else {
                throw StorageError.corrupt(page: root, "tree has more pages than the file (pointer cycle)")
            }
            let page = try treePage(number)
            if page.isLeaf {
                total += page.cellCount
            } else {
                for i in 0...page.cellCount { stack.append(try childPage(page, i)) }
            }
            try pager.safePoint()
        }
        return total
    }

    /// Frees every page of the tree; with `keepRoot` the root stays as an
    /// empty leaf (the tree is emptied), otherwise it is freed too.
    func destroy(keepRoot: Bool) throws {
        try pager.prepareForWrite()
        var pages: [PageNumber] = []
        try forEachPage { number, _, _ in pages.append(number) }
        context.noteChange()
        for page in pages where page != root { try pager.freePage(page) }
        if keepRoot {
            let rootPage = try writableTreePage(root)
            rootPage.initialize(kind.leafType)
        } else {
            try pager.freePage(root)
        }
    }
}
