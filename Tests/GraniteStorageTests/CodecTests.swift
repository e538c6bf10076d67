import CZlib
import GraniteTestSupport
import XCTest

@testable import GraniteStorage

private func hex(_ bytes: [UInt8]) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined(separator: " ")
}

private let twoTo53: Int64 = 1 << 53
private let twoTo63 = 9_223_372_036_854_775_808.0

/// The index key of `values` (the format document's examples show keys beside rows).
private func key(_ values: Value...) -> [UInt8] { KeyEncoding.encode(values) }

final class CodecTests: XCTestCase {

    // MARK: - Varints

    func testVarintRoundTripsAtBoundaries() throws {
        var values: [UInt64] = [0, UInt64.max, UInt64.max - 1]
        for bits in stride(from: 7, through: 63, by: 7) {
            values += [(1 << UInt64(bits)) - 1, 1 << UInt64(bits), (1 << UInt64(bits)) + 1]
        }
        values.append(1 << 63)
        for value in values {
            var bytes: [UInt8] = []
            Varint.append(value, to: &bytes)
            let expectedLength = value == 0 ? 1 : (64 - value.leadingZeroBitCount + 6) / 7
            XCTAssertEqual(bytes.count, expectedLength, "\(value)")
            XCTAssertEqual(Varint.length(of: value), bytes.count, "\(value)")
            var written = [UInt8](repeating: 0xAA, count: 12)
            let n = written.withUnsafeMutableBytes { Varint.write(value, to: $0.baseAddress!) }
            XCTAssertEqual(Array(written[..<n]), bytes)
            let decoded = bytes.withUnsafeBytes { Varint.read($0, at: 0) }
            XCTAssertEqual(decoded?.value, value)
            XCTAssertEqual(decoded?.length, bytes.count)
            // Decoding at an offset, followed by other bytes.
            let padded = [0xFF] + bytes + [0x80, 0x80]
            let atOffset = padded.withUnsafeBytes { Varint.read($0.baseAddress!, at: 1, limit: padded.count) }
            XCTAssertEqual(atOffset?.value, value)
            XCTAssertEqual(atOffset?.length, bytes.count)
        }
    }

    func testVarintRejectsTruncatedAndOverlongInput() {
        for value: UInt64 in [128, 1 << 20, 1 << 35, UInt64.max] {
            var bytes: [UInt8] = []
            Varint.append(value, to: &bytes)
            for cut in 0..<bytes.count {
                let prefix = Array(bytes[..<cut])
                XCTAssertNil(prefix.withUnsafeBytes { Varint.read($0, at: 0) }, "\(value) cut at \(cut)")
            }
        }
        // Eleven bytes: too long.
        let eleven = [UInt8](repeating: 0x80, count: 10) + [0x00]
        XCTAssertNil(eleven.withUnsafeBytes { Varint.read($0, at: 0) })
        // A tenth byte carrying more than the one remaining bit.
        let tooBig = [UInt8](repeating: 0xFF, count: 9) + [0x02]
        XCTAssertNil(tooBig.withUnsafeBytes { Varint.read($0, at: 0) })
        let max = [UInt8](repeating: 0xFF, count: 9) + [0x01]
        XCTAssertEqual(max.withUnsafeBytes { Varint.read($0, at: 0) }?.value, UInt64.max)
        // Out-of-range offsets.
        XCTAssertNil([UInt8]().withUnsafeBytes { Varint.read($0, at: 0) })
        XCTAssertNil([UInt8](arrayLiteral: 1).withUnsafeBytes { Varint.read($0.baseAddress!, at: -1, limit: 1) })
    }

    // MARK: - Values

