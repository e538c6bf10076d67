// Writing rows: the encoder of FORMAT.md § "Values and the row format", compressing long text
// as § "Compressed text" says. The serial types and shared helpers are in RowFormat.swift.

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
        var everyAttempt = CompressionBackoff.disabled
        encode(values, count: count, nullAt: nullAt, into: &bytes, backoff: &everyAttempt)
    }

    /// ``encode(_:count:nullAt:into:)`` for a writer that encodes many rows of one table: `backoff` decides which
    /// long texts are tried compressed, from how the attempts on their column went so far, and learns from this
    /// row's attempts.
    package func encode(
        _ values: [Value], count: Int, nullAt: Int = -1, into bytes: inout [UInt8], backoff: inout CompressionBackoff
    ) {
        precondition(count <= values.count, "count exceeds the values given")
        let layout = measure(values, count: count, nullAt: nullAt, backoff: &backoff)
        let headerLength = RowCodec.headerLength(serialBytes: layout.serialBytes)
        let start = bytes.count
        RowCodec.appendZeros(headerLength + layout.bodyBytes, to: &bytes)
        write(values, count: count, nullAt: nullAt, layout: layout, headerLength: headerLength, into: &bytes, at: start)
    }

    /// What the first pass of ``encode(_:count:nullAt:into:)`` learns: the sizes of the serial types and of the
    /// bodies, and the compressed bodies of the text columns where compression pays, in column order.
    struct Layout {
        var serialBytes = 0
        var bodyBytes = 0
        var compressed: [(column: Int, body: [UInt8])] = []
    }

    /// Pass 1: the sizes of the row's header and bodies, compressing the texts that ``triesCompression(ofLength:)``
    /// selects (kept only where the compressed body is smaller).
    @inline(__always)
    func measure(_ values: [Value], count: Int, nullAt: Int, backoff: inout CompressionBackoff) -> Layout {
        var layout = Layout()
        for column in 0..<count {
            if column == nullAt {
                layout.serialBytes += 1
                continue
            }
            switch values[column] {
            case .null:
                layout.serialBytes += 1
            case .integer(let i):
                layout.serialBytes += 1
                layout.bodyBytes += RowCodec.integerLayout(i).width
            case .real:
                layout.serialBytes += 1
                layout.bodyBytes += 8
            case .text(let s):
                // A text too short to compress is measured by its count alone: reaching its bytes would copy
                // the string (a retain and a release) for every text column written.
                let count = s.utf8.count
                if triesCompression(ofLength: count) {
                    RowCodec.withUTF8(s) { measure(text: $0, column: column, into: &layout, backoff: &backoff) }
                } else {
                    layout.serialBytes += Varint.length(of: RowCodec.serialType(kind: 0, length: count))
                    layout.bodyBytes += count
                }
            case .invalidUTF8Text(let bytes):
                measure(invalidUTF8Text: bytes, column: column, into: &layout, backoff: &backoff)
            case .blob(let b):
                layout.serialBytes += Varint.length(of: RowCodec.serialType(kind: 1, length: b.count))
                layout.bodyBytes += b.count
            }
        }
        return layout
    }

    /// Adds one text column of UTF-8 bytes `utf8` (valid or not) to `layout`, compressed when that pays.
    @inline(__always)
    func measure(
        text utf8: UnsafeRawBufferPointer, column: Int, into layout: inout Layout, backoff: inout CompressionBackoff
    ) {
        var length = utf8.count
        var kind: UInt64 = 0
        if triesCompression(ofLength: length), backoff.admitsAttempt(column: column, length: length) {
            let body = RowCodec.compressedBody(utf8)
            backoff.record(column: column, length: length, compressed: body != nil)
            if let body {
                layout.compressed.append((column, body))
                length = body.count
                kind = 2
            }
        }
        layout.serialBytes += Varint.length(of: RowCodec.serialType(kind: kind, length: length))
        layout.bodyBytes += length
    }

    /// ``measure(text:column:into:backoff:)`` of a TEXT of bytes that are not valid UTF-8, out of line so that the
    /// passes stay as small as they are without such text.
    @inline(never)
    func measure(
        invalidUTF8Text bytes: [UInt8], column: Int, into layout: inout Layout, backoff: inout CompressionBackoff
    ) {
        bytes.withUnsafeBytes { measure(text: $0, column: column, into: &layout, backoff: &backoff) }
    }

    /// Writes the serial type (at `header`) and body (at `body`) of a TEXT of bytes that are not valid UTF-8,
    /// stored as any text is: the same serial types, compressed when pass 1 compressed it.
    @inline(never)
    func write(
        invalidUTF8Text bytes: [UInt8], column: Int, layout: Layout, nextCompressed: inout Int,
        header h: inout Int, body b: inout Int, base: UnsafeMutableRawPointer
    ) {
        let compressed =
            nextCompressed < layout.compressed.count && layout.compressed[nextCompressed].column == column
        let kind: UInt64 = compressed ? 2 : 0
        let stored = compressed ? layout.compressed[nextCompressed].body : bytes
        if compressed { nextCompressed += 1 }
        h += Varint.write(RowCodec.serialType(kind: kind, length: stored.count), to: base + h)
        stored.withUnsafeBytes { source in
            if let sourceBase = source.baseAddress, source.count > 0 {
                (base + b).copyMemory(from: sourceBase, byteCount: source.count)
            }
        }
        b += stored.count
    }

    /// Pass 2: writes the header and the bodies measured by ``measure(_:count:nullAt:backoff:)`` into the zeroed
    /// `headerLength + layout.bodyBytes` bytes of `bytes` at `start`.
    @inline(__always)
    func write(
        _ values: [Value], count: Int, nullAt: Int, layout: Layout, headerLength: Int,
        into bytes: inout [UInt8], at start: Int
    ) {
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
                    if nextCompressed < layout.compressed.count,
                        layout.compressed[nextCompressed].column == column
                    {
                        layout.compressed[nextCompressed].body.withUnsafeBytes { body in
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
                case .invalidUTF8Text(let bytes):
                    write(
                        invalidUTF8Text: bytes, column: column, layout: layout, nextCompressed: &nextCompressed,
                        header: &h, body: &b, base: base)
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
            assert(h == headerLength && b == headerLength + layout.bodyBytes)
        }
    }

    /// Returns the encoding of the row `values`.
    public func encode(_ values: [Value]) -> [UInt8] {
        var bytes: [UInt8] = []
        encode(values, into: &bytes)
        return bytes
    }
}
