// Implements FORMAT.md § "Overflow pages": chains holding the part of a
// payload that does not fit in its cell.

extension Pager {
    /// Writes `bytes` (the concatenation of `first` and `second`, starting at
    /// byte `skip` of it) to a new overflow chain and returns its first page.
    func writeOverflow(
        _ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer, skip: Int
    ) throws -> PageNumber {
        let capacity = pageSize - PageLayout.trailerSize - TreeGeometry.overflowHeaderSize
        let total = first.count + second.count
        var position = skip
        var pages: [PageNumber] = []
        pages.reserveCapacity((total - skip + capacity - 1) / capacity)
        while position < total {
            pages.append(try allocatePage())
            position += capacity
        }
        position = skip
        for (i, number) in pages.enumerated() {
            let page = try writablePage(number)
            page.setU8(0, PageType.overflow.rawValue)
            page.setU32(4, i + 1 < pages.count ? pages[i + 1] : 0)
            var out = TreeGeometry.overflowHeaderSize
            let end = min(position + capacity, total)
            while position < end {
                let (buffer, offset) = position < first.count ? (first, position) : (second, position - first.count)
                let n = min(end - position, buffer.count - offset)
                (page + out).copyMemory(from: buffer.baseAddress! + offset, byteCount: n)
                out += n
                position += n
            }
        }
        return pages.first ?? 0
    }

    /// Follows an overflow chain, handing each page's data to `body`.
    /// `length` is the number of bytes the chain must hold; `owner` is the
    /// page whose cell points at the chain (named in errors).
    func readOverflow(
        from start: PageNumber, length: Int, owner: PageNumber,
        _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let capacity = pageSize - PageLayout.trailerSize - TreeGeometry.overflowHeaderSize
        var remaining = length
        var number = start
        var previous = owner
        while remaining > 0 {
            guard isValidPageNumber(number) else {
                throw StorageError.corrupt(page: previous, "overflow pointer \(number) is out of range")
            }
            let page = try self.page(number)
            guard page.u8(0) == PageType.overflow.rawValue else {
                throw StorageError.corrupt(page: number, "expected an overflow page, found page type \(page.u8(0))")
            }
            let n = min(remaining, capacity)
            try body(UnsafeRawBufferPointer(start: page + TreeGeometry.overflowHeaderSize, count: n))
            remaining -= n
            previous = number
            number = page.u32(4)
        }
        guard number == 0 else {
            throw StorageError.corrupt(page: previous, "overflow chain is longer than its payload")
        }
    }

    /// The pages of an overflow chain holding `length` bytes, checked for
    /// range, type and length (neither shorter nor longer than the payload
    /// needs: a chain that loops back never ends, so it is always too long).
    func overflowChain(from start: PageNumber, length: Int, owner: PageNumber) throws -> [PageNumber] {
        var pages: [PageNumber] = []
        var number = start
        var previous = owner
        var remaining = length
        while remaining > 0 {
            guard isValidPageNumber(number) else {
                throw StorageError.corrupt(page: previous, "overflow pointer \(number) is out of range")
            }
            let page = try self.page(number)
            guard page.u8(0) == PageType.overflow.rawValue else {
                throw StorageError.corrupt(page: number, "expected an overflow page, found page type \(page.u8(0))")
            }
            pages.append(number)
            remaining -= geometry.overflowCapacity
            previous = number
            number = page.u32(4)
        }
        // Freeing a looping chain would put its pages on the freelist twice.
        guard number == 0 else {
            throw StorageError.corrupt(page: previous, "overflow chain is longer than its payload")
        }
        return pages
    }

    /// Frees every page of an overflow chain holding `length` bytes.
    func freeOverflow(from start: PageNumber, length: Int, owner: PageNumber) throws {
        for page in try overflowChain(from: start, length: length, owner: owner) { try freePage(page) }
    }
}
