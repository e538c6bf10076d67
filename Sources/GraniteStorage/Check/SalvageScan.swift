// Reading what survives of a damaged database file, page by page, for `granite recover`.
//
// Pages do not name their tree (FORMAT.md § "Pages"), so a leaf is placed by climbing through the interior pages
// that point to it: the page it reaches with no parent is its tree's root when nothing on the way was lost.
// Every page is checked against its own checksum, seeded with its number, so a damaged page is skipped rather
// than trusted; pages listed by a readable freelist are skipped too (they may hold stale rows).

/// One table leaf that passed its checks, with the rows that could be read whole.
public struct SalvagedLeaf: Sendable {
    /// The leaf's page number.
    public var page: PageNumber
    /// The page reached by climbing from the leaf through the interior pages that point to it: the tree's root
    /// when the climb was not cut by a lost page.
    public var top: PageNumber
    /// The rows read whole (their overflow chains intact), in the leaf's key order.
    public var rows: [(rowid: Int64, payload: [UInt8])]
    /// Cells whose payload could not be read (a damaged or missing overflow page, a malformed cell).
    public var unreadableCells: Int
    /// The pages at which the overflow chains of unreadable cells broke off, each a page that failed its checks:
    /// lost pages that this leaf's row says belonged to its tree.
    public var brokenOverflowPages: [PageNumber] = []
}

/// What a page-by-page scan of a database file found.
public struct SalvageScan: Sendable {
    /// The page size used to read the file: the header's, or, when the header is damaged, the size under which
    /// the most pages pass their checksum.
    public var pageSize: Int
    /// Pages in the file (its size over the page size).
    public var pageCount: Int
    /// Whether the header page passed its checks.
    public var headerIsValid: Bool
    /// The catalog's root according to the header (0 when the header is damaged).
    public var catalogRoot: PageNumber
    /// Pages that are not free and fail their checksum, or whose type byte names no page.
    public var damagedPages: [PageNumber]
    /// Pages skipped as members of the freelist.
    public var freePages: Int
    /// Every readable table leaf.
    public var tableLeaves: [SalvagedLeaf]
    /// For each top page, the pages its readable interior pages point to that are damaged: the pages lost from
    /// that tree (the leaves below a lost interior page are found by the scan all the same, with another top).
    /// The top is a root when no page above it was lost; otherwise the tree is told by the leaves below it.
    public var lostChildren: [PageNumber: [PageNumber]]

    /// Reads every page of `file`. Throws only when the file cannot be read at all (an I/O error, or too short to
    /// hold one page of any size).
    public init(file: any StorageFile) throws {
        let size = try file.size()
        let headerBytes = try file.read(count: min(Int(size), PageLayout.maximumPageSize), at: 0)
        let header = headerBytes.withUnsafeBytes { bytes -> FileHeader? in
            guard bytes.count >= 512, let header = try? FileHeader(reading: bytes.baseAddress!) else { return nil }
            let pageSize = Int(header.pageSize)
            guard pageSize <= bytes.count, PageLayout.verify(bytes.baseAddress!, number: 1, pageSize: pageSize)
            else { return nil }
            return header
        }
        headerIsValid = header != nil
        pageSize = try header.map { Int($0.pageSize) } ?? Self.likeliestPageSize(file, size: size)
        pageCount = Int(size / Int64(pageSize))
        catalogRoot = header?.catalogRoot ?? 0
        damagedPages = []
        freePages = 0
        tableLeaves = []
        lostChildren = [:]
        let reader = RawPages(file: file, pageSize: pageSize, pageCount: pageCount)
        let free = header.map { reader.freelist(head: $0.freelistHead) } ?? []
        freePages = free.count
        try scan(reader, free: free)
    }

    /// The page size under which the most of the first pages pass their checksums.
    private static func likeliestPageSize(_ file: any StorageFile, size: Int64) throws -> Int {
        var best = (size: PageLayout.defaultPageSize, valid: 0)
        var pageSize = PageLayout.minimumPageSize
        while pageSize <= PageLayout.maximumPageSize {
            let reader = RawPages(file: file, pageSize: pageSize, pageCount: Int(size / Int64(pageSize)))
            let valid = (2...max(2, min(reader.pageCount, 64))).filter { (try? reader.page(PageNumber($0))) != nil }
                .count
            if valid > best.valid { best = (pageSize, valid) }
            pageSize *= 2
        }
        return best.size
    }

