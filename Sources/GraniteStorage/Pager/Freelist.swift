// Implements FORMAT.md § "The freelist": trunk pages listing free pages.

extension Pager {
    /// The number of free-page entries one trunk page holds.
    var trunkCapacity: Int { (pageSize - PageLayout.trailerSize - 12) / 4 }

    /// Allocates a page, reusing a free page before growing the file. The
    /// page comes back zero-filled and dirty; the caller sets its type.
    package func allocatePage() throws -> PageNumber {
        guard inWriteTransaction, !isReadOnly else { throw notWritable() }
        let head = header.freelistHead
        if head != 0 {
            guard isValidPageNumber(head) else {
                throw StorageError.corrupt(page: 1, "freelist head \(head) is out of range")
            }
            let trunk = try writablePage(head)
            try checkTrunk(trunk, number: head)
            let count = Int(trunk.u32(8))
            guard header.freelistCount > 0 else {
                throw StorageError.corrupt(page: 1, "freelist count is zero but the freelist is not empty")
            }
            header.freelistCount -= 1
            if count > 0 {
                let leaf = trunk.u32(12 + 4 * (count - 1))
                guard isValidPageNumber(leaf), leaf != head else {
                    throw StorageError.corrupt(page: head, "freelist entry \(leaf) is out of range")
                }
                trunk.setU32(8, UInt32(count - 1))
                _ = try freshPage(leaf)
                return leaf
            }
            header.freelistHead = trunk.u32(4)
            _ = try freshPage(head)
            return head
        }
        guard header.pageCount < UInt32.max else { throw StorageError.invalidArgument("database is full") }
        header.pageCount += 1
        _ = try freshPage(header.pageCount)
        return header.pageCount
    }

    /// Returns page `number` to the freelist. Its contents are discarded.
    package func freePage(_ number: PageNumber) throws {
        guard inWriteTransaction, !isReadOnly else { throw notWritable() }
        guard isValidPageNumber(number) else {
            throw StorageError.corrupt(page: 0, "cannot free page \(number): out of range")
        }
        let head = header.freelistHead
        if head != 0 {
            let trunk = try writablePage(head)
            try checkTrunk(trunk, number: head)
            let count = Int(trunk.u32(8))
            if count < trunkCapacity {
                if !savepoints.isEmpty { try captureForReuse(number) }
                cache.remove(number)
                trunk.setU32(12 + 4 * count, number)
                trunk.setU32(8, UInt32(count + 1))
                header.freelistCount += 1
                return
            }
        }
        // The freed page becomes the new head trunk.
        let trunk = try freshPage(number)
        trunk.setU8(0, PageType.freelistTrunk.rawValue)
        trunk.setU32(4, head)
        trunk.setU32(8, 0)
        header.freelistHead = number
        header.freelistCount += 1
    }

    func checkTrunk(_ trunk: UnsafeRawPointer, number: PageNumber) throws {
        guard trunk.u8(0) == PageType.freelistTrunk.rawValue else {
            throw StorageError.corrupt(page: number, "expected a freelist trunk page, found type \(trunk.u8(0))")
        }
        let count = Int(trunk.u32(8))
        guard count <= trunkCapacity else {
            throw StorageError.corrupt(page: number, "freelist trunk holds \(count) entries (at most \(trunkCapacity))")
        }
        let next = trunk.u32(4)
        guard next == 0 || isValidPageNumber(next) else {
            throw StorageError.corrupt(page: number, "next freelist trunk \(next) is out of range")
        }
    }

    /// Every page on the freelist: trunks and the pages they list, in
    /// freelist order. Throws on a malformed or cyclic freelist.
    package func freelistPages() throws -> (trunks: [PageNumber], leaves: [PageNumber]) {
        var trunks: [PageNumber] = []
        var leaves: [PageNumber] = []
        var next = header.freelistHead
        var seen = Set<PageNumber>()
        while next != 0 {
            guard isValidPageNumber(next), seen.insert(next).inserted else {
                throw StorageError.corrupt(page: next, "freelist trunk chain is out of range or cyclic")
            }
            guard trunks.count + leaves.count < Int(header.freelistCount) else {
                throw StorageError.corrupt(page: next, "freelist is longer than the header's count")
            }
            let trunk = try page(next)
            try checkTrunk(trunk, number: next)
            trunks.append(next)
            for i in 0..<Int(trunk.u32(8)) {
                let leaf = trunk.u32(12 + 4 * i)
                guard isValidPageNumber(leaf) else {
                    throw StorageError.corrupt(page: next, "freelist entry \(leaf) is out of range")
                }
                leaves.append(leaf)
            }
            next = trunk.u32(4)
        }
        guard trunks.count + leaves.count == Int(header.freelistCount) else {
            throw StorageError.corrupt(
                page: 1, "freelist holds \(trunks.count + leaves.count) pages, header says \(header.freelistCount)")
        }
        return (trunks, leaves)
    }
}
