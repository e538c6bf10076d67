// Reading rows in place: FORMAT.md § "Values and the row format" and § "Compressed text" (the
// reader's checks). The serial types and shared helpers are in RowFormat.swift.

/// Sizes of one encoded row, for inspection tools.
package struct RowStats: Sendable, Hashable {
    /// The number of columns.
    package var columns: Int
    /// The size of the row as stored.
    package var storedBytes: Int
    /// The size the row would have with every compressed text stored plain (header included).
    package var plainBytes: Int
    /// The number of compressed-text columns.
    package var compressedColumns: Int

    /// Creates a value from its fields.
    package init(columns: Int, storedBytes: Int, plainBytes: Int, compressedColumns: Int) {
        self.columns = columns
        self.storedBytes = storedBytes
        self.plainBytes = plainBytes
        self.compressedColumns = compressedColumns
    }
}

/// Reads one encoded row in place.
///
/// The initializer validates the whole structure: the header length, every serial type, and that the
/// bodies fill the rest of the buffer exactly. Text is checked for valid UTF-8 (and compressed text
/// inflated and checked) when it is read: ``value(at:)`` returns bytes that are not valid UTF-8 as
/// ``Value/invalidUTF8Text(_:)``, ``text(at:)`` rejects them.
///
/// The decoder keeps `buffer` without copying it: the memory must stay valid and unchanged while the
/// decoder is used.
///
/// ```swift
/// try bytes.withUnsafeBytes { raw in
///     let row = try RowDecoder(raw)
///     let id = row.integer(at: 0)          // Int64?, no allocation
///     let name = try row.value(at: 1)      // .text("Ada")
/// }
/// ```
///
/// On hot paths keep one decoder and ``reset(_:)`` it for each row: it then reuses its column table
/// instead of allocating one per row.
public struct RowDecoder {
    /// One column's place in the buffer.
    @usableFromInline
    struct Column {
        @usableFromInline var serialType: UInt64
        @usableFromInline var offset: Int
        @usableFromInline var length: Int

        @inlinable
        init(serialType: UInt64, offset: Int, length: Int) {
            self.serialType = serialType
            self.offset = offset
            self.length = length
        }
    }

    /// The encoded row.
    public private(set) var buffer: UnsafeRawBufferPointer
    /// The header length in bytes (the offset of the first body).
    public private(set) var headerLength: Int
    /// Column slots; only the first `columnCount` are meaningful (the rest are kept for reuse).
    @usableFromInline var columns: [Column]
    @usableFromInline var columnCount: Int

    /// Creates a decoder holding no row (zero columns), to be loaded with ``reset(_:)``.
    public init() {
        buffer = UnsafeRawBufferPointer(start: nil, count: 0)
        headerLength = 0
        columns = []
        columnCount = 0
    }

    /// Parses and validates the header of the row in `buffer`.
    ///
    /// - Throws: ``StorageError/malformed(_:)`` when the header length or a serial type is invalid or
    ///   truncated, a serial type is reserved (10, 11), a compressed-text body lacks a valid length
    ///   prefix or claims more than ``TextCompression/maxUncompressedLength`` bytes, or the bodies do
    ///   not end exactly at the end of `buffer`.
    public init(_ buffer: UnsafeRawBufferPointer) throws {
        self.init()
        try reset(buffer)
    }

    /// Loads the row in `buffer`, reusing this decoder's storage (no allocation once it has held a row
    /// with as many columns). Validates as ``init(_:)`` does; after a throw the decoder holds no row.
    public mutating func reset(_ buffer: UnsafeRawBufferPointer) throws {
        self.buffer = UnsafeRawBufferPointer(start: nil, count: 0)
        headerLength = 0
        columnCount = 0
        let (h, count) = try Self.parse(buffer, into: &columns)
        self.buffer = buffer
        headerLength = h
        columnCount = count
    }