    func testValueCompareNumbersExactly() {
        let cases: [(Value, Value, Int)] = [
            (.integer(3), .real(3.0), 0),
            (.integer(2), .real(2.5), -1),
            (.real(2.5), .integer(3), -1),
            (.integer(-1), .real(-1.5), 1),
            (.integer(Int64.max), .real(twoTo63), -1),
            (.integer(Int64.max), .real(twoTo63.nextDown), 1),
            (.integer(Int64.min), .real(-twoTo63), 0),
            (.integer(Int64.min), .real((-twoTo63).nextDown), 1),
            (.integer(Int64.min), .real(-.infinity), 1),
            (.integer(Int64.max), .real(.infinity), -1),
            (.integer(twoTo53 + 1), .real(Double(twoTo53)), 1),
            (.integer(twoTo53 + 1), .real(Double(twoTo53 + 2)), -1),
            (.integer(-twoTo53 - 1), .real(-Double(twoTo53)), -1),
            (.integer(0), .real(-0.0), 0),
            (.real(0.0), .real(-0.0), 0),
            (.integer(0), .real(.leastNonzeroMagnitude), -1),
            (.integer(0), .real(-.leastNonzeroMagnitude), 1),
            (.real(.nan), .null, 0),
            (.real(.nan), .real(-.infinity), -1),
            (.null, .integer(Int64.min), -1),
            (.real(.infinity), .text(""), -1),
            (.text("\u{10FFFF}"), .blob([]), -1),
            (.text("e\u{301}"), .text("\u{E9}"), -1),  // 0x65 < 0xC3: bytes, not Unicode equivalence
            (.text("a"), .text("a\0"), -1),
            (.blob([1, 2]), .blob([1, 2, 0]), -1),
            (.blob([2]), .blob([1, 2, 0]), 1),
            (.blob([0xFF]), .blob([0x7F]), 1),
        ]
        for (a, b, expected) in cases {
            XCTAssertEqual(Value.compare(a, b), expected, "\(a) vs \(b)")
            XCTAssertEqual(Value.compare(b, a), -expected, "\(b) vs \(a)")
        }
    }

    func testValueEqualityIsStructuralAndByteWise() {
        XCTAssertNotEqual(Value.integer(3), .real(3.0))
        XCTAssertNotEqual(Value.text("\u{E9}"), .text("e\u{301}"))
        XCTAssertEqual(Value.real(.nan), .real(.nan))
        XCTAssertEqual(Value.real(0.0), .real(-0.0))
        XCTAssertEqual(Set<Value>([.real(0.0), .real(-0.0), .real(.nan), .real(.nan)]).count, 2)
        XCTAssertEqual(Set<Value>([.text("\u{E9}"), .text("e\u{301}"), .text("\u{E9}")]).count, 2)
        XCTAssertEqual(Value.blob([0, 255]).description, "x'00ff'")
        XCTAssertEqual(Value.text("it's").description, "'it''s'")
        XCTAssertEqual(Value.null.description, "NULL")
        XCTAssertEqual(Value.real(2.5).type, .real)
    }

    // MARK: - Rows

    private func roundTrip(
        _ values: [Value], encoder: RowEncoder = RowEncoder(), file: StaticString = #filePath, line: UInt = #line
    ) throws -> [UInt8] {
        let bytes = encoder.encode(values)
        let decoded = try RowDecoder.decode(bytes)
        XCTAssertEqual(decoded, values, "bytes: \(hex(bytes))", file: file, line: line)
        // The builder produces the same bytes.
        var builder = RowBuilder(encoder: encoder)
        for value in values { builder.append(value) }
        XCTAssertEqual(builder.finish(), bytes, file: file, line: line)
        // Appending keeps what was there.
        var prefixed: [UInt8] = [7, 7]
        encoder.encode(values, into: &prefixed)
        XCTAssertEqual(Array(prefixed.dropFirst(2)), bytes, file: file, line: line)
        return bytes
    }

    func testWorkedExampleRow() throws {
        let bytes = try roundTrip([.integer(42), .text("Ada"), .null, .real(2.5), .blob([0x00, 0xFF])])
        XCTAssertEqual(
            hex(bytes), "06 03 15 00 09 13 2a 41 64 61 00 00 00 00 00 00 04 40 00 ff")
    }

