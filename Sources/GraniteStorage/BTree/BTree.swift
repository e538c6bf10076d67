// One B+tree and what every tree operation needs: its pages, the keys and payloads of its cells, its child
// pointers. The operations live in files named after them: TreeSearch (descent), TreeInsert, TreeSplit,
// LeafBalance (multi-page balance of table leaves, planned by LeafBalancePlan), TreeMerge, TreeDelete, TreeCells
// (building cells and pages) and TreeWalk. FORMAT.md § "Tree pages" describes the invariants these keep.

/// One B+tree, identified by its root page, operated through a tree context and its pager.
struct BTree {
    /// The path, buffers and generation shared by the connection's tree operations.
    let context: TreeContext
    let root: PageNumber
    let kind: TreeKind

    init(context: TreeContext, root: PageNumber, kind: TreeKind) {
        self.context = context
        self.root = root
        self.kind = kind
    }

    /// The context's pager. Not stored: every per-row insert and lookup makes a handle, and a second reference
    /// in it would cost a retain and a release each time.
    var pager: Pager {
        @inline(__always) get { context.pager }
    }

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

    /// The child followed from cell index `index` of an interior page.
    @inline(__always)
    func childPage(_ page: TreePage, _ index: Int) throws -> PageNumber {
        let child = index < page.cellCount ? try page.child(at: index) : page.rightChild
        guard pager.isValidPageNumber(child) else {
            throw StorageError.corrupt(page: page.number, "child pointer \(child) is out of range")
        }
        return child
    }
}
