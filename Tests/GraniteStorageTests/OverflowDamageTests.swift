import XCTest

@testable import GraniteStorage

/// A cell whose payload continues on overflow pages, damaged with a valid checksum: the read paths (not only the
/// integrity check) must throw an error naming the page, never hand out bytes from beyond the page buffer.
final class OverflowDamageTests: XCTestCase {
    static let pageSize = 512

    /// A file holding one table row and one index entry, each too long for its cell; returns the file image and
    /// the leaf page of each tree (a single-leaf tree's root).
    static func makeFile() throws -> (bytes: [UInt8], tableLeaf: PageNumber, indexLeaf: PageNumber) {
        var options = StorageOptions()
        options.pageSize = pageSize
        let file = MemoryFile()
        let engine = try StorageEngine(file: file, options: options)
        try engine.beginWrite()
        let table = try engine.createTable(named: "big")
        try table.insert(rowid: 1, payload: payloadBytes(1_500, seed: 7))
        let index = try engine.createIndex(named: "i")
        try index.insert(key: [1, 2, 3], value: payloadBytes(1_200, seed: 8))
        try engine.commitAndRead()
        let tableRoot = try XCTUnwrap(try engine.treeInfo(named: "big")).root
        let indexRoot = try XCTUnwrap(try engine.treeInfo(named: "i")).root
        try engine.close()
        return (file.bytes, tableRoot, indexRoot)
    }

    /// `bytes` with the overflow pointer of cell 0 of `page` set to `value`, the page resealed.
    static func settingOverflowPointer(_ bytes: [UInt8], page: PageNumber, to value: UInt32) -> [UInt8] {
        var copy = bytes
        copy.withUnsafeMutableBytes { buffer in
            let base = buffer.baseAddress! + Int(page - 1) * pageSize
            let geometry = TreeGeometry(pageSize: pageSize)
            let kind: TreeKind = base.u8(0) == PageType.tableLeaf.rawValue ? .table : .index
            let leaf = try! TreePage(number: page, base: base, geometry: geometry, kind: kind)
            let cell = try! leaf.cell(at: 0)
            precondition(cell.overflow != 0, "the sample cell must spill")
            base.setU32(cell.localOffset + cell.localLength, value)
            PageLayout.seal(base, number: page, pageSize: pageSize)
        }
        return copy
    }

