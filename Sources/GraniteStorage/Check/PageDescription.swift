// Decoded views of raw pages for inspection tools (`granite page`, `granite pages`).

/// One decoded cell of a tree page.
public struct CellDescription: Sendable, Equatable {
    /// Cell index in key order.
    public var index: Int
    /// Offset of the cell in the page.
    public var offset: Int
    /// Bytes the cell occupies.
    public var size: Int
    /// Child page (interior cells), else nil.
    public var child: PageNumber?
    /// Rowid (table cells), else nil.
    public var rowid: Int64?
    /// Key bytes (index cells; the locally stored part when the key overflows).
    public var key: [UInt8]?
    /// Total payload length (row, or key + value, or separator key).
    public var payloadLength: Int
    /// Payload bytes stored in the cell.
    public var localLength: Int
    /// First overflow page, or nil.
    public var overflow: PageNumber?
    /// The locally stored payload bytes (table leaf rows, index leaf values).
    public var localPayload: [UInt8]
}

/// A decoded page.
public struct PageDescription: Sendable {
    /// The page number.
    public var number: PageNumber
    /// The page type, nil when the type byte is unknown (e.g. a free page).
    public var type: PageType?
    /// The raw type byte.
    public var typeByte: UInt8
    /// Whether the trailer checksum matches.
    public var checksumValid: Bool
    /// Tree pages: cell count, content start, fragmented bytes, right child.
    public var cellCount = 0
    public var contentStart = 0
    public var fragmentedBytes = 0
    public var rightChild: PageNumber = 0
    /// Bytes used by cells and pointers, and bytes available for them.
    public var usedBytes = 0
    public var availableBytes = 0
    /// Decoded cells (tree pages).
    public var cells: [CellDescription] = []
    /// Overflow and freelist trunk pages: the next page in the chain.
    public var next: PageNumber = 0
    /// Freelist trunk pages: the free pages listed.
    public var freePages: [PageNumber] = []
    /// The header (page 1).
    public var header: FileHeader?
    /// The raw page bytes.
    public var bytes: [UInt8]
    /// A problem found while decoding, if any (the fields above are partial).
    public var problem: String?
}

extension StorageEngine {
    /// Reads page `number` straight from the page source (bypassing the
    /// cache's checksum check so a damaged page can still be shown) and decodes it. Reads what the transaction in
    /// progress sees; with none in progress, begins a read transaction for the page and ends it after.
    public func describePage(_ number: PageNumber) throws -> PageDescription {
        let ownRead = isInTransaction ? nil : try beginRead()
        defer { try? ownRead?.commit() }
        guard number >= 1, number <= pager.pageCount else {
            throw StorageError.invalidArgument("page \(number) does not exist (page count \(pager.pageCount))")
        }
        let size = pager.pageSize
        var bytes = [UInt8](repeating: 0, count: size)
        let present = try bytes.withUnsafeMutableBytes { try pager.source.readPage(number, into: $0.baseAddress!) }
        if let cached = pager.cache.lookup(number), pager.cache.isDirty(number) {
            bytes = [UInt8](UnsafeRawBufferPointer(start: cached, count: size))
        }
        return bytes.withUnsafeMutableBytes { buffer -> PageDescription in
            let base = buffer.baseAddress!
            var d = PageDescription(
                number: number, type: number == 1 ? .header : PageType(rawValue: base.u8(0)), typeByte: base.u8(0),
                checksumValid: present && PageLayout.verify(base, number: number, pageSize: size),
                bytes: [UInt8](buffer))
            if !present { d.problem = "page lies beyond the end of the file" }
            if number == 1 {
                do { d.header = try FileHeader(reading: base) } catch { d.problem = "\(error)" }
                return d
            }
            switch d.type {
            case .overflow:
                d.next = base.u32(4)
            case .freelistTrunk:
                d.next = base.u32(4)
                let count = min(Int(base.u32(8)), pager.trunkCapacity)
                d.freePages = (0..<count).map { base.u32(12 + 4 * $0) }
            case .tableLeaf, .tableInterior, .indexLeaf, .indexInterior:
                let kind: TreeKind = d.type == .tableLeaf || d.type == .tableInterior ? .table : .index
                do {
                    let page = try TreePage(number: number, base: base, geometry: pager.geometry, kind: kind)
                    d.cellCount = page.cellCount
                    d.contentStart = page.contentStart
                    d.fragmentedBytes = page.fragmentedBytes
                    d.rightChild = page.rightChild
                    d.usedBytes = page.usedBytes
                    d.availableBytes = pager.geometry.usableEnd - TreeGeometry.headerSize
                    for i in 0..<page.cellCount {
                        let c = try page.cell(at: i)
                        let local = [UInt8](UnsafeRawBufferPointer(start: base + c.localOffset, count: c.localLength))
                        var cell = CellDescription(
                            index: i, offset: c.offset, size: c.size, child: page.isLeaf ? nil : c.child,
                            rowid: kind == .table ? c.rowid : nil, key: nil, payloadLength: c.payloadLength,
                            localLength: c.localLength, overflow: c.overflow == 0 ? nil : c.overflow, localPayload: [])
                        if kind == .index {
                            cell.key = Array(local.prefix(c.keyLength))
                            cell.localPayload = c.keyLength < local.count ? Array(local[c.keyLength...]) : []
                        } else {
                            cell.localPayload = local
                        }
                        d.cells.append(cell)
                    }
                } catch {
                    d.problem = "\(error)"
                }
            default:
                d.problem = "unknown page type \(base.u8(0)) (a free page, or damage)"
            }
            return d
        }
    }
}
