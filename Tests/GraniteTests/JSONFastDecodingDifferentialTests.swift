// The fast JSON decoder against Foundation's JSONDecoder: random Codable trees, mutated texts, numbers, strings,
// URLs and base64 decoded by both, which must give equal values or equal errors.
import Foundation
import GraniteTestSupport
import XCTest

import struct GraniteStorage.SplitMix64

@testable import Granite

/// The draws the differential tests make from their seeded generator.
extension SplitMix64 {
    /// A random integer in `range`.
    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }

    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &self) < p }

    /// A random element of `elements`.
    mutating func pick<T>(_ elements: [T]) -> T { elements[int(0...elements.count - 1)] }
}

/// A colour (a String raw value enum).
enum JSONDiffColor: String, Codable, Equatable, CaseIterable {
    case red, green, blue
}

/// A level (an Int raw value enum).
enum JSONDiffLevel: Int, Codable, Equatable, CaseIterable {
    case low = 1
    case high = 2
    case top = 300
}

/// A leaf of the random trees: every primitive type and Foundation's special cases.
struct JSONDiffLeaf: Codable, Equatable {
    var i8: Int8
    var i16: Int16
    var i32: Int32
    var i64: Int64
    var int: Int
    var u8: UInt8
    var u16: UInt16
    var u32: UInt32
    var u64: UInt64
    var uint: UInt
    var float: Float
    var double: Double
    var bool: Bool
    var string: String
    var color: JSONDiffColor
    var level: JSONDiffLevel?
    var date: Date
    var data: Data
    var url: URL?
    var uuid: UUID
    var decimal: Decimal?
    var optionalString: String?
    var optionalInt: Int?
    var optionalDouble: Double?
}

/// A node of the random trees: nested arrays, dictionaries, optionals and children.
struct JSONDiffNode: Codable, Equatable {
    var name: String
    var leaves: [JSONDiffLeaf]
    var children: [JSONDiffNode]
    var tags: [String: Int]
    var matrix: [[Double]]
    var best: JSONDiffLeaf?
    var byNumber: [Int: String]?
    var flags: [Bool?]
    var dates: [Date]
}

/// The generators of random values and texts.
enum JSONDiffGenerator {
    /// Pieces of strings: ASCII, characters JSON escapes, non-ASCII, combining marks, a Kelvin sign.
    static let stringPieces = [
        "a", "Z", "hello", " ", "/", "\\", "\"", "\n", "\t", "\r", "\u{8}", "\u{C}", "\u{0}", "\u{1F}", "\u{7F}", "é",
        "e\u{301}", "\u{212A}", "K", "日本", "😀", "👩‍👩‍👧", "\u{FFFF}", "\u{10FFFF}", "\u{2028}", "<>&'", "1.5", "null",
    ]

    /// A random string.
    static func string(_ random: inout SplitMix64, maxPieces: Int = 5) -> String {
        (0..<random.int(0...maxPieces)).map { _ in random.pick(stringPieces) }.joined()
    }

    /// Dictionary keys: mostly plain, some escaped or non-ASCII.
    static let keys = ["a", "b", "name", "key", "x1", "long_key_name", "é", "a/b", "q\"", "\u{212A}", "K", ""]

    /// URL strings.
    static let urls = [
        "https://example.com/a?b=c#d", "a/b", "../up", "//host/x", "mailto:a@b.c", "http://x.com/a b", "file:///tmp/f",
        "http://[::1]:80/", "%zz", "http://x.com/é", "relative",
    ]

    /// A random finite double, often an edge value.
    static func double(_ random: inout SplitMix64) -> Double {
        switch random.int(0...9) {
        case 0:
            return random.pick([
                0, -0.0, 1, -1, 0.1, 1e22, 1e23, Double.leastNonzeroMagnitude, 2.2250738585072014e-308,
                Double.greatestFiniteMagnitude,
                -Double.greatestFiniteMagnitude, Double.leastNormalMagnitude, 9_007_199_254_740_991, 123.456,
            ])
        case 1, 2:
            var value: Double
            repeat { value = Double(bitPattern: random.next()) } while !value.isFinite
            return value
        case 3: return Double(random.int(-1_000_000...1_000_000))
        default: return Double.random(in: -1e6...1e6, using: &random)
        }
    }

