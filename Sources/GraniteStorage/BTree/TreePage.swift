// Implements FORMAT.md § "Tree pages" and § "Cells": the slotted layout of
// B+tree pages and the four cell formats.

/// The kind of a B+tree: keyed by rowid or by bytes.
public enum TreeKind: UInt8, Sendable, CustomStringConvertible {
    /// Int64 rowid → row payload.
    case table = 1
    /// Byte-comparable key → optional value.
    case index = 2

    /// The page type of this kind's leaves.
    var leafType: PageType { self == .table ? .tableLeaf : .indexLeaf }
    /// The page type of this kind's interior pages.
    var interiorType: PageType { self == .table ? .tableInterior : .indexInterior }

    public var description: String { self == .table ? "table" : "index" }
}

/// One parsed cell of a tree page.
struct Cell {
    /// Offset of the cell in its page.
    var offset = 0
    /// Bytes the cell occupies in the page (its pointer not included).
    var size = 0
    /// Child page (interior cells).
    var child: PageNumber = 0
    /// Rowid (table cells).
    var rowid: Int64 = 0
    /// Key length (index cells).
    var keyLength = 0
    /// Payload length: row bytes (table leaf), key + value (index leaf),
    /// key (index interior), 0 (table interior).
    var payloadLength = 0
    /// Offset in the page of the payload bytes kept in the cell.
    var localOffset = 0
    /// The number of payload bytes kept in the cell.
    var localLength = 0
    /// First overflow page, 0 when the payload is all local.
    var overflow: PageNumber = 0
}

/// A view of one B+tree page image: header fields, cell pointers, cells.
///
/// Layout: 12-byte header (type, reserved, cell count, content start,
/// fragmented bytes, right child), then a 2-byte pointer per cell in key
/// order; cell contents grow down from the checksum trailer.
struct TreePage {
    let number: PageNumber
    let base: UnsafeMutableRawPointer
    let geometry: TreeGeometry

    /// The largest payload length accepted (2^31 − 1 bytes).
    static let maxPayload = Int(Int32.max)

    /// Wraps and validates a page image expected to belong to a tree of `kind`.
    init(number: PageNumber, base: UnsafeMutableRawPointer, geometry: TreeGeometry, kind: TreeKind) throws {
        self.number = number
        self.base = base
        self.geometry = geometry
        let type = base.u8(0)
        guard type == kind.leafType.rawValue || type == kind.interiorType.rawValue else {
            throw StorageError.corrupt(page: number, "expected a \(kind) tree page, found page type \(type)")
        }
        let count = base.u16(2)
        let start = base.u16(4)
        guard TreeGeometry.headerSize + 2 * count <= start, start <= geometry.usableEnd else {
            throw StorageError.corrupt(page: number, "cell count \(count) / content start \(start) are inconsistent")
        }
        guard base.u16(6) <= geometry.usableEnd - start else {
            throw StorageError.corrupt(page: number, "fragmented byte count \(base.u16(6)) is too large")
        }
    }

    /// Wraps a page image without validation (pages the caller just built).
    init(unchecked number: PageNumber, base: UnsafeMutableRawPointer, geometry: TreeGeometry) {
        self.number = number
        self.base = base
        self.geometry = geometry
    }

    var type: PageType { PageType(rawValue: base.u8(0))! }
    var isLeaf: Bool { base.u8(0) & 1 == 1 }  // 3 and 5 are leaves
    var isTable: Bool { base.u8(0) <= 3 }
    var cellCount: Int { base.u16(2) }
    var contentStart: Int { base.u16(4) }
    var fragmentedBytes: Int { base.u16(6) }
    var rightChild: PageNumber { base.u32(8) }

    /// Bytes available for new cells and their pointers.
    var freeBytes: Int { contentStart - TreeGeometry.headerSize - 2 * cellCount + fragmentedBytes }
    /// Bytes used by cells and their pointers.
    var usedBytes: Int { geometry.usableEnd - TreeGeometry.headerSize - freeBytes }