    /// Loads the first `limit` columns of the row in `buffer` (all of them when it has fewer), for a reader that
    /// needs no column at or after `limit`: the rest of the header is not parsed, nor checked. The columns it
    /// loads are validated as ``reset(_:)`` does, so reading them is safe on any bytes; ``count`` is then the
    /// smaller of the row's column count and `limit`.
    public mutating func reset(_ buffer: UnsafeRawBufferPointer, columnLimit limit: Int) throws {
        self.buffer = UnsafeRawBufferPointer(start: nil, count: 0)
        headerLength = 0
        columnCount = 0
        let (h, count) = try Self.parse(buffer, into: &columns, limit: limit)
        self.buffer = buffer
        headerLength = h
        columnCount = count
    }

    /// Validates the row in `buffer` and stores its columns at the start of `columns` (growing it when
    /// needed). Returns the header length and the column count. With a `limit`, parsing stops after that many
    /// columns (and the end of the last body is then not checked against the end of the buffer).
    static func parse(_ buffer: UnsafeRawBufferPointer, into columns: inout [Column], limit: Int = .max) throws
        -> (Int, Int)
    {
        guard let base = buffer.baseAddress, buffer.count > 0 else {
            throw StorageError.malformed("empty row")
        }
        let size = buffer.count
        guard let (h, lengthOfLength) = Varint.readInline(base, at: 0, limit: size) else {
            throw StorageError.malformed("row header length is not a valid varint")
        }
        guard h >= UInt64(lengthOfLength), h <= UInt64(size) else {
            throw StorageError.malformed("row header length \(h) is outside \(lengthOfLength)...\(size)")
        }
        let headerLength = Int(h)
        // Each serial type takes at least one header byte, so there are at most `maxColumns` columns. The
        // table grows by doubling as columns are actually parsed, so a corrupt header length costs nothing.
        let maxColumns = headerLength - lengthOfLength
        var count = 0
        var offset = lengthOfLength
        var bodyOffset = headerLength
        while true {
            let wanted = min(maxColumns, max(2 * count, 16))
            if columns.count < wanted {
                columns.append(
                    contentsOf: repeatElement(
                        Column(serialType: 0, offset: 0, length: 0), count: wanted - columns.count))
            }
            let finished = try columns.withUnsafeMutableBufferPointer { slots -> Bool in
                while offset < headerLength && count < limit {
                    if count == slots.count { return false }
                    let serialType: UInt64
                    let first = base.load(fromByteOffset: offset, as: UInt8.self)
                    if first < 0x80 {
                        serialType = UInt64(first)
                        offset += 1
                    } else {
                        guard let (value, n) = Varint.readInline(base, at: offset, limit: headerLength) else {
                            throw StorageError.malformed("serial type of column \(count) runs past the row header")
                        }
                        serialType = value
                        offset += n
                    }
                    let length: Int
                    switch serialType {
                    case 0, 1, 2:
                        length = 0
                    case 3...8:
                        length = RowCodec.integerWidth(ofSerialType: serialType)
                    case 9:
                        length = 8
                    case 10, 11:
                        throw StorageError.malformed("reserved serial type \(serialType) in column \(count)")
                    default:
                        let claimed = (serialType - 12) / 3
                        guard claimed <= UInt64(size - bodyOffset) else {
                            throw StorageError.malformed(
                                "column \(count) claims \(claimed) bytes, \(size - bodyOffset) remain")
                        }
                        length = Int(claimed)
                        if (serialType - 12) % 3 == 2 {
                            try checkCompressedPrefix(base + bodyOffset, length: length, column: count)
                        }
                    }
                    guard length <= size - bodyOffset else {
                        throw StorageError.malformed(
                            "column \(count) needs \(length) bytes, \(size - bodyOffset) remain")
                    }
                    slots[count] = Column(serialType: serialType, offset: bodyOffset, length: length)
                    count += 1
                    bodyOffset += length
                }
                return true
            }
            if finished { break }
        }
        guard bodyOffset == size || count == limit else {
            throw StorageError.malformed("\(size - bodyOffset) trailing bytes after the last column body")
        }
        return (headerLength, count)
    }