    /// A random finite float, often an edge value.
    static func float(_ random: inout SplitMix64) -> Float {
        switch random.int(0...5) {
        case 0:
            return random.pick([
                0, -0.0, 1, 0.1, Float.greatestFiniteMagnitude, Float.leastNormalMagnitude,
                Float.leastNonzeroMagnitude, 16_777_215, 3.4028235e38,
            ])
        case 1, 2:
            var value: Float
            repeat { value = Float(bitPattern: UInt32(truncatingIfNeeded: random.next())) } while !value.isFinite
            return value
        default: return Float.random(in: -1000...1000, using: &random)
        }
    }

    /// A random integer of type `T`, often at a boundary.
    static func integer<T: FixedWidthInteger>(_ random: inout SplitMix64, _ type: T.Type = T.self) -> T {
        switch random.int(0...3) {
        case 0: return random.pick([T.min, T.max, 0, 1, T.max - 1])
        case 1: return T(truncatingIfNeeded: random.int(-200...200))
        default: return T(truncatingIfNeeded: random.next())
        }
    }

    /// A random date (milliseconds with fractions, or an arbitrary interval).
    static func date(_ random: inout SplitMix64) -> Date {
        if random.chance(0.5) {
            return Date(timeIntervalSince1970: Double(random.int(-2_000_000_000_000...4_000_000_000_000)) / 1000)
        }
        return Date(timeIntervalSinceReferenceDate: Double.random(in: -1e10...1e10, using: &random))
    }