    /// The examples printed in FORMAT.md decode as documented, and the writer produces the documented bytes.
    func testFormatDocumentExamples() throws {
        let compressed: [UInt8] = [
            0x02, 0x3e, 0x17, 0x78, 0x5e, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x57, 0xc0, 0x20, 0x01, 0x68, 0x03, 0x08, 0xb1,
        ]
        XCTAssertEqual(try RowDecoder.decode(compressed), [.text("hello hello hello hello")])
        XCTAssertEqual(RowEncoder(compressionThreshold: 16).encode([.text("hello hello hello hello")]), compressed)
        // Any valid zlib stream is accepted: the same text as zlib's deflate (level 2) writes it.
        let fromZlib: [UInt8] = [
            0x02, 0x41, 0x17, 0x78, 0x5e, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x57, 0xc8, 0x40, 0x27, 0x01, 0x68, 0x03,
            0x08, 0xb1,
        ]
        XCTAssertEqual(try RowDecoder.decode(fromZlib), [.text("hello hello hello hello")])
        XCTAssertEqual(
            hex(RowEncoder().encode([.integer(0), .integer(1), .integer(-1), .integer(300), .integer(-129)])),
            "06 01 02 03 04 04 ff 2c 01 7f ff")
        let keys: [(Value, String)] = [
            (.real(-.infinity), "17 00 0f ff ff ff ff ff ff"),
            (.integer(Int64.min), "18 7f ff ff ff ff ff ff ff"),
            (.real(-2.5), "1f fc ff c0 1f ff ff ff ff ff ff"),
            (.integer(0), "20"),
            (.integer(-1), "1f fe"),
            (.integer(255), "21 ff"),
            (.integer(-256), "1e fe ff"),
            (.real(2.5), "21 02 ff 3f e0 00 00 00 00 00 00"),
            (.real(3.0), "21 03"),
            (.integer(twoTo53), "27 20 00 00 00 00 00 00"),
            (.integer(Int64.max), "28 7f ff ff ff ff ff ff ff"),
            (.real(twoTo63), "29 43 e0 00 00 00 00 00 00"),
            (.real(.infinity), "29 7f f0 00 00 00 00 00 00"),
            (.text("a"), "30 61 00 01"),
            (.text("a\0b"), "30 61 00 ff 62 00 01"),
            (.text(""), "30 00 01"),
            (.blob([0]), "40 00 ff 00 01"),
            (.blob([]), "40 00 01"),
        ]
        for (value, expected) in keys {
            XCTAssertEqual(hex(key(value)), expected, "\(value)")
        }
        XCTAssertEqual(hex(key(.text("Ada"), .integer(42))), "30 41 64 61 00 01 21 2a")
    }

    func testEmptyRow() throws {
        XCTAssertEqual(try roundTrip([]), [0x01])
        try [UInt8](arrayLiteral: 1).withUnsafeBytes { raw in
            let row = try RowDecoder(raw)
            XCTAssertEqual(row.count, 0)
            XCTAssertEqual(row.headerLength, 1)
        }
    }

