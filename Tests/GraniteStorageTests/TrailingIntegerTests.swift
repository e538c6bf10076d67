import XCTest

@testable import GraniteStorage

/// ``KeyEncoding/trailingInteger(_:)`` reads an index entry's rowid; keys made only of integers take a fast path
/// (``KeyEncoding/lastOfIntegers(_:)``). These tests check both against full decoding, on encoded keys and on
/// random bytes.
final class TrailingIntegerTests: XCTestCase {
    func testEncodedKeysMatchDecoding() throws {
        var rng = SplitMix64(seed: 0x7A11_1E6E)
        let edges: [Int64] = [
            0, 1, -1, 127, 128, 255, 256, -255, -256, -257, 65_535, 65_536, Int64(Int32.max), Int64(Int32.min),
            Int64.max, Int64.min, Int64.max - 1, Int64.min + 1, 1 << 53, -(1 << 53),
        ]
        func randomValue() -> Value {
            switch rng.next(below: 10) {
            case 0: return .null
            case 1: return .real(Double(Int64(bitPattern: rng.next()) >> Int64(rng.next(below: 60))) / 7)
            case 2: return .text("t\(rng.next(below: 100))")
            case 3: return .real(Double(rng.next(below: 1000)))
            case 4, 5: return .integer(edges[Int(rng.next(below: UInt64(edges.count)))])
            default: return .integer(Int64(bitPattern: rng.next()) >> Int64(rng.next(below: 64)))
            }
        }
        for _ in 0..<20_000 {
            var values: [Value] = []
            for _ in 0..<Int(rng.next(below: 4)) { values.append(randomValue()) }
            let rowid: Value = rng.next(below: 8) == 0 ? randomValue() : .integer(Int64(bitPattern: rng.next()) >> 20)
            values.append(rowid)
            var key: [UInt8] = []
            for value in values { KeyEncoding.append(value, to: &key) }
            let decoded = try KeyEncoding.decode(key)
            var expected: Int64?
            if case .integer(let i)? = decoded.last { expected = i }
            let found = try key.withUnsafeBytes { try KeyEncoding.trailingInteger($0) }
            XCTAssertEqual(found, expected, "\(values) → \(key)")
            let fast = key.withUnsafeBytes { KeyEncoding.lastOfIntegers($0) }
            if let fast { XCTAssertEqual(fast, expected, "\(values) → \(key)") }
            let allIntegers = decoded.allSatisfy { if case .integer = $0 { return true } else { return false } }
            XCTAssertEqual(fast != nil, allIntegers, "fast path taken for \(values) → \(key)")
        }
    }

    func testRandomBytesNeverDisagreeWithDecoding() {
        var rng = SplitMix64(seed: 0xB17E5)
        for _ in 0..<100_000 {
            let key = Self.randomBytes(&rng)
            let fast = key.withUnsafeBytes { KeyEncoding.lastOfIntegers($0) }
            guard let fast else { continue }
            // The fast path only answers for keys that decode to integers, and gives the last one.
            guard let decoded = try? KeyEncoding.decode(key) else {
                XCTFail("fast path accepted the malformed key \(key)")
                continue
            }
            XCTAssertEqual(decoded.last, .integer(fast), "\(key)")
            XCTAssertTrue(
                decoded.allSatisfy { if case .integer = $0 { return true } else { return false } }, "\(key)")
        }
    }

    /// ``KeyEncoding/integer(_:at:)``, the inline read of one value, answers only for a canonical INTEGER, and
    /// then as ``KeyEncoding/value(_:at:)`` does (same value, same end), from any offset of random bytes and of
    /// encoded values of every kind.
    func testOneIntegerReadInlineAgreesWithValueDecoding() {
        var rng = SplitMix64(seed: 0x1E7E6E5)
        for round in 0..<100_000 {
            var key: [UInt8] = []
            if round % 2 == 0 {
                key = Self.randomBytes(&rng)
            } else {
                for _ in 0..<Int(rng.next(below: 4)) {
                    let value: Value
                    switch rng.next(below: 5) {
                    case 0: value = .real(Double(Int64(bitPattern: rng.next()) >> Int64(rng.next(below: 60))) / 3)
                    case 1: value = .text("x")
                    case 2: value = .null
                    default: value = .integer(Int64(bitPattern: rng.next()) >> Int64(rng.next(below: 64)))
                    }
                    KeyEncoding.append(value, to: &key)
                }
            }
            let start = Int(rng.next(below: UInt64(key.count + 2))) - 1
            let inline = key.withUnsafeBytes { KeyEncoding.integer($0, at: start) }
            guard let inline else { continue }
            let decoded = key.withUnsafeBytes { try? KeyEncoding.value($0, at: start) }
            XCTAssertEqual(decoded?.0, .integer(inline.value), "\(key) at \(start)")
            XCTAssertEqual(decoded?.1, inline.end, "\(key) at \(start)")
        }
    }

    /// Up to 13 random bytes, mostly integer tags and the bytes that make bodies canonical or not.
    static func randomBytes(_ rng: inout SplitMix64) -> [UInt8] {
        var key: [UInt8] = []
        for _ in 0..<Int(rng.next(below: 14)) {
            switch rng.next(below: 6) {
            case 0: key.append(UInt8(0x17 + rng.next(below: 0x13)))
            case 1: key.append(0x00)
            case 2: key.append(0xFF)
            default: key.append(UInt8(truncatingIfNeeded: rng.next()))
            }
        }
        return key
    }
}