    /// A random UUID.
    static func uuid(_ random: inout SplitMix64) -> UUID {
        let b = (0..<16).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        return UUID(
            uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])
        )
    }

    /// A random leaf.
    static func leaf(_ random: inout SplitMix64) -> JSONDiffLeaf {
        JSONDiffLeaf(
            i8: integer(&random), i16: integer(&random), i32: integer(&random), i64: integer(&random),
            int: integer(&random), u8: integer(&random), u16: integer(&random), u32: integer(&random),
            u64: integer(&random), uint: integer(&random), float: float(&random), double: double(&random),
            bool: random.chance(0.5), string: string(&random), color: random.pick(JSONDiffColor.allCases),
            level: random.chance(0.5) ? random.pick(JSONDiffLevel.allCases) : nil, date: date(&random),
            data: Data((0..<random.int(0...12)).map { _ in UInt8(truncatingIfNeeded: random.next()) }),
            url: random.chance(0.3) ? URL(string: random.pick(urls)) : nil,
            uuid: uuid(&random), decimal: random.chance(0.05) ? Decimal(random.int(-1000...1000)) / 8 : nil,
            optionalString: random.chance(0.5) ? string(&random) : nil,
            optionalInt: random.chance(0.5) ? integer(&random) : nil,
            optionalDouble: random.chance(0.5) ? double(&random) : nil)
    }

    /// A random tree of at most `depth` levels.
    static func node(_ random: inout SplitMix64, depth: Int) -> JSONDiffNode {
        var tags: [String: Int] = [:]
        for _ in 0..<random.int(0...4) {
            let key = random.chance(0.8) ? random.pick(Array(keys.prefix(6))) : random.pick(keys)
            tags[key] = integer(&random)
        }
        return JSONDiffNode(
            name: string(&random),
            leaves: (0..<random.int(0...3)).map { _ in leaf(&random) },
            children: depth > 0 ? (0..<random.int(0...2)).map { _ in node(&random, depth: depth - 1) } : [],
            tags: tags,
            matrix: (0..<random.int(0...3)).map { _ in (0..<random.int(0...3)).map { _ in double(&random) } },
            best: random.chance(0.3) ? leaf(&random) : nil,
            byNumber: random.chance(0.3)
                ? Dictionary((0..<random.int(0...3)).map { _ in (random.int(-5...5), string(&random)) }) { a, _ in a }
                : nil,
            flags: (0..<random.int(0...3)).map { _ in random.chance(0.3) ? nil : random.chance(0.5) },
            dates: (0..<random.int(0...2)).map { _ in date(&random) })
    }

    /// Number texts that are edge cases for some type.
    static let edgeNumbers = [
        "0", "-0", "1", "-1", "1.0", "1E2", "1e2", "1e+2", "1e-2", "0.1", "-0.0", "0e10", "1e400", "-1e400",
        "1e-400", "4.9e-324", "2.4e-324", "5e-324", "2.2250738585072014e-308", "2.2250738585072011e-308",
        "1.7976931348623157e308", "1.7976931348623159e308", "3.4028235e38", "3.4028236e38", "1.17549435e-38",
        "1e-45", "1.4e-45", "1.0000000596046447753906251", "9007199254740993", "123456789012345678901234567890",
        "127", "128", "-128", "-129", "255", "256", "32767", "32768", "-32769", "65535", "65536", "2147483647",
        "2147483648", "-2147483649", "4294967295", "4294967296", "9223372036854775807", "9223372036854775808",
        "-9223372036854775808", "-9223372036854775809", "18446744073709551615", "18446744073709551616",
        "01", "-", "1.", ".5", "+1", "1e", "0x10", "NaN", "Infinity", "-Infinity", "1_000", "00", "-01", "1.5e",
        "12.50", "0.000001", "1e-7", "100000000000000000000000", "0.30000000000000004", "1e22", "1e23",
        "8.5", "-8.5", "1000.5", "1.5e3", "0e8", "0e1", "0E5", "0.00e1", "-0e8", "0e+8", "0.0e8", "0e10", "0e1000000",
        "-0e-1000000", "0.0000e99999999999999999999",
        "1e99999999999999999999", "1e-99999999999999999999", "1.00000000000000011102230246251565404236316680908203125",
        "1.00000000000000011102230246251565404236316680908203124", "7.038531e-26", "0.000000000000000000000000000001",
    ]

    /// A random number text: valid JSON most of the time.
    static func number(_ random: inout SplitMix64) -> String {
        switch random.int(0...5) {
        case 0: return random.pick(edgeNumbers)
        case 1: return "\(double(&random))"
        case 2: return "\(float(&random))"
        case 3: return "\(integer(&random, Int64.self))"
        default:
            var text = random.chance(0.3) ? "-" : ""
            let digits = random.int(1...25)
            text += random.chance(0.1) ? "0" : String(random.int(1...9))
            if text.last != "0" || digits == 1 {
                for _ in 1..<digits { text += String(random.int(0...9)) }
            }
            if random.chance(0.5) {
                text += "."
                for _ in 0..<random.int(1...20) { text += String(random.int(0...9)) }
            }
            if random.chance(0.4) {
                text += random.pick(["e", "E"]) + random.pick(["", "+", "-"]) + String(random.int(0...400))
            }
            return text
        }
    }

    /// Pieces of JSON string literals: valid and invalid escapes, raw and invalid bytes.
    static let literalPieces: [[UInt8]] = [
        Array("abc".utf8), Array("é".utf8), Array("😀".utf8), Array("\\\"".utf8), Array("\\\\".utf8),
        Array("\\/".utf8), Array("\\b".utf8), Array("\\f".utf8), Array("\\n".utf8), Array("\\r".utf8),
        Array("\\t".utf8), Array("\\u00e9".utf8), Array("\\u00E9".utf8), Array("\\u0000".utf8),
        Array("\\uD83D\\uDE00".utf8), Array("\\ud83d\\ude00".utf8), Array("\\uD800".utf8), Array("\\uDC00".utf8),
        Array("\\uD800\\u0041".utf8), Array("\\u212A".utf8), Array("\\x41".utf8), Array("\\'".utf8),
        Array("\\u12".utf8), Array("\\uZZZZ".utf8), [0x01], [0x1F], [0x7F], [0x09], [0xFF], [0xC0, 0x80],
        [0xED, 0xA0, 0x80], [0xE2, 0x82], [0xF4, 0x90, 0x80, 0x80], [0xEF, 0xBF, 0xBF], Array("\\uFFFF".utf8),
        Array("e\u{301}".utf8),
    ]

    /// A random JSON string literal (quotes included), valid or not.
    static func literal(_ random: inout SplitMix64) -> [UInt8] {
        var bytes: [UInt8] = [UInt8(ascii: "\"")]
        for _ in 0..<random.int(0...4) { bytes += random.pick(literalPieces) }
        if random.chance(0.97) { bytes.append(UInt8(ascii: "\"")) }
        return bytes
    }

    /// Replacement values for mutations.
    static let replacements = [
        "null", "true", "false", "\"str\"", "[]", "{}", "[1]", "{\"a\":1}", "\"\\ud800\"", "\"\\x\"", "0", "-1",
        "1.5", "1e400", "\"2020-01-01T00:00:00Z\"", "\"AAA=\"", "\"AAA\"", "\"a\\/b\"", "300", "-0", "1E2",
        "18446744073709551616",
    ]

    /// The ranges of scalar values (numbers, literals, strings) in a JSON text, found by a light scan.
    static func scalarRanges(_ text: [UInt8]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var index = 0
        while index < text.count {
            let byte = text[index]
            if byte == UInt8(ascii: "\"") {
                var end = index + 1
                while end < text.count, text[end] != UInt8(ascii: "\"") {
                    end += text[end] == UInt8(ascii: "\\") ? 2 : 1
                }
                ranges.append(index..<min(end + 1, text.count))
                index = end + 1
            } else if byte == UInt8(ascii: "-") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "t") || byte == UInt8(ascii: "f") || byte == UInt8(ascii: "n")
            {
                var end = index
                while end < text.count, !",]}: \n".utf8.contains(text[end]) { end += 1 }
                ranges.append(index..<end)
                index = end
            } else {
                index += 1
            }
        }
        return ranges
    }

    /// A random mutation of `text`.
    static func mutate(_ text: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
        var text = text
        let scalars = scalarRanges(text)
        switch random.int(0...11) {
        case 0:
            return Array(text.prefix(random.int(0...text.count)))
        case 1:
            return text + Array(random.pick([" ", "x", "]", "}", ",", "\u{0}", " \n\t\r", "1", "{}"]).utf8)
        case 2, 3:
            // Replaces a scalar with a number.
            guard let range = scalars.isEmpty ? nil : random.pick(scalars) else { return text }
            text.replaceSubrange(range, with: Array(number(&random).utf8))
        case 4, 5:
            guard let range = scalars.isEmpty ? nil : random.pick(scalars) else { return text }
            text.replaceSubrange(range, with: Array(random.pick(replacements).utf8))
        case 6:
            // Replaces a string with a random literal.
            let strings = scalars.filter { text[$0.lowerBound] == UInt8(ascii: "\"") }
            guard let range = strings.isEmpty ? nil : random.pick(strings) else { return text }
            text.replaceSubrange(range, with: literal(&random))
        case 7:
            // A duplicate or unknown key at the start of an object.
            let opens = text.indices.filter { text[$0] == UInt8(ascii: "{") }
            guard let open = opens.isEmpty ? nil : random.pick(opens) else { return text }
            let key = random.pick(["name", "i8", "string", "leaves", "date", "a", "zzz", "float", "url", "tags"])
            text.insert(contentsOf: Array("\"\(key)\":\(random.pick(replacements)),".utf8), at: open + 1)
        case 8:
            // Removes a member (a key and its scalar value).
            let keys = scalars.indices.filter {
                scalars[$0].upperBound < text.count && text[scalars[$0].upperBound] == UInt8(ascii: ":")
            }
            guard let key = keys.isEmpty ? nil : random.pick(keys), key + 1 < scalars.count else { return text }
            var end = scalars[key + 1].upperBound
            if end < text.count, text[end] == UInt8(ascii: ",") { end += 1 }
            text.removeSubrange(scalars[key].lowerBound..<end)
        case 9:
            // Whitespace, valid or not, somewhere.
            let position = random.int(0...text.count)
            text.insert(
                contentsOf: Array(random.pick([" ", "\t", "\n", "\r", "\u{B}", "\u{A0}", "\u{FEFF}"]).utf8),
                at: position)
        case 10:
            text[random.int(0...max(0, text.count - 1))] = UInt8(truncatingIfNeeded: random.next())
        default:
            return [0xEF, 0xBB, 0xBF] + text
        }
        return text
    }
}