    func testEverySerialType() throws {
        let long = String(repeating: "granite ", count: 40)
        let values: [Value] = [
            .null, .integer(0), .integer(1), .integer(-5), .integer(300), .integer(70_000), .integer(1 << 30),
            .integer(1 << 40), .integer(1 << 60), .real(-1.25), .text("hi"), .blob([1, 2, 3]), .text(long),
        ]
        let bytes = try roundTrip(values)
        try bytes.withUnsafeBytes { raw in
            let row = try RowDecoder(raw)
            XCTAssertEqual(row.count, values.count)
            let expected: [UInt64] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12 + 3 * 2, 13 + 3 * 3]
            for (index, serialType) in expected.enumerated() {
                XCTAssertEqual(row.serialType(at: index), serialType, "column \(index)")
            }
            XCTAssertEqual((row.serialType(at: 12) - 12) % 3, 2)
            XCTAssertTrue(row.isCompressed(at: 12))
            XCTAssertEqual(row.type(at: 12), .text)
            XCTAssertEqual(row.textLength(at: 12), long.utf8.count)
            XCTAssertEqual(try row.text(at: 12), long)
            XCTAssertNil(row.textBytes(at: 12))
            XCTAssertEqual(row.type(at: 0), .null)
            XCTAssertTrue(row.isNull(at: 0))
            XCTAssertEqual(row.type(at: 8), .integer)
            XCTAssertEqual(row.type(at: 9), .real)
            XCTAssertEqual(row.type(at: 11), .blob)
            XCTAssertEqual(row.integer(at: 7), 1 << 40)
            XCTAssertNil(row.integer(at: 9))
            XCTAssertEqual(row.double(at: 9), -1.25)
            XCTAssertEqual(row.double(at: 4), 300)
            XCTAssertNil(row.double(at: 10))
            XCTAssertEqual(row.textBytes(at: 10).map { Array($0) }, Array("hi".utf8))
            XCTAssertEqual(row.blobBytes(at: 11).map { Array($0) }, [1, 2, 3])
            XCTAssertNil(row.blobBytes(at: 10))
            XCTAssertEqual(try row.text(at: 11), nil)
        }
    }

    func testIntegerBoundaries() throws {
        let cases: [(Int64, UInt64)] = [
            (0, 1), (1, 2), (-1, 3), (2, 3), (127, 3), (-128, 3), (128, 4), (-129, 4), (32767, 4), (-32768, 4),
            (32768, 5), (-32769, 5), ((1 << 23) - 1, 5), (-(1 << 23), 5), (1 << 23, 6), (-(1 << 23) - 1, 6),
            ((1 << 31) - 1, 6), (-(1 << 31), 6), (1 << 31, 7), (-(1 << 31) - 1, 7), ((1 << 47) - 1, 7),
            (-(1 << 47), 7), (1 << 47, 8), (-(1 << 47) - 1, 8), (Int64.max, 8), (Int64.min, 8),
        ]
        for (value, serialType) in cases {
            let bytes = try roundTrip([.integer(value)])
            try bytes.withUnsafeBytes { raw in
                let row = try RowDecoder(raw)
                XCTAssertEqual(row.serialType(at: 0), serialType, "\(value)")
                XCTAssertEqual(row.integer(at: 0), value)
            }
        }
        _ = try roundTrip(cases.map { .integer($0.0) })
    }

    func testTextAndBlobEdgeCases() throws {
        let texts = [
            "", "a\0b", "\0", "\0\0\0", "h\u{E9}llo", "e\u{301}", "\u{65E5}\u{672C}\u{8A9E}", "\u{1F9F1} brick",
            String(repeating: "\u{10FFFF}", count: 3),
        ]
        for text in texts {
            _ = try roundTrip([.text(text)])
            _ = try roundTrip([.text(text)], encoder: RowEncoder(compressionThreshold: 0))
        }
        _ = try roundTrip([.blob([]), .text(""), .blob([0]), .blob([0xFF, 0, 0x80])])
        // Specials of REAL keep their bit pattern.
        for d in [Double.nan, .infinity, -.infinity, -0.0, .leastNonzeroMagnitude, .greatestFiniteMagnitude] {
            let bytes = RowEncoder().encode([.real(d)])
            let decoded = try RowDecoder.decode(bytes)
            guard case .real(let back) = decoded[0] else { return XCTFail("\(decoded)") }
            XCTAssertEqual(back.bitPattern, d.bitPattern)
        }
    }

    func testHeaderLengthVarintGrows() throws {
        // 126 one-byte serial types: header 127 fits one byte. 127: header 128 would need two bytes, so 129.
        for (columns, header) in [(126, 127), (127, 129), (128, 130)] {
            let values = [Value](repeating: .null, count: columns)
            let bytes = try roundTrip(values)
            XCTAssertEqual(bytes.count, header)
            try bytes.withUnsafeBytes { XCTAssertEqual(try RowDecoder($0).headerLength, header) }
        }
        // A long text's serial type is a multi-byte varint too.
        _ = try roundTrip(
            [.text(String(repeating: "x", count: 5000)), .integer(9)], encoder: RowEncoder(compressionThreshold: nil))
    }

    // MARK: - Compression

    func testCompressibleTextIsStoredCompressed() throws {
        let text = String(repeating: "{\"name\":\"Ada Lovelace\",\"born\":1815}, ", count: 20)
        let values: [Value] = [.integer(1), .text(text), .text("short")]
        let compressed = try roundTrip(values)
        let plain = try roundTrip(values, encoder: RowEncoder(compressionThreshold: nil))
        XCTAssertLessThan(compressed.count, plain.count)
        try compressed.withUnsafeBytes { raw in
            let row = try RowDecoder(raw)
            XCTAssertTrue(row.isCompressed(at: 1))
            XCTAssertFalse(row.isCompressed(at: 2))
            XCTAssertEqual((row.serialType(at: 1) - 12) % 3, 2)
            XCTAssertEqual(try row.value(at: 1), .text(text))
            let stats = try RowDecoder.stats(of: raw)
            XCTAssertEqual(
                stats,
                RowStats(columns: 3, storedBytes: compressed.count, plainBytes: plain.count, compressedColumns: 1))
        }
        try plain.withUnsafeBytes { raw in
            XCTAssertEqual(
                try RowDecoder.stats(of: raw),
                RowStats(columns: 3, storedBytes: plain.count, plainBytes: plain.count, compressedColumns: 0))
        }
    }

    func testHighlyCompressibleTextStaysWithinTheExpansionBound() throws {
        let text = String(repeating: "a", count: 3 << 20)
        let bytes = try roundTrip([.text(text)])
        XCTAssertLessThan(bytes.count, text.utf8.count / 100)
        // zlib's densest stream (level 9) comes close to deflate's 1032:1 limit, and the decoder still accepts it.
        let utf8 = Array(text.utf8)
        var stream = [UInt8](repeating: 0, count: Int(compressBound(uLong(utf8.count))))
        var length = uLong(stream.count)
        XCTAssertEqual(compress2(&stream, &length, utf8, uLong(utf8.count), 9), Z_OK)
        stream.removeLast(stream.count - Int(length))
        XCTAssertLessThan(stream.count, utf8.count / 1000)
        let back = try stream.withUnsafeBytes { try TextCompression.decompress($0, expectedLength: utf8.count) }
        XCTAssertTrue(back == utf8)
    }

    func testThresholdAndNilThreshold() throws {
        let encoder = RowEncoder(compressionThreshold: 16)
        let atThreshold = String(repeating: "a", count: 16)
        let below = String(repeating: "a", count: 15)
        for (text, expected) in [(atThreshold, true), (below, false)] {
            let bytes = try roundTrip([.text(text)], encoder: encoder)
            try bytes.withUnsafeBytes { XCTAssertEqual(try RowDecoder($0).isCompressed(at: 0), expected, text) }
        }
        // The default threshold is 128 bytes.
        for (count, expected) in [(127, false), (128, true)] {
            let bytes = try roundTrip([.text(String(repeating: "z", count: count))])
            try bytes.withUnsafeBytes { XCTAssertEqual(try RowDecoder($0).isCompressed(at: 0), expected, "\(count)") }
        }
        let never = RowEncoder(compressionThreshold: nil)
        let huge = String(repeating: "abc", count: 10_000)
        let bytes = try roundTrip([.text(huge)], encoder: never)
        try bytes.withUnsafeBytes { XCTAssertFalse(try RowDecoder($0).isCompressed(at: 0)) }
        XCTAssertEqual(bytes.count, 4 + 30_000)  // header: length, 3-byte serial type
    }

    func testIncompressibleTextIsStoredPlain() throws {
        var rng = SplitMix64(seed: 42)
        let scalars = (0..<200).map { _ in Character(Unicode.Scalar(UInt8.random(in: 0x21...0x7E, using: &rng))) }
        let text = String(scalars)
        let attempt = text.utf8.withContiguousStorageIfAvailable {
            TextCompression.compress(UnsafeRawBufferPointer($0))
        }
        XCTAssertGreaterThanOrEqual((attempt??.count ?? 0) + 2, text.utf8.count, "the sample must not compress")
        let bytes = try roundTrip([.text(text)], encoder: RowEncoder(compressionThreshold: 1))
        try bytes.withUnsafeBytes { XCTAssertFalse(try RowDecoder($0).isCompressed(at: 0)) }
    }

    func testTextCompressionDirectly() throws {
        let text = Array(String(repeating: "hello, world ", count: 50).utf8)
        let stream = try XCTUnwrap(text.withUnsafeBytes { TextCompression.compress($0) })
        XCTAssertEqual(stream[0], 0x78)  // zlib header, deflate with a 32 KiB window
        XCTAssertEqual(
            try stream.withUnsafeBytes { try TextCompression.decompress($0, expectedLength: text.count) }, text)
        let empty = try XCTUnwrap([UInt8]().withUnsafeBytes { TextCompression.compress($0) })
        XCTAssertEqual(try empty.withUnsafeBytes { try TextCompression.decompress($0, expectedLength: 0) }, [])
        let rejected: [(stream: [UInt8], expected: Int)] = [
            (stream, text.count - 1),  // inflates to more
            (stream, text.count - 258),  // inflates to more, within the decoder's output slack
            (stream, text.count - 259),  // inflates to more than the output buffer holds
            (stream, 0),
            (stream, text.count + 1),  // inflates to less
            (stream, -1),
            (stream, TextCompression.maxUncompressedLength + 1),
            (stream, stream.count * TextCompression.maxExpansion + 1),  // impossible for its size
            (empty, 1),
            (stream + [0], text.count),  // trailing byte
            (Array(stream.dropLast()), text.count),  // truncated Adler-32
            (Array(stream.dropLast(10)), text.count),  // truncated deflate data
            (Array(stream.dropLast()) + [stream.last! ^ 1], text.count),  // bad Adler-32
            ([0x78, 0x9D] + stream.dropFirst(2), text.count),  // bad header check
            ([], 0),
        ]
        for (index, bad) in rejected.enumerated() {
            XCTAssertThrowsError(
                try bad.stream.withUnsafeBytes { try TextCompression.decompress($0, expectedLength: bad.expected) },
                "case \(index)")
        }
    }

    // MARK: - Malformed rows

    private func sampleRows() -> [[UInt8]] {
        let long = String(repeating: "compressible text, ", count: 12)
        return [
            [],
            [.null],
            [.integer(42), .text("Ada"), .null, .real(2.5), .blob([0x00, 0xFF])],
            [.integer(Int64.min), .integer(-129), .integer(1 << 40), .integer(0), .integer(1)],
            [.text(long), .integer(7), .text("\u{E9}\u{1F9F1}")],
            [.blob([UInt8](repeating: 9, count: 200)), .real(-0.0)],
        ].map { RowEncoder(compressionThreshold: 64).encode($0) }
    }

    func testEveryTruncationIsRejected() {
        for bytes in sampleRows() {
            for cut in 0..<bytes.count {
                let prefix = Array(bytes[..<cut])
                XCTAssertThrowsError(try RowDecoder.decode(prefix), "\(hex(bytes)) cut at \(cut)")
            }
        }
    }

    func testSpecificMalformedRows() {
        func compressedBody(_ text: String) -> [UInt8] {
            let utf8 = Array(text.utf8)
            var body: [UInt8] = []
            Varint.append(UInt64(utf8.count), to: &body)
            return body + utf8.withUnsafeBytes { TextCompression.compress($0)! }
        }
        func row(_ serialTypes: [UInt64], _ bodies: [UInt8]) -> [UInt8] {
            var header: [UInt8] = []
            for t in serialTypes { Varint.append(t, to: &header) }
            var bytes: [UInt8] = []
            Varint.append(UInt64(RowCodec.headerLength(serialBytes: header.count)), to: &bytes)
            return bytes + header + bodies
        }
        let body = compressedBody(String(repeating: "abcd", count: 40))
        var lyingLength = body
        lyingLength[0] ^= 1
        let cases: [(String, [UInt8])] = [
            ("empty buffer", []),
            ("header length 0", [0x00]),
            ("header length past end", [0x05, 0x00]),
            ("serial type runs past header", [0x02, 0x81]),
            ("reserved 10", row([10], [])),
            ("reserved 11", row([11], [])),
            ("trailing byte", row([1], [0xAA])),
            ("missing body", row([8], [1, 2, 3, 4, 5, 6, 7])),
            ("huge text claim", row([12 + 3 * (1 << 40)], [0x41])),
            ("maximal serial type", row([UInt64.max], [])),
            ("compressed without length", row([14], [])),
            ("compressed length > 1 GiB", row([14 + 3 * 6], [0x80, 0x80, 0x80, 0x80, 0x08, 0x00])),
            ("compressed length lies", row([14 + 3 * UInt64(lyingLength.count)], lyingLength)),
            ("compressed stream damaged", row([14 + 3 * UInt64(body.count)], body.dropLast() + [body.last! ^ 0x40])),
        ]
        for (name, bytes) in cases {
            XCTAssertThrowsError(try RowDecoder.decode(bytes), name) { error in
                guard case StorageError.malformed = error else { return XCTFail("\(name): \(error)") }
            }
        }
        // The well-formed versions decode; TEXT that is not valid UTF-8 (SQL can store any bytes as TEXT) decodes
        // to its bytes.
        XCTAssertNoThrow(try RowDecoder.decode(row([14 + 3 * UInt64(body.count)], body)))
        XCTAssertEqual(try RowDecoder.decode(row([12 + 3 * 2], [0xC3, 0x28])), [.invalidUTF8Text([0xC3, 0x28])])
        XCTAssertEqual(
            try RowDecoder.decode(row([12 + 3 * 3], [0xED, 0xA0, 0x80])), [.invalidUTF8Text([0xED, 0xA0, 0x80])])
        let invalidLong = [UInt8](repeating: 0xE5, count: 100) + [0x61]
        var invalidLongBody: [UInt8] = []
        Varint.append(UInt64(invalidLong.count), to: &invalidLongBody)
        invalidLongBody += invalidLong.withUnsafeBytes { TextCompression.compress($0)! }
        XCTAssertEqual(
            try RowDecoder.decode(row([14 + 3 * UInt64(invalidLongBody.count)], invalidLongBody)),
            [.invalidUTF8Text(invalidLong)])
        XCTAssertNoThrow(try RowDecoder.decode(row([3], [0x00])))  // non-minimal integer encodings are accepted
    }

    func testRandomCorruptionNeverCrashes() {
        let seed = testSeed()
        var rng = SplitMix64(seed: seed)
        let samples = sampleRows().filter { !$0.isEmpty }
        var rejected = 0
        let cases = 4000
        for _ in 0..<cases {
            var bytes = samples.randomElement(using: &rng)!
            switch Int.random(in: 0..<4, using: &rng) {
            case 0:  // flip a bit
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] ^= 1 << UInt8.random(in: 0...7, using: &rng)
            case 1:  // replace a few bytes
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                }
            case 2:  // insert or delete a byte
                let at = Int.random(in: 0..<bytes.count, using: &rng)
                if Bool.random(using: &rng) {
                    bytes.remove(at: at)
                } else {
                    bytes.insert(.random(in: 0...255, using: &rng), at: at)
                }
            default:  // pure noise
                bytes = (0..<Int.random(in: 0...40, using: &rng)).map { _ in .random(in: 0...255, using: &rng) }
            }
            do {
                let values = try RowDecoder.decode(bytes)
                // Whatever decodes must re-encode to something that decodes to the same values.
                XCTAssertEqual(try RowDecoder.decode(RowEncoder().encode(values)), values, "seed \(seed)")
                _ = try bytes.withUnsafeBytes { try RowDecoder.stats(of: $0) }
            } catch let error as StorageError {
                guard case .malformed = error else { return XCTFail("seed \(seed): \(error)") }
                rejected += 1
            } catch {
                XCTFail("seed \(seed): unexpected \(error)")
            }
        }
        XCTAssertGreaterThan(rejected, cases / 4, "seed \(seed)")
    }

    func testReusedDecoder() throws {
        let wide = RowEncoder().encode((0..<40).map { .integer(Int64($0) * 1000) })
        let narrow = RowEncoder().encode([.text("x"), .null])
        var row = RowDecoder()
        XCTAssertEqual(row.count, 0)
        try wide.withUnsafeBytes { try row.reset($0) }
        XCTAssertEqual(row.count, 40)
        XCTAssertEqual(row.integer(at: 39), 39_000)
        try narrow.withUnsafeBytes { try row.reset($0) }
        XCTAssertEqual(row.count, 2)
        XCTAssertEqual(try row.values(), [.text("x"), .null])
        XCTAssertThrowsError(try [UInt8]([0x02, 0x0A]).withUnsafeBytes { try row.reset($0) })
        XCTAssertEqual(row.count, 0, "a failed reset leaves no row")
        try wide.withUnsafeBytes { try row.reset($0) }
        XCTAssertEqual(try row.value(at: 1), .integer(1000))
    }

    // MARK: - RowBuilder

    func testRowBuilderReuseAndRawColumnCopy() throws {
        let long = String(repeating: "copy me verbatim; ", count: 10)
        let source = RowEncoder().encode([.text(long), .integer(-3), .null])
        var builder = RowBuilder()
        builder.append(blob: [1, 2])
        builder.reset()
        XCTAssertEqual(builder.count, 0)
        try source.withUnsafeBytes { raw in
            let row = try RowDecoder(raw)
            for index in (0..<row.count).reversed() {
                builder.append(columnOf: row, at: index)
            }
        }
        builder.append(real: 2.5)
        let bytes = builder.finish()
        XCTAssertEqual(builder.count, 4)
        XCTAssertEqual(try RowDecoder.decode(bytes), [.null, .integer(-3), .text(long), .real(2.5)])
        try bytes.withUnsafeBytes { XCTAssertTrue(try RowDecoder($0).isCompressed(at: 2)) }
        // Typed appends produce the encoder's bytes.
        builder.reset()
        builder.append(integer: -70_000)
        builder.append(real: 0.5)
        builder.append(text: long)
        builder.appendNull()
        [UInt8]([9, 0]).withUnsafeBytes { builder.append(blob: $0) }
        XCTAssertEqual(
            builder.finish(), RowEncoder().encode([.integer(-70_000), .real(0.5), .text(long), .null, .blob([9, 0])]))
    }
}
