import CZlib
import GraniteTestSupport
import XCTest

@testable import GraniteStorage

/// The UTF-8 check of stored text and the decoding of compressed text straight into a string: the same values as
/// decoding the bytes through `Value.text(utf8:)`, for valid, invalid, ASCII and non-ASCII texts of every length.
final class TextDecodingTests: XCTestCase {
    /// Pieces of text: ASCII, each width of valid sequence (at the edges of its ranges), and each kind of
    /// malformed sequence (overlong, surrogate, above U+10FFFF, truncated, stray continuation, bytes never used).
    private static let pieces: [[UInt8]] = [
        [0x61], [0x7B, 0x22], [0x20], [0x00], [0x7F],
        [0xC2, 0x80], [0xDF, 0xBF], [0xC3, 0xA9],
        [0xE0, 0xA0, 0x80], [0xE6, 0x97, 0xA5], [0xED, 0x9F, 0xBF], [0xEE, 0x80, 0x80], [0xEF, 0xBF, 0xBD],
        [0xF0, 0x90, 0x80, 0x80], [0xF0, 0x9F, 0x98, 0x80], [0xF4, 0x8F, 0xBF, 0xBF],
        [0xC0, 0xAF], [0xC1, 0xBF], [0xE0, 0x9F, 0xBF], [0xED, 0xA0, 0x80], [0xF0, 0x8F, 0xBF, 0xBF],
        [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xC3], [0xE6, 0x97], [0xF0, 0x9F, 0x98], [0x80],
        [0xBF], [0xC3, 0x41], [0xE6, 0x41, 0x80], [0xFE], [0xFF],
    ]

    private func randomText(_ rng: inout SplitMix64, pieces count: Int, invalid: Bool) -> [UInt8] {
        var out: [UInt8] = []
        for _ in 0..<count {
            // Mostly ASCII runs, as in JSON, so that sequences fall at every offset of an eight-byte word.
            if Int.random(in: 0..<4, using: &rng) > 0 {
                out += [UInt8](
                    repeating: UInt8.random(in: 0x20...0x7E, using: &rng), count: Int.random(in: 1...11, using: &rng))
            } else {
                let piece = Self.pieces.randomElement(using: &rng)!
                if invalid || String(validating: piece, as: UTF8.self) != nil { out += piece }
            }
        }
        return out
    }

    func testUTF8CheckAgreesWithTheStandardLibrary() {
        let seed = testSeed()
        var rng = SplitMix64(seed: seed)
        for round in 0..<(5_000 * stressFactor) {
            let bytes = randomText(&rng, pieces: Int.random(in: 0...12, using: &rng), invalid: round % 2 == 0)
            let expected = String(validating: bytes, as: UTF8.self) != nil
            let valid = bytes.withUnsafeBytes { CodecBytes.isValidUTF8($0) }
            XCTAssertEqual(valid, expected, "\(bytes) seed \(seed)")
        }
    }

    func testUTF8CheckAtTheEdgesOfEachRange() {
        func valid(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBytes { CodecBytes.isValidUTF8($0) } }
        XCTAssertTrue(valid([]))
        XCTAssertTrue(valid(Array("plain ASCII, longer than one word".utf8)))
        XCTAssertTrue(valid([0xC2, 0x80]), "U+0080")
        XCTAssertFalse(valid([0xC1, 0xBF]), "overlong U+007F")
        XCTAssertTrue(valid([0xE0, 0xA0, 0x80]), "U+0800")
        XCTAssertFalse(valid([0xE0, 0x9F, 0xBF]), "overlong U+07FF")
        XCTAssertTrue(valid([0xED, 0x9F, 0xBF]), "U+D7FF")
        XCTAssertFalse(valid([0xED, 0xA0, 0x80]), "surrogate U+D800")
        XCTAssertTrue(valid([0xF0, 0x90, 0x80, 0x80]), "U+10000")
        XCTAssertFalse(valid([0xF0, 0x8F, 0xBF, 0xBF]), "overlong U+FFFF")
        XCTAssertTrue(valid([0xF4, 0x8F, 0xBF, 0xBF]), "U+10FFFF")
        XCTAssertFalse(valid([0xF4, 0x90, 0x80, 0x80]), "above U+10FFFF")
        XCTAssertFalse(valid([0xF5, 0x80, 0x80, 0x80]))
        XCTAssertFalse(valid([0xE6, 0x97]), "truncated at the end")
        XCTAssertFalse(valid(Array("12345678".utf8) + [0xE6, 0x97]), "truncated after a whole ASCII word")
        XCTAssertFalse(valid([0x41, 0x80, 0x41]), "stray continuation byte")
        XCTAssertFalse(valid([0xE6, 0x41, 0x80]), "lead byte followed by ASCII")
        XCTAssertFalse(valid([0xF0, 0x9F, 0x98, 0x41]), "fourth byte not a continuation")
    }