/// The comparison of the two decoders.
struct JSONDiffHarness {
    /// The seed of the run (printed on failure).
    let seed: UInt64
    /// Cases compared.
    var cases = 0
    /// Cases the fast decoder decoded itself.
    var fastCases = 0
    /// Cases where both failed.
    var errorCases = 0

    /// A harness for `seed`.
    init(seed: UInt64) { self.seed = seed }

    /// The canonical text of a value, to compare what `==` does not see (the sign of zero, float bits).
    static func canonical<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.timeIntervalSinceReferenceDate.bitPattern)
        }
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "unencodable"
    }

    /// Decodes `text` as `T` with both decoders and checks they agree.
    mutating func check<T: Codable & Equatable>(
        _ type: T.Type, _ text: [UInt8], _ decoder: JSONDecoder, expectFast: Bool? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        cases += 1
        let foundation = Result { try decoder.decode(T.self, from: Data(text)) }
        let fast = text.withUnsafeBytes { JSONFastDecoding.fastDecode(T.self, from: $0, with: decoder) }
        let full = Result { try text.withUnsafeBytes { try JSONFastDecoding.decode(T.self, from: $0, with: decoder) } }
        let context =
            "seed \(seed) (GRANITE_SEED=\(seed)), \(T.self), text: \(String(decoding: text, as: UTF8.self).debugDescription)"
        if let fast {
            fastCases += 1
            switch foundation {
            case .success(let expected):
                XCTAssertEqual(fast, expected, context, file: file, line: line)
                XCTAssertEqual(Self.canonical(fast), Self.canonical(expected), context, file: file, line: line)
            case .failure(let error):
                XCTFail(
                    "fast decoder succeeded where Foundation fails with \(error); \(context)", file: file, line: line)
            }
        }
        switch (foundation, full) {
        case (.success(let expected), .success(let actual)):
            XCTAssertEqual(actual, expected, context, file: file, line: line)
            XCTAssertEqual(Self.canonical(actual), Self.canonical(expected), context, file: file, line: line)
        case (.failure(let expected), .failure(let actual)):
            errorCases += 1
            XCTAssertEqual(String(describing: actual), String(describing: expected), context, file: file, line: line)
        case (.success(let expected), .failure(let actual)):
            XCTFail("Foundation gives \(expected), Granite throws \(actual); \(context)", file: file, line: line)
        case (.failure(let expected), .success(let actual)):
            XCTFail("Foundation throws \(expected), Granite gives \(actual); \(context)", file: file, line: line)
        }
        if let expectFast {
            XCTAssertEqual(fast != nil, expectFast, "fast path taken? \(context)", file: file, line: line)
        }
    }
}

