import GraniteTestSupport
import XCTest

@testable import GraniteStorage

/// Byte-wise comparison of two keys, the way a B+tree compares them.
private func memcmpSign(_ a: [UInt8], _ b: [UInt8]) -> Int {
    if a == b { return 0 }
    return a.lexicographicallyPrecedes(b) ? -1 : 1
}

/// Lexicographic SQL comparison of two tuples.
private func compareTuples(_ a: [Value], _ b: [Value]) -> Int {
    for (x, y) in zip(a, b) {
        let c = Value.compare(x, y)
        if c != 0 { return c }
    }
    return a.count < b.count ? -1 : (a.count == b.count ? 0 : 1)
}

private func hex(_ bytes: [UInt8]) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined(separator: " ")
}

private let twoTo53: Int64 = 1 << 53
private let twoTo63 = 9_223_372_036_854_775_808.0

/// Order-preserving index keys (FORMAT.md § "Key encoding"): examples, round trips, rejection of
/// malformed keys, and byte order equal to SQL order.
final class KeyEncodingTests: XCTestCase {
    private func key(_ values: Value...) -> [UInt8] { KeyEncoding.encode(values) }

    func testKeyEncodingExamples() throws {
        XCTAssertEqual(key(.integer(3)), key(.real(3.0)))
        XCTAssertEqual(key(.integer(0)), key(.real(-0.0)))
        XCTAssertEqual(key(.real(.nan)), key(.null))
        XCTAssertEqual(hex(key(.integer(3))), "21 03")
        XCTAssertEqual(hex(key(.integer(-1))), "1f fe")
        XCTAssertEqual(hex(key(.integer(twoTo53 + 1))), "27 20 00 00 00 00 00 01")
        XCTAssertEqual(hex(key(.real(-0.5))), "1f fe ff c0 1f ff ff ff ff ff ff")
        XCTAssertEqual(hex(key(.text("a\0"))), "30 61 00 ff 00 01")
        let ascending: [[UInt8]] = [
            key(.null), key(.real(-.infinity)), key(.integer(Int64.min)), key(.integer(-twoTo53 - 1)),
            key(.integer(-1)), key(.integer(0)), key(.real(.leastNonzeroMagnitude)), key(.integer(2)),
            key(.real(2.5)), key(.integer(3)), key(.integer(twoTo53)), key(.integer(twoTo53 + 1)),
            key(.real(Double(twoTo53 + 2))), key(.integer(Int64.max)), key(.real(twoTo63)), key(.real(.infinity)),
            key(.text("")), key(.text("\0")), key(.text("a")), key(.text("a\0")), key(.text("a\0\0")),
            key(.text("a\u{1}")), key(.text("b")), key(.blob([])), key(.blob([0])), key(.blob([0xFF])),
        ]
        for i in 1..<ascending.count {
            XCTAssertEqual(
                memcmpSign(ascending[i - 1], ascending[i]), -1, "\(i): \(hex(ascending[i - 1])) vs \(hex(ascending[i]))"
            )
        }
        // A fraction sorts after its integer part even when more values follow, and before the next integer.
        XCTAssertEqual(memcmpSign(key(.integer(2), .blob([0xFF])), key(.real(2.5))), -1)
        XCTAssertEqual(memcmpSign(key(.real(2.5), .blob([0xFF])), key(.integer(3))), -1)
        XCTAssertEqual(memcmpSign(key(.integer(-3), .blob([0xFF])), key(.real(-2.5))), -1)
        XCTAssertEqual(memcmpSign(key(.real(-2.5), .blob([0xFF])), key(.integer(-2))), -1)
        XCTAssertEqual(memcmpSign(key(.text("a")), key(.text("a"), .null)), -1)
    }