    /// Checks that `body` throws a corrupt-page error naming `page`.
    static func assertCorruptNaming(
        _ page: PageNumber, _ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            guard case StorageError.corrupt(let named, _) = error else {
                return XCTFail("expected a corrupt-page error, got \(error)", file: file, line: line)
            }
            XCTAssertEqual(named, page, "\(error)", file: file, line: line)
        }
    }

    func testSampleReadsBack() throws {
        let (bytes, _, _) = try Self.makeFile()
        let engine = try StorageEngine(file: MemoryFile(bytes: bytes))
        try engine.beginWrite()
        XCTAssertEqual(try engine.table(named: "big").get(rowid: 1), payloadBytes(1_500, seed: 7))
        XCTAssertEqual(try engine.index(named: "i").get(key: [1, 2, 3]), payloadBytes(1_200, seed: 8))
    }

    /// The reported bug: overflow pointer 0 made the payload look local, and `payloadLength` bytes were read
    /// from the cell onwards, past the page buffer.
    func testTableCellWithOverflowPointerZero() throws {
        let (bytes, leaf, _) = try Self.makeFile()
        let damaged = Self.settingOverflowPointer(bytes, page: leaf, to: 0)
        let engine = try StorageEngine(file: MemoryFile(bytes: damaged))
        try engine.beginWrite()
        let table = try engine.table(named: "big")
        Self.assertCorruptNaming(leaf) { _ = try table.get(rowid: 1) }
        // The cursor meets the damage as it lands on the cell (it parses the cell then).
        Self.assertCorruptNaming(leaf) {
            let cursor = try table.makeCursor()
            _ = try cursor.first()
            _ = try cursor.payload()
        }
        XCTAssertFalse(engine.checkIntegrity().isOK)
    }

    func testIndexCellWithOverflowPointerZero() throws {
        let (bytes, _, leaf) = try Self.makeFile()
        let damaged = Self.settingOverflowPointer(bytes, page: leaf, to: 0)
        let engine = try StorageEngine(file: MemoryFile(bytes: damaged))
        try engine.beginWrite()
        let index = try engine.index(named: "i")
        Self.assertCorruptNaming(leaf) { _ = try index.get(key: [1, 2, 3]) }
        // The cursor meets the damage as it lands on the cell (it parses the cell then).
        Self.assertCorruptNaming(leaf) {
            let cursor = try index.makeCursor()
            _ = try cursor.first()
            _ = try cursor.payload()
        }
    }

    /// Pointers to the header page or beyond the last page are refused before any page is read.
    func testOverflowPointerOutOfRange() throws {
        let (bytes, leaf, _) = try Self.makeFile()
        for pointer: UInt32 in [1, UInt32(bytes.count / Self.pageSize + 1), .max] {
            let damaged = Self.settingOverflowPointer(bytes, page: leaf, to: pointer)
            let engine = try StorageEngine(file: MemoryFile(bytes: damaged))
            try engine.beginWrite()
            Self.assertCorruptNaming(leaf) { _ = try engine.table(named: "big").get(rowid: 1) }
        }
    }

    /// A chain whose second page points back to its first: reads and deletes both refuse it (a delete used to
    /// free the looping pages twice, putting them on the freelist twice).
    func testLoopingOverflowChain() throws {
        let (bytes, leaf, _) = try Self.makeFile()
        var damaged = bytes
        var first: PageNumber = 0
        var second: PageNumber = 0
        damaged.withUnsafeMutableBytes { buffer in
            let base = buffer.baseAddress!
            let leafBase = base + Int(leaf - 1) * Self.pageSize
            let page = try! TreePage(
                number: leaf, base: leafBase, geometry: TreeGeometry(pageSize: Self.pageSize), kind: .table)
            first = try! page.cell(at: 0).overflow
            let firstBase = base + Int(first - 1) * Self.pageSize
            second = firstBase.u32(4)
            let secondBase = base + Int(second - 1) * Self.pageSize
            precondition(second != 0 && secondBase.u32(4) != 0, "the sample chain must have three pages")
            secondBase.setU32(4, first)
            PageLayout.seal(secondBase, number: second, pageSize: Self.pageSize)
        }
        let engine = try StorageEngine(file: MemoryFile(bytes: damaged))
        try engine.beginWrite()
        let table = try engine.table(named: "big")
        XCTAssertThrowsError(try table.get(rowid: 1))
        Self.assertCorruptNaming(first) { _ = try table.delete(rowid: 1) }
        if engine.isInTransaction { try engine.rollback() }
        try engine.beginWrite()
        Self.assertCorruptNaming(first) { try engine.dropTree(named: "big") }
    }

    /// Two child pointers of an interior page naming the same child: dropping the tree refuses to free that child
    /// twice.
    func testDroppingATreeWithASharedChild() throws {
        var options = StorageOptions()
        options.pageSize = Self.pageSize
        let file = MemoryFile()
        let engine = try StorageEngine(file: file, options: options)
        try engine.beginWrite()
        let table = try engine.createTable(named: "wide")
        for i in 1...200 { try table.insert(rowid: Int64(i), payload: payloadBytes(50, seed: UInt64(i))) }
        try engine.commitAndRead()
        let root = try XCTUnwrap(try engine.treeInfo(named: "wide")).root
        try engine.close()
        var damaged = file.bytes
        damaged.withUnsafeMutableBytes { buffer in
            let base = buffer.baseAddress! + Int(root - 1) * Self.pageSize
            let page = try! TreePage(
                number: root, base: base, geometry: TreeGeometry(pageSize: Self.pageSize), kind: .table)
            precondition(!page.isLeaf && page.cellCount >= 2, "the sample root must be an interior page")
            page.setChild(at: 1, try! page.child(at: 0))
            PageLayout.seal(base, number: root, pageSize: Self.pageSize)
        }
        let reopened = try StorageEngine(file: MemoryFile(bytes: damaged))
        try reopened.beginWrite()
        Self.assertCorruptNaming(root) { try reopened.dropTree(named: "wide") }
    }

    /// A payload length raised (in place: same varint size, same local part) far beyond what the file's pages could
    /// hold is refused before any memory is reserved for it or any chain page is read.
    func testPayloadLongerThanTheFileCouldHold() throws {
        let (bytes, leaf, _) = try Self.makeFile()
        var damaged = bytes
        damaged.withUnsafeMutableBytes { buffer in
            let base = buffer.baseAddress! + Int(leaf - 1) * Self.pageSize
            let geometry = TreeGeometry(pageSize: Self.pageSize)
            let page = try! TreePage(number: leaf, base: base, geometry: geometry, kind: .table)
            let cell = try! page.cell(at: 0)
            // Rowid 1 (one byte), then the length 1,500 as two bytes; 16,383 keeps both and the local length.
            precondition(base.u8(cell.offset) == 1 && cell.localOffset == cell.offset + 3)
            precondition(geometry.localLength(16_383) == cell.localLength)
            base.setU8(cell.offset + 1, 0xFF)
            base.setU8(cell.offset + 2, 0x7F)
            PageLayout.seal(base, number: leaf, pageSize: Self.pageSize)
        }
        let engine = try StorageEngine(file: MemoryFile(bytes: damaged))
        try engine.beginWrite()
        XCTAssertThrowsError(try engine.table(named: "big").get(rowid: 1)) { error in
            guard case StorageError.corrupt(let page, let message) = error else { return XCTFail("got \(error)") }
            XCTAssertEqual(page, leaf)
            XCTAssertTrue(message.hasPrefix("payload of 16383 bytes needs 33 overflow pages"), message)
        }
    }

    /// An overflow pointer naming a page that is not an overflow page (here the leaf itself).
    func testOverflowPointerToATreePage() throws {
        let (bytes, leaf, _) = try Self.makeFile()
        let damaged = Self.settingOverflowPointer(bytes, page: leaf, to: leaf)
        let engine = try StorageEngine(file: MemoryFile(bytes: damaged))
        try engine.beginWrite()
        Self.assertCorruptNaming(leaf) { _ = try engine.table(named: "big").get(rowid: 1) }
    }
}
