// Building and laying out cells: leaf and interior cells, separators between pages, and rebuilt pages.

extension BTree {
    /// Builds a leaf cell for `key` (rowid, or key bytes) and `payload` into
    /// the pager's cell buffer, spilling to overflow pages when needed.
    func buildLeafCell(
        rowid: Int64, key: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer
    ) throws -> UnsafeRawBufferPointer {
        let out = context.cellBuffer
        var p = 0
        let total: Int
        if kind == .table {
            p += Varint.write(UInt64(bitPattern: rowid), to: out)
            total = payload.count
            p += Varint.write(UInt64(total), to: out + p)
        } else {
            p += Varint.write(UInt64(key.count), to: out)
            p += Varint.write(UInt64(payload.count), to: out + p)
            total = key.count + payload.count
        }
        guard total <= TreePage.maxPayload else {
            throw StorageError.invalidArgument(
                "payload of \(total) bytes exceeds the maximum of \(TreePage.maxPayload)")
        }
        let local = pager.geometry.localLength(total)
        // Local bytes: the first `local` bytes of key ++ payload.
        let fromKey = min(local, key.count)
        if fromKey > 0 { (out + p).copyMemory(from: key.baseAddress!, byteCount: fromKey) }
        if local > fromKey { (out + p + fromKey).copyMemory(from: payload.baseAddress!, byteCount: local - fromKey) }
        p += local
        if local < total {
            let first = try pager.writeOverflow(key, payload, skip: local)
            out.setU32(p, first)
            p += 4
        }
        return UnsafeRawBufferPointer(start: out, count: p)
    }

    /// An interior cell pointing at `child` with separator `key`.
    func makeInteriorCell(child: PageNumber, rowid: Int64, key: UnsafeRawBufferPointer) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 4)
        bytes.withUnsafeMutableBytes { $0.baseAddress!.setU32(0, child) }
        if kind == .table {
            Varint.append(UInt64(bitPattern: rowid), to: &bytes)
            return bytes
        }
        Varint.append(UInt64(key.count), to: &bytes)
        let local = pager.geometry.localLength(key.count)
        bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: key[0..<local]))
        if local < key.count {
            let first = try pager.writeOverflow(key, UnsafeRawBufferPointer(start: nil, count: 0), skip: local)
            bytes.append(contentsOf: [0, 0, 0, 0])
            let at = bytes.count - 4
            bytes.withUnsafeMutableBytes { $0.baseAddress!.setU32(at, first) }
        }
        return bytes
    }

    /// Frees the overflow chain of a cell, if it has one.
    func freeOverflow(_ page: TreePage, _ cell: Cell) throws {
        guard cell.overflow != 0 else { return }
        try pager.freeOverflow(
            from: cell.overflow, length: cell.payloadLength - cell.localLength, owner: page.number)
    }

    /// Rewrites `page` as a page of `type` holding `cells` in order (and a zero right child): the cells are laid out
    /// from the end of the content area down, as inserting them one by one would, then the header and pointers are
    /// written and the gap between pointers and cells is zeroed. Every byte before the trailer is written once, so the
    /// page needs no initializing first (and no stale data lingers in its free space). The cells must not point into
    /// the page itself.
    func fill<C: Collection>(
        _ page: TreePage, _ type: PageType, _ cells: C
    ) throws where C.Element == UnsafeRawBufferPointer {
        let base = page.base
        var i = 0
        var start = pager.geometry.usableEnd
        for cell in cells {
            let size = cell.count
            guard start - size >= TreeGeometry.headerSize + 2 * (i + 1) else {
                throw StorageError.corrupt(page: page.number, "cells do not fit while rebuilding the page")
            }
            start -= size
            if size > 0 { copyCell(to: base + start, from: cell.baseAddress!, count: size) }
            base.setU16(TreeGeometry.headerSize + 2 * i, start)
            i += 1
        }
        let gap = TreeGeometry.headerSize + 2 * i
        (base + gap).initializeMemory(as: UInt8.self, repeating: 0, count: start - gap)
        base.initializeMemory(as: UInt8.self, repeating: 0, count: TreeGeometry.headerSize)
        base.setU8(0, type.rawValue)
        base.setU16(2, i)
        base.setU16(4, start)
    }

    /// The separator between two adjacent leaf cells, pointing at `child`:
    /// the left cell's rowid, or the shortest key ≥ the left key and < the right key.
    func leafSeparator(
        left: UnsafeRawBufferPointer, right: UnsafeRawBufferPointer, child: PageNumber
    ) throws -> [UInt8] {
        let leftKey = try leafCellKey(left)
        if kind == .table {
            return try makeInteriorCell(
                child: child, rowid: leftKey.rowid, key: UnsafeRawBufferPointer(start: nil, count: 0))
        }
        let rightKey = try leafCellKey(right)
        return try leftKey.bytes.withUnsafeBytes { l in
            try rightKey.bytes.withUnsafeBytes { r in
                // Shortest prefix of the right key that is greater than the left key.
                var common = 0
                while common < l.count && common < r.count && l[common] == r[common] { common += 1 }
                let length = common + 1
                if length < r.count {
                    return try makeInteriorCell(
                        child: child, rowid: 0, key: UnsafeRawBufferPointer(rebasing: r[0..<length]))
                }
                return try makeInteriorCell(child: child, rowid: 0, key: l)
            }
        }
    }

    /// The key of a leaf cell given as raw bytes (rowid, or key bytes read
    /// through the overflow chain when needed).
    func leafCellKey(_ cell: UnsafeRawBufferPointer) throws -> (rowid: Int64, bytes: [UInt8]) {
        let base = cell.baseAddress!
        if kind == .table {
            guard let r = Varint.read(base, at: 0, limit: cell.count) else {
                throw StorageError.malformed("leaf cell rowid")
            }
            return (Int64(bitPattern: r.value), [])
        }
        guard let k = Varint.read(base, at: 0, limit: cell.count),
            let v = Varint.read(base, at: k.length, limit: cell.count)
        else { throw StorageError.malformed("leaf cell lengths") }
        guard k.value <= UInt64(TreePage.maxPayload), v.value <= UInt64(TreePage.maxPayload) - k.value else {
            throw StorageError.malformed("leaf cell lengths")
        }
        let keyLength = Int(k.value)
        let total = keyLength + Int(v.value)
        let local = pager.geometry.localLength(total)
        let start = k.length + v.length
        if keyLength <= local {
            return (0, [UInt8](UnsafeRawBufferPointer(start: base + start, count: keyLength)))
        }
        var bytes = [UInt8](UnsafeRawBufferPointer(start: base + start, count: local))
        let first = base.u32(start + local)
        try pager.readOverflow(
            from: first, length: total - local, owner: context.path.count > 0 ? context.path.leafPage : 0
        ) { chunk in
            let n = min(keyLength - bytes.count, chunk.count)
            if n > 0 { bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[0..<n])) }
        }
        return (0, bytes)
    }
}
