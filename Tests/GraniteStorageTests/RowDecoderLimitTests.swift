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

    /// `locate` with a limit stops before the end-of-row check, so every body, fixed-width ones included, must be
    /// checked against the bytes that remain.
    func testLocateRefusesAFixedWidthBodyPastTheEnd() throws {
        let full = RowEncoder().encode([.integer(1000), .real(2.5)])
        full.withUnsafeBytes { raw in
            XCTAssertEqual(RowDecoder.locate(raw, column: 1, limit: 2)?.body.count, 8)
        }
        // Without the REAL's eight body bytes, the header still announces it.
        let truncated = Array(full.dropLast(8))
        truncated.withUnsafeBytes { raw in
            XCTAssertNil(RowDecoder.locate(raw, column: 1, limit: 2))
            XCTAssertNil(RowDecoder.locate(raw, column: 0, limit: 2))
        }
        // An integer's body cut short.
        let integer = Array(RowEncoder().encode([.integer(1 << 40)]).dropLast(3))
        integer.withUnsafeBytes { raw in XCTAssertNil(RowDecoder.locate(raw, column: 0, limit: 1)) }
    }
}