    /// Resets the page to an empty page of `type` (every byte before the
    /// trailer zeroed, so no stale data lingers in free space).
    func initialize(_ type: PageType) {
        base.initializeMemory(as: UInt8.self, repeating: 0, count: geometry.usableEnd)
        base.setU8(0, type.rawValue)
        base.setU16(4, geometry.usableEnd)
    }

    func setRightChild(_ child: PageNumber) { base.setU32(8, child) }

    @inline(__always)
    func cellOffset(_ index: Int) -> Int { base.u16(TreeGeometry.headerSize + 2 * index) }

    /// The offset of cell `index`, checked to lie in the content area (inlined: it runs for every cell a search
    /// reads; the error is built out of line).
    @inline(__always)
    private func checkedOffset(_ index: Int) throws -> Int {
        let offset = cellOffset(index)
        guard offset >= contentStart, offset < geometry.usableEnd else { throw pointerOutside(index, offset) }
        return offset
    }

    /// The error of a cell pointer outside the content area.
    @inline(never)
    private func pointerOutside(_ index: Int, _ offset: Int) -> StorageError {
        StorageError.corrupt(page: number, "cell \(index) pointer \(offset) is outside the content area")
    }

    @inline(__always)
    private func varint(_ offset: Int, _ index: Int) throws -> (value: UInt64, length: Int) {
        guard let v = Varint.readInline(base, at: offset, limit: geometry.usableEnd) else {
            throw StorageError.corrupt(page: number, "cell \(index) has a malformed varint")
        }
        return v
    }

    // MARK: Fast key access for searches

    /// The key bytes of index cell `index` when the whole key is stored in the cell (the common case), without
    /// parsing the rest of the cell; nil for table pages or a key that continues on overflow pages. The bytes
    /// returned are checked to lie inside the page.
    @inline(__always)
    func localKey(at index: Int) throws -> UnsafeRawBufferPointer? {
        var p = try checkedOffset(index)
        let keyLength: UInt64
        let total: UInt64
        switch base.u8(0) {
        case PageType.indexLeaf.rawValue:
            // The common short cell: one-byte key and value lengths, read inline.
            if p + 2 <= geometry.usableEnd {
                let k = base.load(fromByteOffset: p, as: UInt8.self)
                let v = base.load(fromByteOffset: p + 1, as: UInt8.self)
                if k < 0x80 && v < 0x80 {
                    let length = Int(k)
                    guard length <= geometry.localLength(length + Int(v)) else { return nil }
                    guard p + 2 + length <= geometry.usableEnd else {
                        throw StorageError.corrupt(page: number, "cell \(index) overflows its page")
                    }
                    return UnsafeRawBufferPointer(start: base + p + 2, count: length)
                }
            }
            let k = try varint(p, index)
            let v = try varint(p + k.length, index)
            guard k.value <= UInt64(TreePage.maxPayload), v.value <= UInt64(TreePage.maxPayload) - k.value else {
                throw StorageError.corrupt(page: number, "cell \(index) key/value lengths are too large")
            }
            keyLength = k.value
            total = k.value + v.value
            p += k.length + v.length
        case PageType.indexInterior.rawValue:
            let k = try varint(p + 4, index)
            guard k.value <= UInt64(TreePage.maxPayload) else {
                throw StorageError.corrupt(page: number, "cell \(index) key length \(k.value) is too large")
            }
            keyLength = k.value
            total = k.value
            p += 4 + k.length
        default:
            return nil
        }
        guard Int(keyLength) <= geometry.localLength(Int(total)) else { return nil }
        guard p + Int(keyLength) <= geometry.usableEnd else {
            throw StorageError.corrupt(page: number, "cell \(index) overflows its page")
        }
        return UnsafeRawBufferPointer(start: base + p, count: Int(keyLength))
    }

    /// The rowid of cell `index` of a table page.
    @inline(__always)
    func rowid(at index: Int) throws -> Int64 {
        var offset = try checkedOffset(index)
        if !isLeaf { offset += 4 }
        // Rowids below 2^21 (one to three varint bytes), read inline.
        if offset + 3 <= geometry.usableEnd {
            let b0 = Int64(base.load(fromByteOffset: offset, as: UInt8.self))
            if b0 < 0x80 { return b0 }
            let b1 = Int64(base.load(fromByteOffset: offset + 1, as: UInt8.self))
            if b1 < 0x80 { return (b0 & 0x7F) | b1 << 7 }
            let b2 = Int64(base.load(fromByteOffset: offset + 2, as: UInt8.self))
            if b2 < 0x80 { return (b0 & 0x7F) | (b1 & 0x7F) << 7 | b2 << 14 }
        }
        return Int64(bitPattern: try varint(offset, index).value)
    }

