// Implements FORMAT.md § "Values and the row format" and § "Compressed text" (the row side).
//
// A row is: header length (varint, counting the whole header including itself), one serial type
// varint per column, then the column bodies in column order.
//
//   serial type  body                          serial type  body
//   0            NULL, none                    6            int32, 4 bytes
//   1            integer 0, none               7            int48, 6 bytes
//   2            integer 1, none               8            int64, 8 bytes
//   3            int8, 1 byte                  9            REAL, 8 bytes (binary64 bits)
//   4            int16, 2 bytes                10, 11       reserved, rejected
//   5            int24, 3 bytes                N >= 12      L = (N - 12) / 3 bytes of kind (N - 12) % 3:
//                                                           0 TEXT, 1 BLOB, 2 compressed TEXT
//
// Integers are two's complement and every fixed-width field is little-endian. A compressed-text
// body is a varint U (the UTF-8 length) followed by a zlib stream that inflates to exactly U bytes.

/// Internal helpers shared by the row encoder, builder and decoder.
@usableFromInline
enum RowCodec {
    /// The body width (0, 1, 2, 3, 4, 6 or 8) of the smallest encoding of `i`, and its serial type.
    @inlinable
    static func integerLayout(_ i: Int64) -> (serialType: UInt64, width: Int) {
        if i == 0 { return (1, 0) }
        if i == 1 { return (2, 0) }
        if i >= -0x80 && i < 0x80 { return (3, 1) }
        if i >= -0x8000 && i < 0x8000 { return (4, 2) }
        if i >= -0x80_0000 && i < 0x80_0000 { return (5, 3) }
        if i >= -0x8000_0000 && i < 0x8000_0000 { return (6, 4) }
        if i >= -0x8000_0000_0000 && i < 0x8000_0000_0000 { return (7, 6) }
        return (8, 8)
    }

    /// The body width of integer serial types 3...8 (any other input gives 0).
    @inlinable
    static func integerWidth(ofSerialType serialType: UInt64) -> Int {
        switch serialType {
        case 3: return 1
        case 4: return 2
        case 5: return 3
        case 6: return 4
        case 7: return 6
        case 8: return 8
        default: return 0
        }
    }

    /// Stores the low `width` bytes of `i`, little-endian.
    @inlinable
    static func storeInteger(_ i: Int64, width: Int, to pointer: UnsafeMutableRawPointer) {
        if width == 8 {
            pointer.storeBytes(of: UInt64(bitPattern: i).littleEndian, as: UInt64.self)
            return
        }
        var v = UInt64(bitPattern: i)
        for k in 0..<width {
            pointer.storeBytes(of: UInt8(truncatingIfNeeded: v), toByteOffset: k, as: UInt8.self)
            v >>= 8
        }
    }

    /// Loads a `width`-byte little-endian two's complement integer (width 1, 2, 3, 4, 6 or 8).
    @inlinable
    static func loadInteger(_ pointer: UnsafeRawPointer, width: Int) -> Int64 {
        switch width {
        case 1:
            return Int64(pointer.load(as: Int8.self))
        case 2:
            return Int64(Int16(littleEndian: pointer.loadUnaligned(as: Int16.self)))
        case 3:
            let low = Int64(UInt16(littleEndian: pointer.loadUnaligned(as: UInt16.self)))
            return Int64(pointer.load(fromByteOffset: 2, as: Int8.self)) << 16 | low
        case 4:
            return Int64(Int32(littleEndian: pointer.loadUnaligned(as: Int32.self)))
        case 6:
            let low = Int64(UInt32(littleEndian: pointer.loadUnaligned(as: UInt32.self)))
            let high = Int64(Int16(littleEndian: pointer.loadUnaligned(fromByteOffset: 4, as: Int16.self)))
            return high << 32 | low
        default:
            return Int64(littleEndian: pointer.loadUnaligned(as: Int64.self))
        }
    }

    /// The serial type of a TEXT (kind 0), BLOB (kind 1) or compressed TEXT (kind 2) body of `length` bytes.
    @inlinable
    static func serialType(kind: UInt64, length: Int) -> UInt64 {
        12 + 3 * UInt64(length) + kind
    }