    /// Reads and checks the uncompressed-length varint at the start of a compressed-text body.
    static func checkCompressedPrefix(_ body: UnsafeRawPointer, length: Int, column: Int) throws {
        guard let (u, _) = Varint.read(body, at: 0, limit: length) else {
            throw StorageError.malformed("compressed text in column \(column) lacks a valid length")
        }
        guard u <= UInt64(TextCompression.maxUncompressedLength) else {
            throw StorageError.malformed("compressed text in column \(column) claims \(u) bytes")
        }
    }

    /// The number of columns.
    @inlinable
    public var count: Int { columnCount }

    /// The place of column `index`; traps when `index` is not in `0..<count` (a programming error).
    @inlinable
    func column(_ index: Int) -> Column {
        precondition(index >= 0 && index < columnCount, "row column index out of range")
        return columns[index]
    }

    /// The raw serial type of column `index` (see FORMAT.md).
    @inlinable
    public func serialType(at index: Int) -> UInt64 {
        column(index).serialType
    }

    /// The stored body bytes of column `index` (for compressed text: the length varint and the stream).
    @inlinable
    public func body(at index: Int) -> UnsafeRawBufferPointer {
        let column = column(index)
        return UnsafeRawBufferPointer(rebasing: buffer[column.offset..<column.offset + column.length])
    }

    /// The type of column `index`; compressed text is `.text`.
    @inlinable
    public func type(at index: Int) -> ValueType {
        let serialType = column(index).serialType
        switch serialType {
        case 0: return .null
        case 1...8: return .integer
        case 9: return .real
        default: return (serialType - 12) % 3 == 1 ? .blob : .text
        }
    }

    /// Whether column `index` is NULL.
    @inlinable
    public func isNull(at index: Int) -> Bool {
        column(index).serialType == 0
    }

    /// Whether column `index` is stored as compressed text.
    @inlinable
    public func isCompressed(at index: Int) -> Bool {
        let serialType = column(index).serialType
        return serialType >= 12 && (serialType - 12) % 3 == 2
    }

    /// The INTEGER in column `index`, or `nil` if the column is not an INTEGER.
    @inlinable
    public func integer(at index: Int) -> Int64? {
        let column = column(index)
        switch column.serialType {
        case 1: return 0
        case 2: return 1
        case 3...8: return RowCodec.loadInteger(buffer.baseAddress! + column.offset, width: column.length)
        default: return nil
        }
    }

    /// The number in column `index` as a `Double`: a REAL as stored, an INTEGER rounded to the nearest
    /// `Double`; `nil` for other types.
    @inlinable
    public func double(at index: Int) -> Double? {
        let column = column(index)
        if column.serialType == 9 {
            let bits = UInt64(littleEndian: (buffer.baseAddress! + column.offset).loadUnaligned(as: UInt64.self))
            return Double(bitPattern: bits)
        }
        return integer(at: index).map { Double($0) }
    }

    /// The bytes of column `index` if it is a plain (uncompressed) TEXT, not yet checked to be valid UTF-8;
    /// `nil` otherwise.
    @inlinable
    public func textBytes(at index: Int) -> UnsafeRawBufferPointer? {
        let serialType = column(index).serialType
        guard serialType >= 12 && (serialType - 12) % 3 == 0 else { return nil }
        return body(at: index)
    }

