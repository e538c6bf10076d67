import CZlib
import XCTest

@testable import GraniteStorage

/// The streams `TextCompression.compress` writes (with `DeflateEncoder`) are standard zlib streams.
final class TextCompressionStreamTests: XCTestCase {
    func testStreamsOfEverySizeInflateWithZlibItself() throws {
        let seed: UInt64 = 0x5EED_0001
        var state = seed
        let words = ["{\"kind\":\"login\",", "\"place\":\"Paris\"}", "granite ", "événement ", "数据 "]
        for count in [0, 1, 127, 128, 250, 4_000, 32_000, 33_000, 100_000, 1 << 20] {
            var text = ""
            while text.utf8.count < count {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                text += words[Int(state >> 33) % words.count]
                if state & 0xF000 == 0 { text += String(state, radix: 36) }
            }
            let utf8 = Array(text.utf8)
            let stream = try XCTUnwrap(utf8.withUnsafeBytes { TextCompression.compress($0) }, "seed \(seed)")
            XCTAssertEqual(Array(stream.prefix(2)), [0x78, 0x5E], "zlib header of a 32 KiB window, level hint 1")
            // zlib's own one-shot decoder accepts the stream and gives back the input.
            var inflated = [UInt8](repeating: 0, count: max(utf8.count, 1))
            var length = uLong(inflated.count)
            let status = stream.withUnsafeBufferPointer { source in
                uncompress(&inflated, &length, source.baseAddress, uLong(source.count))
            }
            XCTAssertEqual(status, Z_OK, "\(utf8.count) bytes, seed \(seed)")
            XCTAssertEqual(Array(inflated.prefix(Int(length))), utf8, "\(utf8.count) bytes, seed \(seed)")
            // And so does Granite's decoder.
            let back = try stream.withUnsafeBytes { try TextCompression.decompress($0, expectedLength: utf8.count) }
            XCTAssertEqual(back, utf8)
        }
    }

    func testShortInputsUseFixedHuffmanCodesAndLongOnesDynamicCodes() throws {
        // The first deflate block header follows the two zlib header bytes: bit 0 BFINAL, bits 1–2 BTYPE
        // (1 = fixed codes, 2 = dynamic codes).
        func blockType(_ text: String) throws -> UInt8 {
            let stream = try XCTUnwrap(Array(text.utf8).withUnsafeBytes { TextCompression.compress($0) })
            let back = try stream.withUnsafeBytes {
                try TextCompression.decompress($0, expectedLength: text.utf8.count)
            }
            XCTAssertEqual(back, Array(text.utf8))
            return (stream[2] >> 1) & 3
        }
        var state: UInt64 = 0x5EED_0002
        var words: [String] = []
        for _ in 0..<400 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            words.append(String(state >> 40, radix: 36))
        }
        let text = words.joined(separator: ",")
        // Fewer than `dynamicCodesFrom` symbols: fixed codes whatever the text.
        let short = String(text.prefix(DeflateEncoder.dynamicCodesFrom - 1))
        XCTAssertEqual(try blockType(short), 1, "fixed codes under \(DeflateEncoder.dynamicCodesFrom) symbols")
        XCTAssertEqual(try blockType(text), 2, "dynamic codes for \(text.utf8.count) bytes of varied text")
    }
}