    func testKeyDecodingRoundTripAndRejects() throws {
        let values: [Value] = [
            .null, .integer(Int64.min), .integer(Int64.max), .integer(twoTo53 + 1), .integer(-twoTo53 - 3),
            .real(2.5), .real(-.infinity), .real(1e300), .text("a\0b\u{E9}"), .blob([0, 0xFF, 0]), .text(""),
            .blob([]),
        ]
        XCTAssertEqual(try KeyEncoding.decode(KeyEncoding.encode(values)), values)
        // Integral reals come back as integers, NaN as NULL, -0.0 as 0; 2^63 stays a real.
        XCTAssertEqual(
            try KeyEncoding.decode(key(.real(3.0), .real(.nan), .real(-0.0), .real(twoTo63), .real(-twoTo63))),
            [.integer(3), .null, .integer(0), .real(twoTo63), .integer(Int64.min)])
        let three = key(.integer(3))
        let bad: [(String, [UInt8])] = [
            ("unknown tag", [0x50]),
            ("truncated number", Array(three.dropLast())),
            ("truncated fraction", three + [0xFF, 0x3F, 0xE0]),
            ("fraction zero", three + [0xFF, 0, 0, 0, 0, 0, 0, 0, 0]),
            ("fraction one", three + [0xFF, 0x3F, 0xF0, 0, 0, 0, 0, 0, 0]),
            ("fraction NaN", three + [0xFF, 0x7F, 0xF8, 0, 0, 0, 0, 0, 0]),
            ("fraction on a large integer", key(.integer(twoTo53)) + [0xFF, 0x3F, 0xE0, 0, 0, 0, 0, 0, 0]),
            ("fraction below the integer's precision", key(.integer(1 << 50)) + [0xFF, 0, 0, 0, 0, 0, 0, 0, 1]),
            ("non-minimal positive integer", [0x22, 0x00, 0x03]),
            ("non-minimal negative integer", [0x1E, 0xFF, 0xFE]),
            ("positive integer too large", [0x28, 0x80, 0, 0, 0, 0, 0, 0, 0]),
            ("negative integer too small", [0x18, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE]),
            ("huge tag on a small real", [0x29, 0x40, 0x08, 0, 0, 0, 0, 0, 0]),
            ("huge negative tag on a small real", [0x17, 0x3F, 0xF7, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
            ("NaN", [0x29, 0x7F, 0xF8, 0, 0, 0, 0, 0, 0]),
            ("unterminated text", [0x30, 0x61]),
            ("unterminated after 0x00", [0x30, 0x61, 0x00]),
            ("bad escape", [0x40, 0x00, 0x02]),
        ]
        for (name, bytes) in bad {
            XCTAssertThrowsError(try KeyEncoding.decode(bytes), name)
        }
        // TEXT that is not valid UTF-8 decodes to its bytes.
        XCTAssertEqual(try KeyEncoding.decode([0x30, 0xC3, 0x28, 0x00, 0x01]), [.invalidUTF8Text([0xC3, 0x28])])
        // Random damage never crashes; whatever decodes re-encodes to the same bytes or an equal-order key.
        let seed = testSeed()
        var rng = SplitMix64(seed: seed)
        let sample = KeyEncoding.encode(values)
        for _ in 0..<3000 {
            var bytes = sample
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] = .random(in: 0...255, using: &rng)
            }
            if Bool.random(using: &rng) { bytes.removeLast(Int.random(in: 0...bytes.count, using: &rng)) }
            if let decoded = try? KeyEncoding.decode(bytes) {
                let again = KeyEncoding.encode(decoded)
                XCTAssertEqual(try KeyEncoding.decode(again), decoded, "seed \(seed)")
            }
        }
    }

    private func randomValue(_ rng: inout SplitMix64) -> Value {
        let edgeIntegers: [Int64] = [
            Int64.min, Int64.min + 1, -twoTo53 - 2, -twoTo53 - 1, -twoTo53, -twoTo53 + 1, -1, 0, 1, 2, 3,
            twoTo53 - 1, twoTo53, twoTo53 + 1, twoTo53 + 2, (1 << 62) + 1, Int64.max - 1, Int64.max,
        ]
        let edgeReals: [Double] = [
            -.infinity, .infinity, -0.0, 0.0, 3.0, 2.5, -2.5, 1.0, Double(twoTo53), Double(twoTo53 + 2), twoTo63,
            -twoTo63, twoTo63.nextDown, (-twoTo63).nextDown, .leastNonzeroMagnitude, -.leastNonzeroMagnitude,
            .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 1e300, -1e-300, .nan, 0.1, -0.1,
        ]
        switch Int.random(in: 0..<12, using: &rng) {
        case 0: return .null
        case 1, 2: return .integer(edgeIntegers.randomElement(using: &rng)!)
        case 3:
            let bits = Int64(bitPattern: rng.next())
            return .integer(bits >> Int64.random(in: 0...63, using: &rng))
        case 4, 5: return .real(edgeReals.randomElement(using: &rng)!)
        case 6:
            // Random bit patterns (NaN included) or integral reals near edge integers.
            if Bool.random(using: &rng) { return .real(Double(bitPattern: rng.next())) }
            let near = Double(edgeIntegers.randomElement(using: &rng)!)
            return .real(Bool.random(using: &rng) ? near.nextUp : near.nextDown)
        case 7: return .real(Double(Int.random(in: -4...4, using: &rng)) / 2)
        case 8, 9:
            let alphabet: [String] = ["", "a", "b", "\0", "\u{1}", "\u{E9}", "e\u{301}", "\u{1F9F1}", "\u{7F}"]
            return .text(
                (0..<Int.random(in: 0...3, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }.joined())
        default:
            return .blob(
                (0..<Int.random(in: 0...3, using: &rng)).map { _ in [0, 1, 0xFF, 0x30].randomElement(using: &rng)! })
        }
    }

    /// The documented decode(encode(x)) result of one value.
    private func keyRoundTripped(_ value: Value) -> Value {
        guard case .real(let d) = value else { return value }
        if d.isNaN { return .null }
        if d == d.rounded(.towardZero) && d >= -twoTo63 && d < twoTo63 { return .integer(Int64(d)) }
        return value
    }

    func testKeyEncodingOrderMatchesSQLOrder() throws {
        for seed in [1, 2, 3, testSeed()] as [UInt64] {
            var rng = SplitMix64(seed: seed)
            let tuples: [[Value]] = (0..<350).map { _ in
                (0..<Int.random(in: 1...3, using: &rng)).map { _ in randomValue(&rng) }
            }
            let keys = tuples.map { KeyEncoding.encode($0) }
            var failures = 0
            for i in 0..<tuples.count {
                XCTAssertEqual(try KeyEncoding.decode(keys[i]), tuples[i].map(keyRoundTripped), "seed \(seed)")
                for j in i..<tuples.count {
                    let expected = compareTuples(tuples[i], tuples[j])
                    if memcmpSign(keys[i], keys[j]) != expected && failures < 5 {
                        failures += 1
                        XCTFail(
                            "seed \(seed): \(tuples[i]) vs \(tuples[j]) expected \(expected), "
                                + "keys \(hex(keys[i])) / \(hex(keys[j]))")
                    }
                }
            }
        }
    }
}