    /// Column `index` of the row in `buffer`, found without storing the header: its serial type and body. Nil
    /// when the row has no column `index`, when ``reset(_:columnLimit:)`` with `limit` (greater than `index`)
    /// would throw, or when one of those `limit` columns holds compressed text: the caller then uses a decoder.
    /// (Text bodies are not checked to be valid UTF-8.)
    @inlinable
    public static func locate(_ buffer: UnsafeRawBufferPointer, column index: Int, limit: Int) -> (
        serialType: UInt64, body: UnsafeRawBufferPointer
    )? {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return nil }
        let size = buffer.count
        var offset: Int
        let headerLength: Int
        let first = base.load(as: UInt8.self)
        if first < 0x80 {
            headerLength = Int(first)
            offset = 1
        } else {
            guard let (h, n) = Varint.read(base, at: 0, limit: size), h <= UInt64(size) else { return nil }
            headerLength = Int(h)
            offset = n
        }
        guard headerLength >= offset, headerLength <= size else { return nil }
        var bodyOffset = headerLength
        var count = 0
        var found: (serialType: UInt64, body: UnsafeRawBufferPointer)?
        while offset < headerLength && count < limit {
            guard let (serialType, n) = Varint.readInline(base, at: offset, limit: headerLength) else { return nil }
            offset += n
            let length: Int
            switch serialType {
            case 0, 1, 2: length = 0
            case 3, 4, 5, 6: length = Int(serialType) - 2
            case 7: length = 6
            case 8, 9: length = 8
            case 10, 11: return nil
            default:
                guard (serialType - 12) % 3 != 2 else { return nil }
                let claimed = (serialType - 12) / 3
                guard claimed <= UInt64(size - bodyOffset) else { return nil }
                length = Int(claimed)
            }
            // Fixed-width bodies too: with a limit the loop may end before the end-of-buffer check below.
            guard length <= size - bodyOffset else { return nil }
            if count == index {
                found = (serialType, UnsafeRawBufferPointer(start: base + bodyOffset, count: length))
            }
            count += 1
            bodyOffset += length
        }
        guard bodyOffset == size || count == limit else { return nil }
        return found
    }

    /// The bytes of column `index` if it is a BLOB; `nil` otherwise.
    @inlinable
    public func blobBytes(at index: Int) -> UnsafeRawBufferPointer? {
        let serialType = column(index).serialType
        guard serialType >= 12 && (serialType - 12) % 3 == 1 else { return nil }
        return body(at: index)
    }

    /// Writes the UTF-8 bytes of the TEXT in column `index` (inflated when compressed, not checked to be valid
    /// UTF-8) into `storage`, which it grows as needed, and returns their count; nil, writing nothing, when the
    /// column is not TEXT. The bytes are those ``value(at:)`` would make its TEXT of, without making a value.
    ///
    /// - Throws: ``StorageError/malformed(_:)`` when a compressed stream is damaged.
    package func copyText(at index: Int, into storage: inout TextStorage) throws -> Int? {
        let serialType = column(index).serialType
        guard serialType >= 12 else { return nil }
        switch (serialType - 12) % 3 {
        case 0:
            let body = body(at: index)
            storage.reserve(body.count)
            if let source = body.baseAddress { storage.start.copyMemory(from: source, byteCount: body.count) }
            return body.count
        case 2:
            let body = body(at: index)
            let (u, n) = Varint.read(body, at: 0)!  // checked by init
            let length = Int(u)
            let stream = UnsafeRawBufferPointer(rebasing: body[n...])
            try TextCompression.checkClaim(stream, expectedLength: length)
            storage.reserve(length + TextCompression.inflateSlack)
            try TextCompression.inflate(
                stream, expectedLength: length,
                into: UnsafeMutableRawBufferPointer(start: storage.start, count: length + TextCompression.inflateSlack))
            return length
        default:
            return nil
        }
    }

    /// The UTF-8 length of the text in column `index` (for compressed text the uncompressed length, read
    /// without inflating); `nil` if the column is not TEXT.
    public func textLength(at index: Int) -> Int? {
        let serialType = column(index).serialType
        guard serialType >= 12 else { return nil }
        switch (serialType - 12) % 3 {
        case 0:
            return column(index).length
        case 2:
            let column = column(index)
            // Checked by init.
            return Int(Varint.read(buffer.baseAddress!, at: column.offset, limit: column.offset + column.length)!.value)
        default:
            return nil
        }
    }

    /// The text in column `index`, inflated if compressed; `nil` if the column is not TEXT.
    ///
    /// - Throws: ``StorageError/malformed(_:)`` when the text is not valid UTF-8 or its compressed stream
    ///   is damaged.
    public func text(at index: Int) throws -> String? {
        let serialType = column(index).serialType
        guard serialType >= 12 else { return nil }
        switch (serialType - 12) % 3 {
        case 0:
            return try Self.makeString(body(at: index), column: index)
        case 2:
            guard case .text(let text) = try inflatedValue(at: index) else {
                throw StorageError.malformed("text in column \(index) is not valid UTF-8")
            }
            return text
        default:
            return nil
        }
    }

    /// The TEXT value of the compressed text in column `index`, inflated and length-checked:
    /// ``Value/invalidUTF8Text(_:)`` when its bytes are not valid UTF-8.
    func inflatedValue(at index: Int) throws -> Value {
        let body = body(at: index)
        let (u, n) = Varint.read(body, at: 0)!  // checked by init
        return try TextCompression.decompressedText(
            UnsafeRawBufferPointer(rebasing: body[n...]), expectedLength: Int(u))
    }

    /// Validates `utf8` and makes a `String` of it.
    @usableFromInline
    static func makeString(_ utf8: UnsafeRawBufferPointer, column: Int) throws -> String {
        guard let s = CodecBytes.validatedString(utf8) else {
            throw StorageError.malformed("text in column \(column) is not valid UTF-8")
        }
        return s
    }

    /// The value of column `index`; compressed text is inflated and returned as TEXT (``Value/text(_:)``, or
    /// ``Value/invalidUTF8Text(_:)`` for bytes that are not valid UTF-8).
    ///
    /// - Throws: ``StorageError/malformed(_:)`` when a compressed stream is damaged.
    public func value(at index: Int) throws -> Value {
        let column = column(index)
        let start = buffer.baseAddress! + column.offset
        switch column.serialType {
        case 0:
            return .null
        case 1:
            return .integer(0)
        case 2:
            return .integer(1)
        case 3...8:
            return .integer(RowCodec.loadInteger(start, width: column.length))
        case 9:
            return .real(Double(bitPattern: UInt64(littleEndian: start.loadUnaligned(as: UInt64.self))))
        default:
            switch (column.serialType - 12) % 3 {
            case 0:
                return Self.textValue(UnsafeRawBufferPointer(start: start, count: column.length))
            case 1:
                return .blob([UInt8](UnsafeRawBufferPointer(start: start, count: column.length)))
            default:
                return try inflatedValue(at: index)
            }
        }
    }

    /// ``Value/text(utf8:)`` of a plain text body. Out of line: inlined, its UTF-8 check made ``value(at:)`` save
    /// and restore more registers on every call, numbers included.
    @inline(never)
    static func textValue(_ utf8: UnsafeRawBufferPointer) -> Value {
        Value.text(utf8: utf8)
    }

    /// All values of the row, in column order.
    public func values() throws -> [Value] {
        var result: [Value] = []
        result.reserveCapacity(count)
        for index in 0..<count {
            result.append(try value(at: index))
        }
        return result
    }

    /// Decodes and fully validates the row in `buffer`.
    public static func decode(_ buffer: UnsafeRawBufferPointer) throws -> [Value] {
        try RowDecoder(buffer).values()
    }

    /// Decodes and fully validates the row in `bytes`.
    public static func decode(_ bytes: [UInt8]) throws -> [Value] {
        try bytes.withUnsafeBytes { try decode($0) }
    }

    /// Sizes of the row in `buffer`: stored, and with every compressed text stored plain. Validates the
    /// header but does not inflate.
    package static func stats(of buffer: UnsafeRawBufferPointer) throws -> RowStats {
        let row = try RowDecoder(buffer)
        var serialBytes = 0
        var bodyBytes = 0
        var compressedColumns = 0
        for index in 0..<row.count {
            if row.isCompressed(at: index) {
                let u = row.textLength(at: index)!
                serialBytes += Varint.length(of: RowCodec.serialType(kind: 0, length: u))
                bodyBytes += u
                compressedColumns += 1
            } else {
                serialBytes += Varint.length(of: row.serialType(at: index))
                bodyBytes += row.column(index).length
            }
        }
        return RowStats(
            columns: row.count, storedBytes: buffer.count,
            plainBytes: RowCodec.headerLength(serialBytes: serialBytes) + bodyBytes,
            compressedColumns: compressedColumns)
    }
}
