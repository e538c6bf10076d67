// The tape parser of the fast JSON decoder: token structure, and strings whose special bytes fall at every
// offset of the eight-byte scan (checked against Foundation through the differential harness).
import Foundation
import XCTest

@testable import Granite

final class JSONTapeTests: XCTestCase {
    func testTokens() throws {
        let text = Array(#" {"a":[1,-2.5e3,true],"b":{"c":null},"d":"x\ny"} "#.utf8)
        let tape = try XCTUnwrap(text.withUnsafeBytes { JSONTape.parse($0) })
        let kinds = tape.tokens.map(\.kind)
        XCTAssertEqual(
            kinds,
            [
                .object, .string, .array, .number, .number, .bool, .string, .object, .string, .null, .string, .string,
                .null,
            ])
        XCTAssertEqual(tape.tokens[0].count, 3)
        XCTAssertEqual(tape.tokens[0].next, 12)
        XCTAssertEqual(tape.tokens[2].count, 3)
        XCTAssertEqual(tape.tokens[2].next, 6)
        XCTAssertEqual(
            tape.tokens[4].flags, JSONTape.numberNegative | JSONTape.numberFraction | JSONTape.numberExponent)
        XCTAssertEqual(tape.tokens[11].flags, JSONTape.stringEscaped)
        XCTAssertEqual(tape.nullIndex, 12)
    }

    func testRefusals() {
        for text in [
            "", " ", "[1,]", "{\"a\" 1}", "[01]", "[1.]", "\u{FEFF}[]", "[\"\u{1}\"]", "nul", "[1] x", "{\"a\":1,}",
        ] {
            XCTAssertNil(Array(text.utf8).withUnsafeBytes { JSONTape.parse($0) }, text.debugDescription)
        }
        let deep = String(repeating: "[", count: 300) + String(repeating: "]", count: 300)
        XCTAssertNil(Array(deep.utf8).withUnsafeBytes { JSONTape.parse($0) })
        XCTAssertNil([UInt8(ascii: "\""), 0xC3, UInt8(ascii: "\"")].withUnsafeBytes { JSONTape.parse($0) })
    }

    func testSpecialBytesAtEveryOffset() {
        let specials: [[UInt8]] = [
            [], Array("\\n".utf8), Array("\\\"".utf8), Array("\\u00e9".utf8), [0x01], [0x1F], [0x7F], [0x20],
            Array("é".utf8), Array("😀".utf8), [0xFF], [0xC3], [0xE2, 0x82], Array("\\".utf8),
        ]
        var harness = JSONDiffHarness(seed: 0)
        let decoder = JSONDecoder()
        for before in 0..<20 {
            for after in 0..<12 {
                for special in specials {
                    let content =
                        Array(repeating: UInt8(ascii: "a"), count: before) + special
                        + Array(repeating: UInt8(ascii: "b"), count: after)
                    harness.check([String].self, Array("[\"".utf8) + content + Array("\"]".utf8), decoder)
                    harness.check(String.self, Array("\"".utf8) + content + Array("\"".utf8), decoder)
                }
            }
        }
        XCTAssertGreaterThan(harness.fastCases, 1000)
    }
}
