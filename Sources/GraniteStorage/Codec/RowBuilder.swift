// Writing rows column by column, with RowEncoder's bytes and compression policy (RowEncoder.swift).

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
        RowCodec.withUTF8(text) { append(textUTF8: $0) }
    }

    /// Appends a TEXT column of UTF-8 bytes `utf8`, valid or not, compressed if the encoder's policy says so.
    package mutating func append(textUTF8 utf8: UnsafeRawBufferPointer) {
        if encoder.triesCompression(ofLength: utf8.count), let body = RowCodec.compressedBody(utf8) {
            Varint.append(RowCodec.serialType(kind: 2, length: body.count), to: &serialTypes)
            bodies.append(contentsOf: body)
        } else {
            Varint.append(RowCodec.serialType(kind: 0, length: utf8.count), to: &serialTypes)
            bodies.append(contentsOf: utf8)
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
        case .invalidUTF8Text(let b): b.withUnsafeBytes { append(textUTF8: $0) }
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