    /// The total header length for `serialBytes` bytes of serial types: the smallest `h` with
    /// `h == serialBytes + Varint.length(of: h)`.
    @inlinable
    static func headerLength(serialBytes: Int) -> Int {
        var lengthOfLength = 1
        while true {
            let h = serialBytes + lengthOfLength
            let l = Varint.length(of: UInt64(h))
            if l <= lengthOfLength { return h }
            lengthOfLength = l
        }
    }

    /// The compressed-text body (U varint + zlib stream) for `utf8`, or `nil` unless it is strictly shorter
    /// than `utf8`.
    @usableFromInline
    static func compressedBody(_ utf8: UnsafeRawBufferPointer) -> [UInt8]? {
        let u = UInt64(utf8.count)
        let prefix = Varint.length(of: u)
        guard var body = TextCompression.compress(utf8, prefix: prefix, maxLength: utf8.count - 1) else {
            return nil
        }
        body.withUnsafeMutableBytes { _ = Varint.write(u, to: $0.baseAddress!) }
        return body
    }

    /// Calls `body` with the UTF-8 bytes of `string` (no copy for native strings).
    @inlinable
    static func withUTF8<R>(_ string: String, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var s = string
        return try s.withUTF8 { try body(UnsafeRawBufferPointer($0)) }
    }
}

/// Encodes rows (lists of ``Value``) into the row format, compressing long text.
///
/// ```swift
/// let encoder = RowEncoder()                      // compress TEXT of 128 UTF-8 bytes or more
/// var buffer: [UInt8] = []
/// encoder.encode([.integer(42), .text("Ada")], into: &buffer)
/// let values = try RowDecoder.decode(buffer)      // [.integer(42), .text("Ada")]
/// ```
///
/// Integers take the smallest serial type that holds them. A TEXT value whose UTF-8 length is at least
/// ``compressionThreshold`` is deflated and stored as compressed text only when that body (length varint
/// included) is strictly smaller than the plain text; otherwise it is stored plain.
public struct RowEncoder: Sendable {
    /// The UTF-8 length from which TEXT values are tried compressed; `nil` never compresses.
    public let compressionThreshold: Int?

    /// Creates an encoder that tries to compress TEXT values of at least `compressionThreshold` UTF-8 bytes
    /// (`nil`: never compress).
    public init(compressionThreshold: Int? = 128) {
        self.compressionThreshold = compressionThreshold
    }

    /// Whether a TEXT value of `count` UTF-8 bytes is worth trying to compress.
    @inlinable
    func triesCompression(ofLength count: Int) -> Bool {
        guard let threshold = compressionThreshold else { return false }
        return count >= threshold
    }

    /// Appends the encoding of the row `values` to `bytes`.
    public func encode(_ values: [Value], into bytes: inout [UInt8]) {
        encode(values, count: values.count, into: &bytes)
    }