    /// Sorts the pages into damaged, interior and leaf pages, then reads the leaves.
    private mutating func scan(_ reader: RawPages, free: Set<PageNumber>) throws {
        guard pageCount >= 2 else { return }
        var parent: [PageNumber: PageNumber] = [:]
        var leaves: [PageNumber] = []
        var lostBelow: [(interior: PageNumber, child: PageNumber)] = []
        let geometry = TreeGeometry(pageSize: pageSize)
        for number in 2...PageNumber(pageCount) where !free.contains(number) {
            guard var image = try reader.page(number) else {
                damagedPages.append(number)
                continue
            }
            let type = image[0]
            if type == PageType.tableLeaf.rawValue { leaves.append(number) }
            guard type == PageType.tableInterior.rawValue || type == PageType.indexInterior.rawValue else { continue }
            let kind: TreeKind = type == PageType.tableInterior.rawValue ? .table : .index
            let children = image.withUnsafeMutableBytes { bytes -> [PageNumber] in
                guard let page = try? TreePage(number: number, base: bytes.baseAddress!, geometry: geometry, kind: kind)
                else { return [] }
                var children: [PageNumber] = []
                for index in 0..<page.cellCount {
                    if let child = try? page.child(at: index) { children.append(child) }
                }
                children.append(page.rightChild)
                return children
            }
            for child in children where child >= 2 && Int(child) <= pageCount && parent[child] == nil {
                parent[child] = number
                lostBelow.append((number, child))
            }
        }
        let damaged = Set(damagedPages)
        for (interior, child) in lostBelow where damaged.contains(child) {
            lostChildren[Self.top(of: interior, parent), default: []].append(child)
        }
        for number in leaves {
            var leaf = try readLeaf(number, reader, geometry)
            leaf.top = Self.top(of: number, parent)
            tableLeaves.append(leaf)
        }
    }

    /// The page reached by following parents from `page` (a cycle, which only damage makes, stops the climb).
    private static func top(of page: PageNumber, _ parent: [PageNumber: PageNumber]) -> PageNumber {
        var current = page
        var steps = 0
        while let up = parent[current], steps < 64 {
            current = up
            steps += 1
        }
        return current
    }

    /// The rows of one table leaf that can be read whole.
    private func readLeaf(_ number: PageNumber, _ reader: RawPages, _ geometry: TreeGeometry) throws -> SalvagedLeaf {
        var leaf = SalvagedLeaf(page: number, top: number, rows: [], unreadableCells: 0)
        guard var image = try reader.page(number) else { return leaf }
        try image.withUnsafeMutableBytes { bytes in
            guard let page = try? TreePage(number: number, base: bytes.baseAddress!, geometry: geometry, kind: .table)
            else {
                leaf.unreadableCells += 1
                return
            }
            for index in 0..<page.cellCount {
                var brokenAt: PageNumber?
                guard let cell = try? page.cell(at: index),
                    cell.localOffset >= 0, cell.localLength >= 0,
                    cell.localOffset + cell.localLength <= geometry.usableEnd,
                    let payload = try reader.payload(of: cell, in: bytes, brokenAt: &brokenAt)
                else {
                    leaf.unreadableCells += 1
                    if let brokenAt { leaf.brokenOverflowPages.append(brokenAt) }
                    continue
                }
                leaf.rows.append((cell.rowid, payload))
            }
        }
        return leaf
    }
}

/// The pages of a file read directly, each checked against its checksum.
private struct RawPages {
    let file: any StorageFile
    let pageSize: Int
    let pageCount: Int

    /// The image of page `number` when it is in the file, passes its checksum and has a page type; nil otherwise.
    func page(_ number: PageNumber) throws -> [UInt8]? {
        guard number >= 1, Int(number) <= pageCount else { return nil }
        let image = try file.read(count: pageSize, at: Int64(number - 1) * Int64(pageSize))
        guard image.count == pageSize else { return nil }
        let valid = image.withUnsafeBytes { PageLayout.verify($0.baseAddress!, number: number, pageSize: pageSize) }
        guard valid, number == 1 || (2...7).contains(image[0]) else { return nil }
        return image
    }

    /// The pages the freelist lists, trunks included, as far as its trunks can be read.
    func freelist(head: PageNumber) -> Set<PageNumber> {
        var pages: Set<PageNumber> = []
        var trunk = head
        while trunk != 0, !pages.contains(trunk), let image = try? page(trunk),
            image[0] == PageType.freelistTrunk.rawValue
        {
            pages.insert(trunk)
            image.withUnsafeBytes { bytes in
                let base = bytes.baseAddress!
                let entries = min(Int(base.u32(8)), (pageSize - 16) / 4)
                for index in 0..<entries { pages.insert(base.u32(12 + 4 * index)) }
                trunk = base.u32(4)
            }
        }
        return pages
    }

    /// The whole payload of a table leaf cell: its local part, then its overflow chain; nil when a page of the
    /// chain is damaged, of another type, or the chain has the wrong length. `brokenAt` is set to the page of the
    /// chain that failed its checks, when that is why.
    func payload(of cell: Cell, in leaf: UnsafeMutableRawBufferPointer, brokenAt: inout PageNumber?) throws
        -> [UInt8]?
    {
        var payload = Array(
            UnsafeRawBufferPointer(rebasing: leaf[cell.localOffset..<cell.localOffset + cell.localLength]))
        var remaining = cell.payloadLength - cell.localLength
        var next = cell.overflow
        let capacity = pageSize - PageLayout.trailerSize - TreeGeometry.overflowHeaderSize
        var visited = 0
        while remaining > 0 {
            guard next != 0, visited <= pageCount else { return nil }
            guard let image = try page(next) else {
                if Int(next) <= pageCount { brokenAt = next }
                return nil
            }
            guard image[0] == PageType.overflow.rawValue else { return nil }
            let count = min(remaining, capacity)
            payload += image[TreeGeometry.overflowHeaderSize..<TreeGeometry.overflowHeaderSize + count]
            remaining -= count
            next = image.withUnsafeBytes { $0.baseAddress!.u32(4) }
            visited += 1
        }
        return next == 0 ? payload : nil
    }
}
