import GraniteStorage
import XCTest

/// `CompressionBackoff`: which short texts of a column a writer tries to compress after earlier failures.
final class CompressionBackoffTests: XCTestCase {
    let short = 200
    let long = CompressionBackoff.shortTextLimit

    /// Feeds `outcomes` (whether each attempt compresses) to `column` of `backoff`, one short text each, and
    /// returns the indexes of the texts it admitted.
    func admitted(_ outcomes: [Bool], column: Int, backoff: inout CompressionBackoff) -> [Int] {
        var tried: [Int] = []
        for (index, compresses) in outcomes.enumerated()
        where backoff.admitsAttempt(column: column, length: short) {
            tried.append(index)
            backoff.record(column: column, length: short, compressed: compresses)
        }
        return tried
    }

    func testFailingColumnIsTriedLessOftenUpToOneValueIn65() {
        var backoff = CompressionBackoff()
        let tried = admitted(Array(repeating: false, count: 400), column: 3, backoff: &backoff)
        // Eight failures, then skips of 1, 2, 4, 8, 16, 32 and 64 values between attempts.
        var expected = Array(0..<8)
        var next = 8
        for skip in [1, 2, 4, 8, 16, 32, 64, 64, 64, 64] {
            next += skip
            expected.append(next)
            next += 1
        }
        XCTAssertEqual(tried.prefix(expected.count).map { $0 }, expected)
        XCTAssertEqual(tried.count, expected.count)
    }

    func testSuccessMakesTheColumnTriedOnEveryValueAgain() {
        var backoff = CompressionBackoff()
        // Nine failures (the ninth attempt sets a skip of 2), a success at index 12, then failures again.
        let outcomes = Array(repeating: false, count: 12) + [true] + Array(repeating: false, count: 12)
        let tried = admitted(outcomes, column: 0, backoff: &backoff)
        XCTAssertEqual(tried, Array(0..<8) + [9, 12, 13, 14, 15, 16, 17, 18, 19, 20, 22])
    }

    func testColumnsAreIndependentAndLongTextsAlwaysTried() {
        var backoff = CompressionBackoff()
        for _ in 0..<20 {
            if backoff.admitsAttempt(column: 1, length: short) {
                backoff.record(column: 1, length: short, compressed: false)
            }
        }
        XCTAssertFalse(backoff.admitsAttempt(column: 1, length: short))
        XCTAssertTrue(backoff.admitsAttempt(column: 0, length: short))
        XCTAssertTrue(backoff.admitsAttempt(column: 7, length: short))
        for _ in 0..<100 {
            XCTAssertTrue(backoff.admitsAttempt(column: 1, length: long))
            // A long text's failure does not count against the column's short texts, nor its success for them.
            backoff.record(column: 1, length: long, compressed: false)
        }
        backoff.record(column: 1, length: long, compressed: true)
        XCTAssertFalse(backoff.admitsAttempt(column: 1, length: short))
    }

    func testDisabledBackoffAdmitsEveryAttempt() {
        var backoff = CompressionBackoff.disabled
        let tried = admitted(Array(repeating: false, count: 100), column: 0, backoff: &backoff)
        XCTAssertEqual(tried, Array(0..<100))
    }

    /// `RowEncoder.encode` without a backoff tries every text: the stateless encoder's bytes depend on the row
    /// alone.
    func testStatelessEncoderTriesEveryText() throws {
        let encoder = RowEncoder()
        var noise: UInt64 = 0x5EED
        func incompressible() -> String {
            String(
                (0..<150).map { _ -> Character in
                    noise = noise &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    return Character(Unicode.Scalar(UInt8(48 + (noise >> 58))))
                })
        }
        for _ in 0..<30 { _ = encoder.encode([.text(incompressible())]) }
        let compressible = String(repeating: "ab", count: 80)
        let bytes = encoder.encode([.text(compressible)])
        XCTAssertTrue(try bytes.withUnsafeBytes { try RowDecoder($0).isCompressed(at: 0) })
    }

    /// The backoff an encoder is given decides: after a column's failures, a compressible short text is stored
    /// plain once, and the next is tried (and compressed) again.
    func testEncoderFollowsTheBackoffItIsGiven() throws {
        let encoder = RowEncoder()
        var backoff = CompressionBackoff()
        let plainShort = String((0..<150).map { Character(Unicode.Scalar(UInt8(33 + ($0 * 37) % 90))) })
        var bytes: [UInt8] = []
        for _ in 0..<CompressionBackoff.failuresBeforeSkipping {
            bytes.removeAll()
            encoder.encode([.integer(1), .text(plainShort)], count: 2, into: &bytes, backoff: &backoff)
            XCTAssertFalse(try bytes.withUnsafeBytes { try RowDecoder($0).isCompressed(at: 1) })
        }
        let compressible = String(repeating: "granite ", count: 20)
        var compressed: [Bool] = []
        for _ in 0..<2 {
            bytes.removeAll()
            encoder.encode([.integer(1), .text(compressible)], count: 2, into: &bytes, backoff: &backoff)
            compressed.append(try bytes.withUnsafeBytes { try RowDecoder($0).isCompressed(at: 1) })
            XCTAssertEqual(try RowDecoder.decode(bytes), [.integer(1), .text(compressible)])
        }
        XCTAssertEqual(compressed, [false, true])
    }
}
