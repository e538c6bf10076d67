// The containers of the fast JSON decoder against Foundation's JSONDecoder: coding paths, counts, keys, nil
// handling, nested containers and super decoders, seen from inside `init(from:)`.
import Foundation
import XCTest

@testable import Granite

/// A coding key of any string or integer.
struct JSONProbeKey: CodingKey, ExpressibleByStringLiteral {
    /// The key's string.
    var stringValue: String
    /// The key's integer.
    var intValue: Int?
    /// A key of `stringValue`.
    init(stringValue: String) { self.stringValue = stringValue }
    /// A key of `intValue`.
    init(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
    /// A key of a literal.
    init(stringLiteral value: String) { stringValue = value }
}

/// A coding path as text: `key|int` steps joined by `/`.
func jsonProbeDescribe(_ path: [any CodingKey]) -> String {
    path.map { "\($0.stringValue)|\($0.intValue.map(String.init) ?? "-")" }.joined(separator: "/")
}

/// A value that records its coding path and decodes one string.
struct JSONProbeSingle: Decodable, Equatable {
    /// The coding path it was decoded at, and the string.
    var log: String
    /// Decodes the string through a single value container.
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        log =
            "\(jsonProbeDescribe(decoder.codingPath)) \(jsonProbeDescribe(container.codingPath)) "
            + (try container.decode(String.self))
    }
}

/// A value that logs what its decoder shows.
struct JSONProbe: Decodable, Equatable {
    /// What the decoder showed.
    var log: [String] = []

    /// Walks the text's structure through every kind of container.
    init(from decoder: any Decoder) throws {
        let info = CodingUserInfoKey(rawValue: "probe")!
        log.append("root \(jsonProbeDescribe(decoder.codingPath)) info \(decoder.userInfo[info] as? String ?? "none")")
        let root = try decoder.container(keyedBy: JSONProbeKey.self)
        log.append("keys \(root.allKeys.map(\.stringValue).sorted()) \(jsonProbeDescribe(root.codingPath))")
        log.append("contains \(root.contains("a")) \(root.contains("n")) \(root.contains("zz"))")
        log.append("nil \(try root.decodeNil(forKey: "n")) \(try root.decodeNil(forKey: "a"))")
        log.append("ifPresent \(String(describing: try root.decodeIfPresent(Int.self, forKey: "n")))")
        log.append("ifPresent \(String(describing: try root.decodeIfPresent(Int.self, forKey: "zz")))")
        log.append("ifPresent \(String(describing: try root.decodeIfPresent([Int].self, forKey: "zz")))")
        var list = try root.nestedUnkeyedContainer(forKey: "list")
        log.append("list \(String(describing: list.count)) \(list.isAtEnd) \(jsonProbeDescribe(list.codingPath))")
        while !list.isAtEnd {
            if try list.decodeNil() {
                log.append("nil, now at \(list.currentIndex)")
                continue
            }
            let element = try list.nestedContainer(keyedBy: JSONProbeKey.self)
            log.append(
                "element \(jsonProbeDescribe(element.codingPath)) \(try element.decode(Int.self, forKey: "v"))"
                    + " \(try element.decode(JSONProbeSingle.self, forKey: "s").log)")
        }
        log.append("at end \(list.currentIndex) \(String(describing: try list.decodeIfPresent(Int.self)))")
        var matrix = try root.nestedUnkeyedContainer(forKey: "matrix")
        while !matrix.isAtEnd {
            var row = try matrix.nestedUnkeyedContainer()
            log.append("row \(jsonProbeDescribe(row.codingPath)) \(String(describing: row.count))")
            while !row.isAtEnd {
                log.append("cell \(try row.decode(JSONProbeSingle.self).log)")
            }
        }
        var supers = try root.nestedUnkeyedContainer(forKey: "supers")
        let first = try supers.superDecoder()
        log.append(
            "unkeyed super \(jsonProbeDescribe(first.codingPath)) \(try first.singleValueContainer().decode(Int.self))")
        log.append("after super \(supers.currentIndex)")
        let superDecoder = try root.superDecoder()
        log.append(
            "super \(jsonProbeDescribe(superDecoder.codingPath)) nil \(try superDecoder.singleValueContainer().decodeNil())"
        )
        let objectDecoder = try root.superDecoder(forKey: "obj")
        let object = try objectDecoder.container(keyedBy: JSONProbeKey.self)
        log.append("obj \(jsonProbeDescribe(object.codingPath)) \(try object.decode(String.self, forKey: "x"))")
        let missing = try root.superDecoder(forKey: "missing")
        log.append("missing \(jsonProbeDescribe(missing.codingPath)) \(try missing.singleValueContainer().decodeNil())")
        let nested = try root.nestedContainer(keyedBy: JSONProbeKey.self, forKey: "obj")
        log.append("nested \(try nested.decode(JSONProbeSingle.self, forKey: "x").log)")
        let single = try decoder.singleValueContainer()
        log.append("single \(jsonProbeDescribe(single.codingPath)) \(single.decodeNil())")
        log.append("optionals \(String(describing: try root.decode([Int?].self, forKey: "optionals")))")
        let dictionary = try root.decode([String: [String: Int]].self, forKey: "dict")
        log.append("dictionary \(dictionary.flatMap { k, v in v.map { "\(k).\($0.key)=\($0.value)" } }.sorted())")
    }
}