    /// Compressed text decodes to the value the same bytes give uncompressed, whatever they hold.
    func testCompressedTextDecodesToTheValueOfItsBytes() throws {
        let seed = testSeed()
        var rng = SplitMix64(seed: seed)
        for round in 0..<(600 * stressFactor) {
            let bytes = randomText(&rng, pieces: Int.random(in: 0...60, using: &rng), invalid: round % 3 == 0)
            let expected = Value.text(utf8: bytes)
            let stream = try XCTUnwrap(bytes.withUnsafeBytes { TextCompression.compress($0) }, "seed \(seed)")
            let decoded = try stream.withUnsafeBytes {
                try TextCompression.decompressedText($0, expectedLength: bytes.count)
            }
            XCTAssertEqual(decoded, expected, "\(bytes) seed \(seed)")
            XCTAssertEqual(decoded.textUTF8, bytes, "seed \(seed)")
            // Through a row, stored compressed: value(at:) and text(at:) agree with the uncompressed row.
            let row = RowEncoder(compressionThreshold: 1).encode([expected])
            try row.withUnsafeBytes { raw in
                let decoder = try RowDecoder(raw)
                XCTAssertEqual(try decoder.value(at: 0), expected, "seed \(seed)")
                if case .text(let text) = expected {
                    XCTAssertEqual(try decoder.text(at: 0), text, "seed \(seed)")
                } else {
                    XCTAssertThrowsError(try decoder.text(at: 0), "seed \(seed)")
                }
            }
        }
    }

    /// Streams from another writer (zlib's own deflate), including ones shorter than a small string, decode
    /// the same way; damaged ones are still refused.
    func testCompressedTextFromZlibAndDamagedStreams() throws {
        for bytes in [[], Array("é".utf8), [0xE5], Array("short".utf8), Array(repeating: 0x41, count: 1_000)] {
            var stream = [UInt8](repeating: 0, count: 64 + bytes.count * 2)
            var length = uLong(stream.count)
            var zero: UInt8 = 0
            let status = withUnsafePointer(to: &zero) { zeroPointer in
                bytes.withUnsafeBufferPointer { source in
                    // zlib wants a valid source address even for no bytes.
                    compress2(&stream, &length, source.baseAddress ?? zeroPointer, uLong(source.count), 6)
                }
            }
            XCTAssertEqual(status, Z_OK)
            stream.removeLast(stream.count - Int(length))
            let decoded = try stream.withUnsafeBytes {
                try TextCompression.decompressedText($0, expectedLength: bytes.count)
            }
            XCTAssertEqual(decoded, Value.text(utf8: bytes))
            XCTAssertThrowsError(
                try stream.withUnsafeBytes { try TextCompression.decompressedText($0, expectedLength: bytes.count + 1) }
            )
            var damaged = stream
            damaged[damaged.count - 1] ^= 0x01  // the Adler-32
            XCTAssertThrowsError(
                try damaged.withUnsafeBytes { try TextCompression.decompressedText($0, expectedLength: bytes.count) })
            XCTAssertThrowsError(
                try (stream + [0]).withUnsafeBytes {
                    try TextCompression.decompressedText($0, expectedLength: bytes.count)
                }, "trailing bytes")
        }
    }
}