final class JSONFastDecodingDifferentialTests: XCTestCase {
    /// The decoder configurations the fast path supports, with the matching encoders.
    static func configurations() -> [(JSONDecoder, JSONEncoder)] {
        var result: [(JSONDecoder, JSONEncoder)] = []
        // GRDB's (the records' JSON columns).
        let grdb = JSONDecoder()
        grdb.dataDecodingStrategy = .base64
        grdb.dateDecodingStrategy = .millisecondsSince1970
        grdb.nonConformingFloatDecodingStrategy = .throw
        let grdbEncoder = JSONEncoder()
        grdbEncoder.dataEncodingStrategy = .base64
        grdbEncoder.dateEncodingStrategy = .millisecondsSince1970
        grdbEncoder.nonConformingFloatEncodingStrategy = .throw
        grdbEncoder.outputFormatting = .sortedKeys
        result.append((grdb, grdbEncoder))
        // Foundation's defaults.
        result.append((JSONDecoder(), JSONEncoder()))
        // Deferred data, seconds, pretty printed.
        let seconds = JSONDecoder()
        seconds.dataDecodingStrategy = .deferredToData
        seconds.dateDecodingStrategy = .secondsSince1970
        seconds.userInfo = [CodingUserInfoKey(rawValue: "k")!: "v"]
        let secondsEncoder = JSONEncoder()
        secondsEncoder.dataEncodingStrategy = .deferredToData
        secondsEncoder.dateEncodingStrategy = .secondsSince1970
        secondsEncoder.outputFormatting = [.prettyPrinted, .withoutEscapingSlashes]
        result.append((seconds, secondsEncoder))
        return result
    }