    /// Appends the encoding of the row made of the first `count` of `values` to `bytes`, with column `nullAt`
    /// (if in range) encoded as NULL whatever its value: a table row without its rowid alias, without copying
    /// the values into a new array.
    public func encode(_ values: [Value], count: Int, nullAt: Int = -1, into bytes: inout [UInt8]) {
        precondition(count <= values.count, "count exceeds the values given")
        // Pass 1: sizes, and the compressed bodies (kept only where compression pays).
        var compressed: [(column: Int, body: [UInt8])] = []
        var serialBytes = 0
        var bodyBytes = 0
        for column in 0..<count {
            if column == nullAt {
                serialBytes += 1
                continue
            }
            switch values[column] {
            case .null:
                serialBytes += 1
            case .integer(let i):
                serialBytes += 1
                bodyBytes += RowCodec.integerLayout(i).width
            case .real:
                serialBytes += 1
                bodyBytes += 8
            case .text(let s):
                let count = s.utf8.count
                var length = count
                var kind: UInt64 = 0
                if triesCompression(ofLength: count),
                    let body = RowCodec.withUTF8(s, { RowCodec.compressedBody($0) })
                {
                    compressed.append((column, body))
                    length = body.count
                    kind = 2
                }
                serialBytes += Varint.length(of: RowCodec.serialType(kind: kind, length: length))
                bodyBytes += length
            case .blob(let b):
                serialBytes += Varint.length(of: RowCodec.serialType(kind: 1, length: b.count))
                bodyBytes += b.count
            }
        }
        let headerLength = RowCodec.headerLength(serialBytes: serialBytes)
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: headerLength + bodyBytes))

        // Pass 2: write the header and the bodies.
        bytes.withUnsafeMutableBytes { raw in
            let base = raw.baseAddress! + start
            var h = Varint.write(UInt64(headerLength), to: base)
            var b = headerLength
            var nextCompressed = 0
            for column in 0..<count {
                if column == nullAt {
                    base.storeBytes(of: 0, toByteOffset: h, as: UInt8.self)
                    h += 1
                    continue
                }
                switch values[column] {
                case .null:
                    base.storeBytes(of: 0, toByteOffset: h, as: UInt8.self)
                    h += 1
                case .integer(let i):
                    let (serialType, width) = RowCodec.integerLayout(i)
                    base.storeBytes(of: UInt8(serialType), toByteOffset: h, as: UInt8.self)
                    h += 1
                    RowCodec.storeInteger(i, width: width, to: base + b)
                    b += width
                case .real(let d):
                    base.storeBytes(of: 9, toByteOffset: h, as: UInt8.self)
                    h += 1
                    (base + b).storeBytes(of: d.bitPattern.littleEndian, as: UInt64.self)
                    b += 8
                case .text(let s):
                    if nextCompressed < compressed.count && compressed[nextCompressed].column == column {
                        compressed[nextCompressed].body.withUnsafeBytes { body in
                            h += Varint.write(RowCodec.serialType(kind: 2, length: body.count), to: base + h)
                            (base + b).copyMemory(from: body.baseAddress!, byteCount: body.count)
                            b += body.count
                        }
                        nextCompressed += 1
                    } else {
                        RowCodec.withUTF8(s) { utf8 in
                            h += Varint.write(RowCodec.serialType(kind: 0, length: utf8.count), to: base + h)
                            if let source = utf8.baseAddress, utf8.count > 0 {
                                (base + b).copyMemory(from: source, byteCount: utf8.count)
                            }
                            b += utf8.count
                        }
                    }
                case .blob(let bytes):
                    h += Varint.write(RowCodec.serialType(kind: 1, length: bytes.count), to: base + h)
                    bytes.withUnsafeBytes { source in
                        if let sourceBase = source.baseAddress, source.count > 0 {
                            (base + b).copyMemory(from: sourceBase, byteCount: source.count)
                        }
                    }
                    b += bytes.count
                }
            }
            assert(h == headerLength && b == headerLength + bodyBytes)
        }
    }

    /// Returns the encoding of the row `values`.
    public func encode(_ values: [Value]) -> [UInt8] {
        var bytes: [UInt8] = []
        encode(values, into: &bytes)
        return bytes
    }
}