/// A base class decoding its `id`.
class JSONProbeBase: Decodable {
    /// The identifier.
    var id: Int
    /// The path the base was decoded at.
    var basePath: String
    /// The coding keys.
    enum CodingKeys: String, CodingKey { case id }
    /// Decodes `id`.
    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int.self, forKey: .id)
        basePath = jsonProbeDescribe(container.codingPath)
    }
}

/// A subclass decoding its base from `super`.
final class JSONProbeDerived: JSONProbeBase, Equatable {
    /// The name.
    var name: String
    /// The coding keys.
    enum DerivedKeys: String, CodingKey { case name }
    /// Decodes `name`, and the base from the super decoder.
    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: DerivedKeys.self)
        name = try container.decode(String.self, forKey: .name)
        try super.init(from: container.superDecoder())
    }
    /// Equal names, identifiers and paths.
    static func == (lhs: JSONProbeDerived, rhs: JSONProbeDerived) -> Bool {
        lhs.name == rhs.name && lhs.id == rhs.id && lhs.basePath == rhs.basePath
    }
}

final class JSONFastDecoderContainerTests: XCTestCase {
    /// GRDB's JSON decoder with a user info.
    func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dataDecodingStrategy = .base64
        decoder.dateDecodingStrategy = .millisecondsSince1970
        decoder.userInfo = [CodingUserInfoKey(rawValue: "probe")!: "granite"]
        return decoder
    }

    /// Decodes `text` with Foundation and with the fast decoder, which must take its fast path and agree.
    func assertSame<T: Decodable & Equatable>(
        _ type: T.Type, _ text: String, fast: Bool = true, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let decoder = makeDecoder()
        let bytes = Array(text.utf8)
        let expected = try decoder.decode(T.self, from: Data(bytes))
        let quick = bytes.withUnsafeBytes { JSONFastDecoding.fastDecode(T.self, from: $0, with: decoder) }
        XCTAssertEqual(quick != nil, fast, "fast path taken", file: file, line: line)
        if let quick { XCTAssertEqual(quick, expected, file: file, line: line) }
        let actual = try bytes.withUnsafeBytes { try JSONFastDecoding.decode(T.self, from: $0, with: decoder) }
        XCTAssertEqual(actual, expected, file: file, line: line)
    }

    let probeText = """
        {"a":1,"n":null,"list":[{"v":1,"s":"x"},null,{"s":"y","v":2}],"matrix":[["p","q"],[],["r"]],
         "supers":[7,8],"obj":{"x":"in obj"},"optionals":[1,null,3],"dict":{"k":{"z":1,"y":2}},"super":null}
        """

    func testContainersShowWhatFoundationShows() throws {
        try assertSame(JSONProbe.self, probeText)
        // Without a `super` member.
        try assertSame(JSONProbe.self, probeText.replacingOccurrences(of: ",\"super\":null", with: ""))
    }

    func testProbeLog() throws {
        let decoder = makeDecoder()
        let probe = try Array(probeText.utf8).withUnsafeBytes {
            try XCTUnwrap(JSONFastDecoding.fastDecode(JSONProbe.self, from: $0, with: decoder))
        }
        // A few lines checked by hand: Foundation's index keys and the `super` key.
        XCTAssertTrue(probe.log.contains("root  info granite"), "\(probe.log)")
        XCTAssertTrue(probe.log.contains("element list|-/Index 0|0 1 list|-/Index 0|0/s|- list|-/Index 0|0/s|- x"))
        XCTAssertTrue(probe.log.contains("super super|- nil true"), "\(probe.log)")
        XCTAssertTrue(probe.log.contains("at end 3 nil"), "\(probe.log)")
    }

    func testSuperDecoderOfAClassHierarchy() throws {
        try assertSame(JSONProbeDerived.self, #"{"name":"derived","super":{"id":3}}"#)
        try assertSame([JSONProbeDerived].self, #"[{"super":{"id":3},"name":"a"},{"name":"b","super":{"id":4}}]"#)
    }

    func testTopLevelFragmentsAndNulls() throws {
        try assertSame(Int?.self, "null")
        try assertSame(Int?.self, " 12 ")
        try assertSame([Int?].self, "[null, 1]")
        try assertSame(String.self, #""top""#)
        try assertSame(Bool.self, "true")
        try assertSame([String: String?].self, #"{"a":null,"b":"c"}"#)
    }

    func testLargeObjects() throws {
        // Objects of more than 32 members check their keys with a set.
        let members = (0..<40).map { "\"key\($0)\":\($0)" }
        try assertSame([String: Int].self, "{" + members.joined(separator: ",") + "}")
        try assertSame([String: Int].self, "{" + (members + ["\"key7\":0"]).joined(separator: ",") + "}", fast: false)
        try assertSame(
            [String: Int].self, "{" + (members + ["\"k\\u0065y\":0"]).joined(separator: ",") + "}", fast: false)
    }

    func testEqualKeysFromDistinctMembersAbandon() throws {
        // "1" and "01" are the same integer key: which value wins depends on the order of `allKeys`, a
        // dictionary's order in Foundation.
        let decoder = makeDecoder()
        XCTAssertNil(
            Array(#"{"1":"a","01":"b"}"#.utf8).withUnsafeBytes {
                JSONFastDecoding.fastDecode([Int: String].self, from: $0, with: decoder)
            })
        try assertSame([Int: String].self, #"{"1":"a","2":"b","-3":"c"}"#)
    }

    func testWhatAbandonsToFoundation() throws {
        // Duplicate keys (Foundation keeps the first), escaped and non-ASCII keys read by key, Decimal.
        try assertSame([String: Int].self, #"{"a":1,"a":2}"#, fast: false)
        try assertSame([String: Int].self, #"{"\u0061":1,"b":2}"#, fast: false)
        try assertSame([String: Int].self, #"{"é":1}"#, fast: false)
        try assertSame([Decimal].self, "[1.5]", fast: false)
        // Numbers that do not convert identically.
        try assertSame([Int].self, "[1.0]", fast: false)
        try assertSame([Int].self, "[1E2]", fast: false)
        try assertSame([Double].self, "[1e-320]", fast: false)
        // Escaped and non-ASCII strings as values are fine.
        try assertSame([String].self, #"["\u00e9\n\/", "é", "\ud83d\ude00"]"#)
        // A key the type asks for in a non-ASCII spelling canonically equal to an ASCII member.
        try assertSame(JSONProbeKelvin.self, #"{"K":1}"#)
    }
}

/// A type whose coding key is the Kelvin sign, canonically equivalent to "K".
struct JSONProbeKelvin: Decodable, Equatable {
    /// The value.
    var kelvin: Int
    /// The key.
    enum CodingKeys: String, CodingKey { case kelvin = "\u{212A}" }
}