    /// The child pointer of cell `index` of an interior page.
    @inline(__always)
    func child(at index: Int) throws -> PageNumber {
        let offset = try checkedOffset(index)
        guard offset + 4 <= geometry.usableEnd else {
            throw StorageError.corrupt(page: number, "cell \(index) is truncated")
        }
        return base.u32(offset)
    }

    func setChild(at index: Int, _ child: PageNumber) {
        base.setU32(cellOffset(index), child)
    }

    // MARK: Full cell parsing

    /// Parses cell `index`, checking every length against the page bounds.
    func cell(at index: Int) throws -> Cell {
        var c = Cell()
        c.offset = try checkedOffset(index)
        var p = c.offset
        switch base.u8(0) {
        case PageType.tableLeaf.rawValue:
            let r = try varint(p, index)
            c.rowid = Int64(bitPattern: r.value)
            let l = try varint(p + r.length, index)
            guard l.value <= UInt64(TreePage.maxPayload) else {
                throw StorageError.corrupt(page: number, "cell \(index) payload length \(l.value) is too large")
            }
            c.payloadLength = Int(l.value)
            p += r.length + l.length
        case PageType.tableInterior.rawValue:
            guard p + 4 <= geometry.usableEnd else {
                throw StorageError.corrupt(page: number, "cell \(index) is truncated")
            }
            c.child = base.u32(p)
            let r = try varint(p + 4, index)
            c.rowid = Int64(bitPattern: r.value)
            c.size = 4 + r.length
            c.localOffset = p + c.size
            return c
        case PageType.indexLeaf.rawValue:
            let k = try varint(p, index)
            let v = try varint(p + k.length, index)
            guard k.value <= UInt64(TreePage.maxPayload), v.value <= UInt64(TreePage.maxPayload) - k.value else {
                throw StorageError.corrupt(page: number, "cell \(index) key/value lengths are too large")
            }
            c.keyLength = Int(k.value)
            c.payloadLength = Int(k.value + v.value)
            p += k.length + v.length
        default:  // index interior
            guard p + 4 <= geometry.usableEnd else {
                throw StorageError.corrupt(page: number, "cell \(index) is truncated")
            }
            c.child = base.u32(p)
            let k = try varint(p + 4, index)
            guard k.value <= UInt64(TreePage.maxPayload) else {
                throw StorageError.corrupt(page: number, "cell \(index) key length \(k.value) is too large")
            }
            c.keyLength = Int(k.value)
            c.payloadLength = c.keyLength
            p += 4 + k.length
        }
        c.localOffset = p
        c.localLength = geometry.localLength(c.payloadLength)
        var end = p + c.localLength
        if c.localLength < c.payloadLength {
            guard end + 4 <= geometry.usableEnd else {
                throw StorageError.corrupt(page: number, "cell \(index) overflows its page")
            }
            c.overflow = base.u32(end)
            // Readers take a zero pointer to mean "all local": accepting one here would make them read
            // `payloadLength` bytes from the cell on, past the end of the page.
            guard c.overflow != 0 else {
                throw StorageError.corrupt(
                    page: number,
                    "cell \(index) spills \(c.payloadLength - c.localLength) bytes but has no overflow page")
            }
            end += 4
        }
        guard end <= geometry.usableEnd else {
            throw StorageError.corrupt(page: number, "cell \(index) overflows its page")
        }
        c.size = end - c.offset
        return c
    }