/// Builds one row column by column, without an intermediate `[Value]`; reusable across rows.
///
/// ```swift
/// var builder = RowBuilder()
/// builder.append(integer: 42)
/// builder.append(text: "Ada")
/// builder.appendNull()
/// var bytes: [UInt8] = []
/// builder.finish(into: &bytes)       // same bytes as RowEncoder().encode([.integer(42), .text("Ada"), .null])
/// builder.reset()                    // keeps its buffers for the next row
/// ```
package struct RowBuilder: Sendable {
    /// The encoder whose compression policy text columns follow.
    package let encoder: RowEncoder
    @usableFromInline var serialTypes: [UInt8] = []
    @usableFromInline var bodies: [UInt8] = []
    @usableFromInline var columnCount = 0

    /// The number of columns appended since the last ``reset()``.
    package var count: Int { columnCount }

    /// Creates an empty builder that compresses text as `encoder` does.
    package init(encoder: RowEncoder = RowEncoder()) {
        self.encoder = encoder
    }

    /// Empties the builder, keeping its buffers' capacity.
    package mutating func reset() {
        serialTypes.removeAll(keepingCapacity: true)
        bodies.removeAll(keepingCapacity: true)
        columnCount = 0
    }

    /// Appends a NULL column.
    @inlinable
    package mutating func appendNull() {
        serialTypes.append(0)
        columnCount += 1
    }

    /// Appends an INTEGER column.
    @inlinable
    package mutating func append(integer value: Int64) {
        let (serialType, width) = RowCodec.integerLayout(value)
        serialTypes.append(UInt8(serialType))
        var v = UInt64(bitPattern: value)
        for _ in 0..<width {
            bodies.append(UInt8(truncatingIfNeeded: v))
            v >>= 8
        }
        columnCount += 1
    }

    /// Appends a REAL column.
    @inlinable
    package mutating func append(real value: Double) {
        serialTypes.append(9)
        var v = value.bitPattern
        for _ in 0..<8 {
            bodies.append(UInt8(truncatingIfNeeded: v))
            v >>= 8
        }
        columnCount += 1
    }

    /// Appends a TEXT column, compressed if the encoder's policy says so.
    package mutating func append(text: String) {
        RowCodec.withUTF8(text) { utf8 in
            if encoder.triesCompression(ofLength: utf8.count), let body = RowCodec.compressedBody(utf8) {
                Varint.append(RowCodec.serialType(kind: 2, length: body.count), to: &serialTypes)
                bodies.append(contentsOf: body)
            } else {
                Varint.append(RowCodec.serialType(kind: 0, length: utf8.count), to: &serialTypes)
                bodies.append(contentsOf: utf8)
            }
        }
        columnCount += 1
    }

    /// Appends a BLOB column holding `bytes`.
    package mutating func append(blob bytes: UnsafeRawBufferPointer) {
        Varint.append(RowCodec.serialType(kind: 1, length: bytes.count), to: &serialTypes)
        bodies.append(contentsOf: bytes)
        columnCount += 1
    }

    /// Appends a BLOB column holding `bytes`.
    package mutating func append(blob bytes: [UInt8]) {
        bytes.withUnsafeBytes { append(blob: $0) }
    }

    /// Appends a column holding `value`.
    package mutating func append(_ value: Value) {
        switch value {
        case .null: appendNull()
        case .integer(let i): append(integer: i)
        case .real(let d): append(real: d)
        case .text(let s): append(text: s)
        case .blob(let b): append(blob: b)
        }
    }

    /// Appends column `index` of `row` exactly as stored there (a compressed text stays compressed, no
    /// re-encoding).
    package mutating func append(columnOf row: RowDecoder, at index: Int) {
        Varint.append(row.serialType(at: index), to: &serialTypes)
        bodies.append(contentsOf: row.body(at: index))
        columnCount += 1
    }

    /// Appends the encoded row (header length, serial types, bodies) to `bytes`.
    package func finish(into bytes: inout [UInt8]) {
        let headerLength = RowCodec.headerLength(serialBytes: serialTypes.count)
        bytes.reserveCapacity(bytes.count + headerLength + bodies.count)
        Varint.append(UInt64(headerLength), to: &bytes)
        bytes.append(contentsOf: serialTypes)
        bytes.append(contentsOf: bodies)
    }

    /// Returns the encoded row.
    package func finish() -> [UInt8] {
        var bytes: [UInt8] = []
        finish(into: &bytes)
        return bytes
    }
}

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
/// inflated and checked) when it is read, by ``value(at:)`` or ``text(at:)``.
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
            let utf8 = try inflatedText(at: index)
            return try utf8.withUnsafeBytes { try Self.makeString($0, column: index) }
        default:
            return nil
        }
    }

    /// The UTF-8 bytes of the compressed text in column `index`, inflated and length-checked (not
    /// UTF-8-checked).
    func inflatedText(at index: Int) throws -> [UInt8] {
        let body = body(at: index)
        let (u, n) = Varint.read(body, at: 0)!  // checked by init
        return try TextCompression.decompress(
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

    /// The value of column `index`; compressed text is inflated and returned as `.text`.
    ///
    /// - Throws: ``StorageError/malformed(_:)`` when text is not valid UTF-8 or a compressed stream is
    ///   damaged.
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
                return .text(
                    try Self.makeString(UnsafeRawBufferPointer(start: start, count: column.length), column: index))
            case 1:
                return .blob([UInt8](UnsafeRawBufferPointer(start: start, count: column.length)))
            default:
                return .text(try text(at: index)!)
            }
        }
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
