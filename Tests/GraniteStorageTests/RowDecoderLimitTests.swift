import GraniteStorage
import XCTest

/// `RowDecoder.reset(_:columnLimit:)` parses the header only as far as a reader needs.
final class RowDecoderLimitTests: XCTestCase {
    func testLeadingColumnsOnly() throws {
        let values: [Value] = [.integer(7), .text("Ada"), .null, .real(2.5), .blob([1, 2]), .integer(-300)]
        let bytes = RowEncoder().encode(values)
        try bytes.withUnsafeBytes { raw in
            var decoder = RowDecoder()
            for limit in 0...8 {
                try decoder.reset(raw, columnLimit: limit)
                XCTAssertEqual(decoder.count, min(limit, values.count), "limit \(limit)")
                for k in 0..<decoder.count { XCTAssertEqual(try decoder.value(at: k), values[k], "limit \(limit)") }
            }
            try decoder.reset(raw)
            XCTAssertEqual(try decoder.values(), values)
        }
    }

    func testDamageAfterTheLimitIsNotReadAndDamageBeforeItThrows() throws {
        var bytes = RowEncoder().encode([.integer(1), .integer(2), .text("xyz")])
        // Drop the last body byte: the third column now claims more bytes than remain.
        bytes.removeLast()
        try bytes.withUnsafeBytes { raw in
            var decoder = RowDecoder()
            try decoder.reset(raw, columnLimit: 2)
            XCTAssertEqual(try decoder.value(at: 1), .integer(2))
            XCTAssertThrowsError(try decoder.reset(raw, columnLimit: 3))
            XCTAssertEqual(decoder.count, 0)
            XCTAssertThrowsError(try decoder.reset(raw))
        }
    }
}