    /// The number of bytes cell `index` occupies, checked against the page bounds like ``cell(at:)`` but without
    /// building a ``Cell`` (page rebuilds need only sizes).
    @inline(__always)
    func cellSize(at index: Int) throws -> Int {
        let offset = try checkedOffset(index)
        let end = geometry.usableEnd
        /// A varint at `p`: its one-byte form inline, longer ones through ``varint(_:_:)``.
        @inline(__always) func read(_ p: Int) throws -> (value: UInt64, length: Int) {
            if p < end {
                let first = base.load(fromByteOffset: p, as: UInt8.self)
                if first < 0x80 { return (UInt64(first), 1) }
            }
            return try varint(p, index)
        }
        var p = offset
        let payload: UInt64
        switch base.u8(0) {
        case PageType.tableLeaf.rawValue:
            p += try read(p).length
            let l = try read(p)
            payload = l.value
            p += l.length
        case PageType.tableInterior.rawValue:
            guard p + 4 <= end else { throw StorageError.corrupt(page: number, "cell \(index) is truncated") }
            return 4 + (try read(p + 4).length)
        case PageType.indexLeaf.rawValue:
            let k = try read(p)
            let v = try read(p + k.length)
            guard k.value <= UInt64(TreePage.maxPayload), v.value <= UInt64(TreePage.maxPayload) - k.value else {
                throw StorageError.corrupt(page: number, "cell \(index) key/value lengths are too large")
            }
            payload = k.value + v.value
            p += k.length + v.length
        default:  // index interior
            guard p + 4 <= end else { throw StorageError.corrupt(page: number, "cell \(index) is truncated") }
            let k = try read(p + 4)
            payload = k.value
            p += 4 + k.length
        }
        guard payload <= UInt64(TreePage.maxPayload) else {
            throw StorageError.corrupt(page: number, "cell \(index) payload length \(payload) is too large")
        }
        let local = geometry.localLength(Int(payload))
        let cellEnd = p + local + (local < Int(payload) ? 4 : 0)
        guard cellEnd <= end else { throw StorageError.corrupt(page: number, "cell \(index) overflows its page") }
        return cellEnd - offset
    }

    /// The size of leaf cell `index` when its lengths are one-byte varints and its payload is all local (the
    /// common short cell), read without building a ``Cell``; nil for any other cell (then ``cellSize(at:)``
    /// decides, and reports damage). The cell is checked to lie in `contentStart ..< usableEnd`.
    @inline(__always)
    func quickLeafCellSize(at index: Int, contentStart: Int) -> Int? {
        let offset = cellOffset(index)
        let end = geometry.usableEnd
        guard offset >= contentStart, offset + 2 <= end else { return nil }
        let payload: Int
        var p = offset
        switch base.u8(0) {
        case PageType.indexLeaf.rawValue:
            let k = base.load(fromByteOffset: p, as: UInt8.self)
            let v = base.load(fromByteOffset: p + 1, as: UInt8.self)
            guard k < 0x80, v < 0x80 else { return nil }
            payload = Int(k) + Int(v)
            p += 2
        case PageType.tableLeaf.rawValue:
            // Rowid varint of up to three bytes, then a one-byte payload length.
            var n = 0
            while n < 3, p + n < end, base.load(fromByteOffset: p + n, as: UInt8.self) >= 0x80 { n += 1 }
            guard n < 3, p + n + 1 < end else { return nil }
            let length = base.load(fromByteOffset: p + n + 1, as: UInt8.self)
            guard length < 0x80 else { return nil }
            payload = Int(length)
            p += n + 2
        default:
            return nil
        }
        guard payload <= geometry.maxLocal, p + payload <= end else { return nil }
        return p + payload - offset
    }

    // MARK: Changing cells

    /// Inserts a cell at `index` if it fits (defragmenting when needed);
    /// returns `false` when the page has no room.
    func insertCell(_ cell: UnsafeRawBufferPointer, at index: Int) throws -> Bool {
        let size = cell.count
        guard size + 2 <= freeBytes else { return false }
        let count = cellCount
        if contentStart - TreeGeometry.headerSize - 2 * count < size + 2 {
            try defragment()
            // `freeBytes` trusts the header's fragmented-byte count; once the cells are packed the gap is the real
            // free space, and a damaged count would otherwise put the cell below the pointers or before the page.
            guard contentStart - TreeGeometry.headerSize - 2 * count >= size + 2 else {
                throw StorageError.corrupt(page: number, "fragmented byte count overstates the free space")
            }
        }
        let start = contentStart - size
        copyCell(to: base + start, from: cell.baseAddress!, count: size)
        base.setU16(4, start)
        let pointers = base + TreeGeometry.headerSize
        if index < count {
            (pointers + 2 * (index + 1)).copyMemory(from: pointers + 2 * index, byteCount: 2 * (count - index))
        }
        base.setU16(TreeGeometry.headerSize + 2 * index, start)
        base.setU16(2, count + 1)
        return true
    }

