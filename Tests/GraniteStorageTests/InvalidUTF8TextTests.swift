import GraniteTestSupport
import XCTest

@testable import GraniteStorage

/// TEXT whose bytes are not valid UTF-8 (``Value/invalidUTF8Text(_:)``): stored as ordinary text, read back as the
/// same bytes, ordered by its bytes among valid texts in values and in keys.
final class InvalidUTF8TextTests: XCTestCase {
    /// Byte strings mixing ASCII, valid multi-byte sequences and each kind of malformed sequence.
    private func randomBytes(_ rng: inout SplitMix64) -> [UInt8] {
        let pieces: [[UInt8]] = [
            [0x61], [0x20], [0x00], [0xC3, 0xA9], [0xE6, 0x97, 0xA5], [0xF0, 0x9F, 0x98, 0x80], [0xC3], [0x80],
            [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xFF], [0xE5], [0xFE],
        ]
        var out: [UInt8] = []
        for _ in 0..<Int.random(in: 0...6, using: &rng) { out += pieces.randomElement(using: &rng)! }
        return out
    }

    func testTextOfBytesPicksTheRepresentation() {
        XCTAssertEqual(Value.text(utf8: Array("é".utf8)), .text("é"))
        XCTAssertEqual(Value.text(utf8: [0xE5]), .invalidUTF8Text([0xE5]))
        XCTAssertEqual(Value.text(utf8: []), .text(""))
        XCTAssertEqual(Value.invalidUTF8Text([0xE5]).type, .text)
        XCTAssertEqual(Value.invalidUTF8Text([0xE5]).textUTF8, [0xE5])
        XCTAssertEqual(Value.text("é").textUTF8, [0xC3, 0xA9])
        XCTAssertNil(Value.blob([0xE5]).textUTF8)
        XCTAssertEqual(Value.invalidUTF8Text([0xE5, 0x27]).description, "CAST(x'e527' AS TEXT)")
    }

    func testRowsRoundTripTheBytesPlainAndCompressed() throws {
        let seed = testSeed()
        var rng = SplitMix64(seed: seed)
        for _ in 0..<500 {
            var bytes = randomBytes(&rng)
            if Bool.random(using: &rng) {
                // Long enough to be compressed (and compressible).
                let unit = bytes.isEmpty ? [0xE5] : bytes
                while bytes.count < 200 { bytes += unit }
            }
            let value = Value.text(utf8: bytes)
            let row: [Value] = [.integer(1), value, .blob(bytes), value]
            for encoder in [RowEncoder(), RowEncoder(compressionThreshold: nil)] {
                let encoded = encoder.encode(row)
                let decoded = try RowDecoder.decode(encoded)
                XCTAssertEqual(decoded, row, "seed \(seed)")
                XCTAssertEqual(decoded[1].textUTF8, bytes, "seed \(seed)")
                // The builder writes the same bytes as the encoder.
                var builder = RowBuilder(encoder: encoder)
                for v in row { builder.append(v) }
                var built: [UInt8] = []
                builder.finish(into: &built)
                XCTAssertEqual(built, encoded, "seed \(seed)")
            }
        }
    }

    func testCompressedInvalidTextIsStoredCompressed() throws {
        let bytes = [UInt8](repeating: 0xE5, count: 300)
        let encoded = RowEncoder().encode([.invalidUTF8Text(bytes)])
        XCTAssertLessThan(encoded.count, 100, "compressed as any text is")
        try encoded.withUnsafeBytes { raw in
            let row = try RowDecoder(raw)
            XCTAssertEqual(row.serialType(at: 0) % 3, 2, "the compressed-text serial type")
            XCTAssertEqual(try row.value(at: 0), .invalidUTF8Text(bytes))
            XCTAssertThrowsError(try row.text(at: 0), "text(at:) gives only valid strings")
        }
    }

    func testValuesAndKeysOrderTextByItsBytes() throws {
        let seed = testSeed()
        var rng = SplitMix64(seed: seed)
        var texts: [Value] = []
        for _ in 0..<300 { texts.append(.text(utf8: randomBytes(&rng))) }
        XCTAssert(texts.contains { if case .invalidUTF8Text = $0 { return true } else { return false } })
        XCTAssert(texts.contains { if case .text = $0 { return true } else { return false } })
        for _ in 0..<3000 {
            let a = texts.randomElement(using: &rng)!
            let b = texts.randomElement(using: &rng)!
            let x = a.textUTF8!
            let y = b.textUTF8!
            let byteOrder = x == y ? 0 : (x.lexicographicallyPrecedes(y) ? -1 : 1)
            XCTAssertEqual(Value.compare(a, b), byteOrder, "\(a) vs \(b), seed \(seed)")
            XCTAssertEqual(a == b, x == y, "\(a) vs \(b)")
            if a == b { XCTAssertEqual(a.hashValue, b.hashValue) }
            let ka = KeyEncoding.encode([a, .integer(1)])
            let kb = KeyEncoding.encode([b, .integer(1)])
            let keyOrder = ka == kb ? 0 : (ka.lexicographicallyPrecedes(kb) ? -1 : 1)
            XCTAssertEqual(keyOrder, byteOrder, "keys of \(a) vs \(b), seed \(seed)")
            XCTAssertEqual(try KeyEncoding.decode(ka), [a, .integer(1)])
        }
        // TEXT of any bytes sorts after numbers and before BLOBs.
        XCTAssertEqual(Value.compare(.invalidUTF8Text([0x80]), .integer(5)), 1)
        XCTAssertEqual(Value.compare(.invalidUTF8Text([0xFF]), .blob([0x00])), -1)
    }
}
