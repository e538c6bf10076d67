// Implements FORMAT.md § "The header page".

/// The fields of the file header, stored in the first 64 bytes of page 1.
public struct FileHeader: Equatable, Sendable {
    /// The eight magic bytes at offset 0: "Granite" followed by a zero byte.
    public static let magic: [UInt8] = Array("Granite".utf8) + [0]
    /// The format version this code writes and reads.
    public static let currentFormatVersion: UInt32 = 2
    /// The number of bytes the header occupies, including its checksum.
    public static let size = 64

    /// The format version (offset 8).
    public var formatVersion: UInt32 = FileHeader.currentFormatVersion
    /// The page size in bytes (offset 12).
    public var pageSize: UInt32
    /// The number of pages in the database, header page included (offset 16).
    public var pageCount: UInt32
    /// The first freelist trunk page, 0 when the freelist is empty (offset 20).
    public var freelistHead: PageNumber = 0
    /// The number of free pages, trunks included (offset 24).
    public var freelistCount: UInt32 = 0
    /// The root page of the catalog tree (offset 28).
    public var catalogRoot: PageNumber = 0
    /// Incremented by every commit (offset 32).
    public var changeCounter: UInt64 = 0
    /// A number free for applications (`PRAGMA user_version`) (offset 40).
    public var userVersion: UInt32 = 0
    /// Incremented by every transaction that changes the SQL schema (offset 44); 0 in a new file.
    public var schemaCookie: UInt32 = 0

    /// A header for a new, empty database.
    public init(pageSize: Int) {
        self.pageSize = UInt32(pageSize)
        self.pageCount = 1
    }

    /// Serialises the header into the first ``size`` bytes at `pointer`,
    /// including the header checksum at offset 60.
    public func write(to pointer: UnsafeMutableRawPointer) {
        for (i, byte) in FileHeader.magic.enumerated() { pointer.setU8(i, byte) }
        pointer.setU32(8, formatVersion)
        pointer.setU32(12, pageSize)
        pointer.setU32(16, pageCount)
        pointer.setU32(20, freelistHead)
        pointer.setU32(24, freelistCount)
        pointer.setU32(28, catalogRoot)
        pointer.setU64(32, changeCounter)
        pointer.setU32(40, userVersion)
        pointer.setU32(44, schemaCookie)
        for offset in 48..<60 { pointer.setU8(offset, 0) }
        pointer.setU32(60, Checksum.checksum32(pointer, count: 60))
    }

    /// Parses and validates a header from at least ``size`` bytes.
    public init(reading pointer: UnsafeRawPointer) throws {
        for (i, byte) in FileHeader.magic.enumerated() where pointer.u8(i) != byte {
            throw StorageError.notADatabase("bad magic bytes")
        }
        let stored = pointer.u32(60)
        guard stored == Checksum.checksum32(pointer, count: 60) else {
            throw StorageError.corrupt(page: 1, "header checksum mismatch")
        }
        formatVersion = pointer.u32(8)
        guard formatVersion == FileHeader.currentFormatVersion else {
            throw StorageError.notADatabase("unsupported format version \(formatVersion)")
        }
        pageSize = pointer.u32(12)
        guard PageLayout.isValidPageSize(Int(pageSize)) else {
            throw StorageError.corrupt(page: 1, "invalid page size \(pageSize)")
        }
        pageCount = pointer.u32(16)
        freelistHead = pointer.u32(20)
        freelistCount = pointer.u32(24)
        catalogRoot = pointer.u32(28)
        changeCounter = pointer.u64(32)
        userVersion = pointer.u32(40)
        schemaCookie = pointer.u32(44)
        guard pageCount >= 2 else { throw StorageError.corrupt(page: 1, "page count \(pageCount) is too small") }
        guard catalogRoot >= 2, catalogRoot <= pageCount else {
            throw StorageError.corrupt(page: 1, "catalog root \(catalogRoot) out of range")
        }
        guard freelistHead <= pageCount, freelistCount < pageCount, (freelistHead == 0) == (freelistCount == 0) else {
            throw StorageError.corrupt(page: 1, "invalid freelist head \(freelistHead) / count \(freelistCount)")
        }
    }
}