    /// Random trees encoded by JSONEncoder, then mutated texts, decoded by both decoders.
    func testRandomTreesAndMutations() throws {
        let (seed, stress) = (testSeed(), stressFactor)
        var random = SplitMix64(seed: seed)
        var harness = JSONDiffHarness(seed: seed)
        var unmutated = 0
        var unmutatedFast = 0
        for iteration in 0..<(300 * stress) {
            let configurations = Self.configurations()
            let (decoder, encoder) = configurations[iteration % configurations.count]
            let tree = JSONDiffGenerator.node(&random, depth: random.int(0...2))
            let text: [UInt8]
            do {
                text = Array(try encoder.encode(tree))
            } catch {
                continue
            }
            let fastBefore = harness.fastCases
            harness.check(JSONDiffNode.self, text, decoder)
            unmutated += 1
            if harness.fastCases > fastBefore { unmutatedFast += 1 }
            let leaves = tree.leaves
            if let leavesText = try? encoder.encode(leaves) {
                harness.check([JSONDiffLeaf].self, Array(leavesText), decoder)
            }
            for _ in 0..<4 {
                harness.check(JSONDiffNode.self, JSONDiffGenerator.mutate(text, &random), decoder)
            }
            if let leavesText = try? encoder.encode(leaves) {
                harness.check([JSONDiffLeaf].self, JSONDiffGenerator.mutate(Array(leavesText), &random), decoder)
            }
            if testRun?.failureCount ?? 0 > 0 { break }
        }
        print(
            "JSON differential (trees): seed \(seed), \(harness.cases) cases, \(harness.fastCases) fast, "
                + "\(harness.errorCases) errors; unmutated trees \(unmutatedFast)/\(unmutated) fast")
        XCTAssertGreaterThan(harness.cases, 2000)
        // The fast path must not be vacuous: most unmutated trees take it (those with a Decimal, a non-ASCII or
        // escaped dictionary key, or a subnormal number do not).
        XCTAssertGreaterThan(unmutatedFast * 4, unmutated, "seed \(seed)")
    }

    /// Number texts decoded as every numeric type, a Date and a Decimal, in an array and at the top level.
    func testNumbers() throws {
        let (seed, stress) = (testSeed(), stressFactor)
        var random = SplitMix64(seed: seed)
        var harness = JSONDiffHarness(seed: seed)
        let decoders = Self.configurations().map(\.0)
        var numbers = JSONDiffGenerator.edgeNumbers
        for _ in 0..<(250 * stress) { numbers.append(JSONDiffGenerator.number(&random)) }
        for (offset, number) in numbers.enumerated() {
            let decoder = decoders[offset % decoders.count]
            let text = Array("[\(number)]".utf8)
            harness.check([Int8].self, text, decoder)
            harness.check([Int16].self, text, decoder)
            harness.check([Int32].self, text, decoder)
            harness.check([Int64].self, text, decoder)
            harness.check([Int].self, text, decoder)
            harness.check([UInt8].self, text, decoder)
            harness.check([UInt16].self, text, decoder)
            harness.check([UInt32].self, text, decoder)
            harness.check([UInt64].self, text, decoder)
            harness.check([UInt].self, text, decoder)
            harness.check([Float].self, text, decoder)
            harness.check([Double].self, text, decoder)
            harness.check([Date].self, text, decoder)
            harness.check([Decimal].self, text, decoder, expectFast: false)
            harness.check(Double.self, Array(number.utf8), decoder)
            harness.check(Int64.self, Array(number.utf8), decoder)
            harness.check([String: Float].self, Array("{\"n\":\(number)}".utf8), decoder)
            if testRun?.failureCount ?? 0 > 0 { break }
        }
        print(
            "JSON differential (numbers): seed \(seed), \(harness.cases) cases, \(harness.fastCases) fast, "
                + "\(harness.errorCases) errors")
        XCTAssertGreaterThan(harness.cases, 2000)
    }

