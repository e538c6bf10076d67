// Implements FORMAT.md § "Local payload and overflow": how much of a payload
// stays in its cell.

/// Size limits of tree pages and cells for one page size.
struct TreeGeometry {
    /// Bytes of a tree page header.
    static let headerSize = 12
    /// Bytes of an overflow page header.
    static let overflowHeaderSize = 8

    let pageSize: Int
    /// The end of the cell content area (the trailer follows).
    let usableEnd: Int
    /// The largest payload kept entirely in a cell.
    let maxLocal: Int
    /// The part of a spilled payload always kept in the cell.
    let minLocal: Int
    /// Payload bytes one overflow page holds.
    let overflowCapacity: Int
    /// Below this many used bytes a non-root page is rebalanced on delete.
    let minimumFill: Int

    init(pageSize: Int) {
        self.pageSize = pageSize
        usableEnd = pageSize - PageLayout.trailerSize
        let area = usableEnd - TreeGeometry.headerSize
        // At least four cells of the largest size (pointer and up to 28 bytes
        // of varints, child and overflow pointers included) fit in a page.
        maxLocal = area / 4 - 2 - 28
        minLocal = area * 32 / 255 - 23
        overflowCapacity = usableEnd - TreeGeometry.overflowHeaderSize
        minimumFill = area / 3
    }

    /// The number of payload bytes stored in the cell for a payload of
    /// `total` bytes; the rest goes to an overflow chain.
    @inline(__always)
    func localLength(_ total: Int) -> Int {
        if total <= maxLocal { return total }
        let local = minLocal + (total - minLocal) % overflowCapacity
        return local <= maxLocal ? local : minLocal
    }

    /// The number of overflow pages a payload of `total` bytes needs.
    func overflowPageCount(_ total: Int) -> Int {
        let rest = total - localLength(total)
        return (rest + overflowCapacity - 1) / overflowCapacity
    }
}
