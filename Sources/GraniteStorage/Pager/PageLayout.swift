// Implements FORMAT.md § "Pages": page numbering, page types and the checksum trailer.

/// A 1-based page number; page 1 is the header page and 0 means "no page".
public typealias PageNumber = UInt32

/// The type byte at offset 0 of every page except the header page.
public enum PageType: UInt8, Sendable, CustomStringConvertible {
    /// Page 1: the file header.
    case header = 1
    /// Interior page of a table tree (rowid separators and child pointers).
    case tableInterior = 2
    /// Leaf page of a table tree (rowid → row payload).
    case tableLeaf = 3
    /// Interior page of an index tree (key separators and child pointers).
    case indexInterior = 4
    /// Leaf page of an index tree (key → value).
    case indexLeaf = 5
    /// One page of an overflow chain.
    case overflow = 6
    /// A freelist trunk page listing free pages.
    case freelistTrunk = 7

    /// Whether the type is one of the four B+tree page types.
    public var isTreePage: Bool { rawValue >= 2 && rawValue <= 5 }

    public var description: String {
        switch self {
        case .header: return "header"
        case .tableInterior: return "table-interior"
        case .tableLeaf: return "table-leaf"
        case .indexInterior: return "index-interior"
        case .indexLeaf: return "index-leaf"
        case .overflow: return "overflow"
        case .freelistTrunk: return "freelist-trunk"
        }
    }
}

/// Sizes and offsets shared by every page.
public enum PageLayout {
    /// The smallest supported page size.
    public static let minimumPageSize = 512
    /// The largest supported page size.
    public static let maximumPageSize = 65536
    /// The default page size.
    public static let defaultPageSize = 4096
    /// Bytes at the end of every page holding its CRC-32.
    public static let trailerSize = 4

    /// Whether `size` is a power of two between the minimum and maximum.
    public static func isValidPageSize(_ size: Int) -> Bool {
        size >= minimumPageSize && size <= maximumPageSize && size & (size - 1) == 0
    }

    /// The checksum stored in a page's trailer: the low 32 bits of XXH64
    /// over bytes `0 ..< pageSize - 4`, seeded with the page number.
    @inlinable
    public static func checksum(of page: UnsafeRawPointer, number: PageNumber, pageSize: Int) -> UInt32 {
        Checksum.checksum32(page, count: pageSize - trailerSize, seed: UInt64(number))
    }

    /// Writes the trailer checksum of a page.
    @inlinable
    public static func seal(_ page: UnsafeMutableRawPointer, number: PageNumber, pageSize: Int) {
        let crc = checksum(of: page, number: number, pageSize: pageSize)
        page.storeBytes(of: crc.littleEndian, toByteOffset: pageSize - trailerSize, as: UInt32.self)
    }

    /// Whether a page's trailer matches its contents.
    @inlinable
    public static func verify(_ page: UnsafeRawPointer, number: PageNumber, pageSize: Int) -> Bool {
        let stored = UInt32(littleEndian: page.loadUnaligned(fromByteOffset: pageSize - trailerSize, as: UInt32.self))
        return stored == checksum(of: page, number: number, pageSize: pageSize)
    }
}

extension UnsafeRawPointer {
    @inlinable func u16(_ offset: Int) -> Int {
        Int(UInt16(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
    }
    @inlinable func u32(_ offset: Int) -> UInt32 {
        UInt32(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }
    @inlinable func u64(_ offset: Int) -> UInt64 {
        UInt64(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }
    @inlinable func u8(_ offset: Int) -> UInt8 {
        load(fromByteOffset: offset, as: UInt8.self)
    }
}

extension UnsafeMutableRawPointer {
    @inlinable func u16(_ offset: Int) -> Int { UnsafeRawPointer(self).u16(offset) }
    @inlinable func u32(_ offset: Int) -> UInt32 { UnsafeRawPointer(self).u32(offset) }
    @inlinable func u64(_ offset: Int) -> UInt64 { UnsafeRawPointer(self).u64(offset) }
    @inlinable func u8(_ offset: Int) -> UInt8 { load(fromByteOffset: offset, as: UInt8.self) }
    @inlinable func setU16(_ offset: Int, _ value: Int) {
        storeBytes(of: UInt16(truncatingIfNeeded: value).littleEndian, toByteOffset: offset, as: UInt16.self)
    }
    @inlinable func setU32(_ offset: Int, _ value: UInt32) {
        storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt32.self)
    }
    @inlinable func setU64(_ offset: Int, _ value: UInt64) {
        storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt64.self)
    }
    @inlinable func setU8(_ offset: Int, _ value: UInt8) {
        storeBytes(of: value, toByteOffset: offset, as: UInt8.self)
    }
}