    /// Every text of up to five characters (six under GRANITE_STRESS) over `0 1 9 - . e E +`, as numbers of
    /// four types: the short forms where Foundation has quirks (it rejects `0e1` but accepts `0e10`).
    func testShortNumberTextsExhaustively() throws {
        let stress = stressFactor
        var harness = JSONDiffHarness(seed: 0)
        let alphabet = ["0", "1", "9", "-", ".", "e", "E", "+"]
        var texts = [""]
        var all: [String] = []
        for _ in 1...(stress > 1 ? 6 : 5) {
            texts = texts.flatMap { text in alphabet.map { text + $0 } }
            all += texts
        }
        let decoder = JSONDecoder()
        for text in all {
            let bytes = Array("[\(text)]".utf8)
            harness.check([Double].self, bytes, decoder)
            harness.check([Float].self, bytes, decoder)
            harness.check([Int].self, bytes, decoder)
            harness.check([UInt8].self, bytes, decoder)
            if testRun?.failureCount ?? 0 > 0 { break }
        }
        print("JSON differential (short numbers): \(harness.cases) cases, \(harness.fastCases) fast")
        XCTAssertGreaterThan(harness.fastCases, 2000)
    }

    /// String literals (escapes, surrogates, invalid bytes) decoded as strings, keys, URLs, data and UUIDs.
    func testStringsAndSpecialTypes() throws {
        let (seed, stress) = (testSeed(), stressFactor)
        var random = SplitMix64(seed: seed)
        var harness = JSONDiffHarness(seed: seed)
        let decoders = Self.configurations().map(\.0)
        for iteration in 0..<(500 * stress) {
            let decoder = decoders[iteration % decoders.count]
            let literal = JSONDiffGenerator.literal(&random)
            harness.check([String].self, [UInt8(ascii: "[")] + literal + [UInt8(ascii: "]")], decoder)
            harness.check(String.self, literal, decoder)
            harness.check([String: Int].self, [UInt8(ascii: "{")] + literal + Array(":1}".utf8), decoder)
            let url = JSONDiffGenerator.urls[iteration % JSONDiffGenerator.urls.count]
            harness.check([URL].self, Array("[\"\(url)\"]".utf8), decoder)
            harness.check(URL.self, literal, decoder)
            let bytes = Data((0..<random.int(0...10)).map { _ in UInt8(truncatingIfNeeded: random.next()) })
            var base64 = bytes.base64EncodedString()
            if random.chance(0.3), !base64.isEmpty {
                base64.remove(at: base64.index(base64.startIndex, offsetBy: random.int(0...base64.count - 1)))
            }
            if random.chance(0.1) { base64 += random.pick([" ", "\\n", "=", "*"]) }
            harness.check(
                [Data].self, Array("[\"\(base64.replacingOccurrences(of: "/", with: "\\/"))\"]".utf8), decoder)
            let generated = JSONDiffGenerator.uuid(&random).uuidString
            let uuid = random.chance(0.8) ? generated : random.pick(["", "x", generated.lowercased()])
            harness.check([UUID].self, Array("[\"\(uuid)\"]".utf8), decoder)
            if testRun?.failureCount ?? 0 > 0 { break }
        }
        print(
            "JSON differential (strings): seed \(seed), \(harness.cases) cases, \(harness.fastCases) fast, "
                + "\(harness.errorCases) errors")
        XCTAssertGreaterThan(harness.cases, 2000)
    }
}