    /// Removes cell `index`, whose size is `size`.
    func removeCell(at index: Int, size: Int) {
        let count = cellCount
        let offset = cellOffset(index)
        let pointers = base + TreeGeometry.headerSize
        if index < count - 1 {
            (pointers + 2 * index).copyMemory(from: pointers + 2 * (index + 1), byteCount: 2 * (count - 1 - index))
        }
        base.setU16(2, count - 1)
        // Deleted bytes are zeroed: free space never keeps old data.
        (base + offset).initializeMemory(as: UInt8.self, repeating: 0, count: size)
        base.setU16(TreeGeometry.headerSize + 2 * (count - 1), 0)
        if count == 1 {
            base.setU16(4, geometry.usableEnd)
            base.setU16(6, 0)
        } else if offset == contentStart {
            base.setU16(4, contentStart + size)
        } else {
            base.setU16(6, fragmentedBytes + size)
        }
    }

    /// Moves every cell to the end of the page so the free space is one gap.
    func defragment() throws {
        let count = cellCount
        guard fragmentedBytes > 0 else { return }
        let copy = UnsafeMutableRawPointer.allocate(byteCount: geometry.pageSize, alignment: 16)
        defer { copy.deallocate() }
        copy.copyMemory(from: base, byteCount: geometry.pageSize)
        let source = TreePage(unchecked: number, base: copy, geometry: geometry)
        var end = geometry.usableEnd
        let start = contentStart
        for i in 0..<count {
            let size = try source.quickLeafCellSize(at: i, contentStart: start) ?? source.cellSize(at: i)
            guard end - size >= TreeGeometry.headerSize + 2 * count else {
                throw StorageError.corrupt(page: number, "cells overlap (their sizes exceed the page)")
            }
            end -= size
            copyCell(to: base + end, from: copy + source.cellOffset(i), count: size)
            base.setU16(TreeGeometry.headerSize + 2 * i, end)
        }
        let gapStart = TreeGeometry.headerSize + 2 * count
        (base + gapStart).initializeMemory(as: UInt8.self, repeating: 0, count: end - gapStart)
        base.setU16(4, end)
        base.setU16(6, 0)
    }
}

/// Copies `count` bytes between non-overlapping buffers; cells of 8 to 32 bytes (most index entries and short
/// rows) with a few unaligned word moves instead of a `memcpy` call.
@inline(__always)
func copyCell(to destination: UnsafeMutableRawPointer, from source: UnsafeRawPointer, count: Int) {
    if count >= 8 && count <= 32 {
        // Overlapping head and tail words cover every length in the range.
        if count <= 16 {
            let head = source.loadUnaligned(fromByteOffset: 0, as: UInt64.self)
            let tail = source.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            destination.storeBytes(of: head, toByteOffset: 0, as: UInt64.self)
            destination.storeBytes(of: tail, toByteOffset: count - 8, as: UInt64.self)
        } else {
            let a = source.loadUnaligned(fromByteOffset: 0, as: UInt64.self)
            let b = source.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
            let c = source.loadUnaligned(fromByteOffset: count - 16, as: UInt64.self)
            let d = source.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            destination.storeBytes(of: a, toByteOffset: 0, as: UInt64.self)
            destination.storeBytes(of: b, toByteOffset: 8, as: UInt64.self)
            destination.storeBytes(of: c, toByteOffset: count - 16, as: UInt64.self)
            destination.storeBytes(of: d, toByteOffset: count - 8, as: UInt64.self)
        }
    } else if count > 0 {
        destination.copyMemory(from: source, byteCount: count)
    }
}
