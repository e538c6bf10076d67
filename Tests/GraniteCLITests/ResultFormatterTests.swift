// Tests of the `granite sql` result formatters: golden outputs taken from the sqlite3 3.40 shell,
// and a seeded differential test against `sqlite3 -csv -header` on random result sets.

import Foundation
import GraniteStorage
import GraniteTestSupport
import XCTest

@testable import granite

final class ResultFormatterTests: XCTestCase {
    private func csv(_ columns: [String], _ rows: [[Value]], header: Bool = true) -> String {
        String(decoding: CSVFormatter(header: header).formatted(columns: columns, rows: rows), as: UTF8.self)
    }

    private func text(_ format: ResultFormat, _ columns: [String], _ rows: [[Value]]) -> String {
        String(decoding: format.formatter.formatted(columns: columns, rows: rows), as: UTF8.self)
    }

    // MARK: CSV golden tests (outputs copied from `sqlite3 -csv -header` 3.40.1)

    func testCSVQuotingRules() {
        let values: [Value] = [
            .text("a b"), .text("a,b"), .text(""), .null, .real(1.0), .real(1e15), .real(-0.0),
            .text("\n"), .text("é"), .text("a\"b"), .text("\t"), .text("\r"), .text("\u{7f}"), .text("~"),
            .text("x;y"), .text("'"), .real(1e16), .real(0.1), .real(1e-7), .integer(.min), .text("a"),
            .real(1e300), .real(999_999_999_999_999), .text("ab\\c"), .text("\u{1}"),
        ]
        let expected =
            "\"a b\",\"a,b\",\"\",,1.0,1.0e+15,0.0,\"\n\",\"é\",\"a\"\"b\",\"\t\",\"\r\",\"\u{7f}\",~,x;y,\"'\","
            + "1.0e+16,0.1,1.0e-07,-9223372036854775808,a,1.0e+300,999999999999999.0,ab\\c,\"\u{1}\"\n"
        XCTAssertEqual(csv(values.indices.map { "c\($0)" }, [values], header: false), expected)
    }

    func testCSVHeaderNULAndBlobs() {
        // sqlite3 cuts text and blobs at the first NUL byte and prints blobs as raw bytes.
        let columns = ["a b", "", "x\"y", "ok"]
        let row: [Value] = [.text("a\0b"), .blob([0x61, 0x00, 0x62]), .blob([0x41]), .blob([0x00, 0xff])]
        XCTAssertEqual(csv(columns, [row]), "\"a b\",\"\",\"x\"\"y\",ok\na,a,A,\"\"\n")
        let raw = CSVFormatter().formatted(columns: ["b"], rows: [[.blob([0xff, 0x41])], [.blob([])]])
        XCTAssertEqual(raw, [0x22, 0xff, 0x41, 0x22, 0x0a, 0x22, 0x22, 0x0a])
        XCTAssertEqual(csv(["x"], [[.real(.infinity)], [.real(-.infinity)], [.integer(42)]]), "x\nInf\n-Inf\n42\n")
        XCTAssertEqual(csv(["x"], []), "x\n")
        XCTAssertEqual(csv(["x"], [], header: false), "")
    }

    // MARK: JSON

    func testJSONRows() {
        let columns = ["a", "a", "r", "t", "b", "n", "z", "two", "inf"]
        let row: [Value] = [
            .integer(1), .integer(2), .real(0.1), .text("q\"\\\u{1}\n\t\u{8}\u{c}\ré\0"), .blob([0x00, 0xff, 0x41]),
            .null, .real(-0.0), .real(2), .real(.infinity),
        ]
        let expected =
            "[{\"a\":1,\"a\":2,\"r\":0.1,\"t\":\"q\\\"\\\\\\u0001\\n\\t\\b\\f\\ré\\u0000\",\"b\":\"00ff41\","
            + "\"n\":null,\"z\":-0.0,\"two\":2.0,\"inf\":1e999},\n"
            + "{\"a\":3,\"a\":null,\"r\":1e+16,\"t\":\"\",\"b\":\"\",\"n\":-9223372036854775808,\"z\":1e-07,"
            + "\"two\":-1e999,\"inf\":null}]\n"
        let row2: [Value] = [
            .integer(3), .null, .real(1e16), .text(""), .blob([]), .integer(.min), .real(1e-7),
            .real(-.infinity), .real(.nan),
        ]
        XCTAssertEqual(text(.json, columns, [row, row2]), expected)
        XCTAssertEqual(text(.json, ["a"], []), "[]\n")
        // Everything but duplicate keys and the out-of-range 1e999 parses as JSON.
        let data = Data(JSONRowsFormatter().formatted(columns: ["x", "y"], rows: [[.text("é\n\u{1}"), .real(0.25)]]))
        let parsed = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]]
        XCTAssertEqual(parsed?.first?["x"] as? String, "é\n\u{1}")
        XCTAssertEqual(parsed?.first?["y"] as? Double, 0.25)
    }

    // MARK: Table

    func testTableAlignment() {
        let out = text(
            .table, ["id", "name", "data", "score"],
            [
                [.integer(1), .text("é日本"), .blob([0x00, 0xff]), .real(2.5)],
                [.integer(-100), .null, .text("a\nb"), .real(1e15)],
            ])
        let expected = """
            id    name  data     score
            ----  ----  -------  -------
               1  é日本   x'00ff'      2.5
            -100  NULL  a\\nb     1.0e+15

            """
        XCTAssertEqual(out, expected)
        XCTAssertEqual(text(.table, [], [[]]), "")
        XCTAssertEqual(text(.table, ["x"], []), "x\n-\n")
    }

    func testTableTruncatesLongCells() {
        let long = String(repeating: "é", count: 100)
        let lines = text(.table, ["t", "b"], [[.text(long), .blob(Array(repeating: 0xab, count: 100))]])
            .split(separator: "\n")
        XCTAssertEqual(lines.count, 3)
        let cells = lines[2].components(separatedBy: "  ")
        XCTAssertEqual(cells[0], String(repeating: "é", count: 59) + "…")
        XCTAssertEqual(cells[1].count, 60)
        XCTAssertTrue(cells[1].hasPrefix("x'abab") && cells[1].hasSuffix("…"))
    }

    // MARK: Differential test against sqlite3 -csv -header

    static func sqlite3Path() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") + ["/usr/bin", "/usr/local/bin"] {
            let candidate = "\(dir)/sqlite3"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    static func randomValue(_ g: inout SplitMix64) -> Value {
        let ascii = (0x20...0x7e).map { String(UnicodeScalar(UInt8($0))) }
        let pieces =
            ascii + [
                "a", "b", "Z", "0", ",", "\"", " ", "\n", "\r", "\t", "\u{1}", "\u{1f}", "\u{7f}", "é", "日本", "😀",
                "'", "\\", ";", "~", "\0", "x y", "\"\"", "e\u{301}",
            ]
        switch Int.random(in: 0..<13, using: &g) {
        case 0: return .null
        case 1:
            let edges: [Int64] = [0, 1, -1, .max, .min, .max - 1, .min + 1, 1 << 53, -(1 << 53) - 1]
            return .integer(edges.randomElement(using: &g)!)
        case 2: return .integer(Int64.random(in: -1_000_000...1_000_000, using: &g))
        case 3: return .integer(Int64(bitPattern: g.next()))
        case 4:
            let edges: [Double] = [
                0.0, -0.0, 1.0, -1.0, 1e15, 1e16, 1e-7, 0.1, 1e300, -1e300, .leastNonzeroMagnitude,
                .greatestFiniteMagnitude,
                .leastNormalMagnitude, 999_999_999_999_999, 123456.789, 1.5, 100, 1e-5, 0.0001, .infinity, -.infinity,
            ]
            return .real(edges.randomElement(using: &g)!)
        case 5:
            var d: Double
            repeat { d = Double(bitPattern: g.next()) } while !d.isFinite
            return .real(d)
        case 6:
            let d =
                Double(Int.random(in: -1_000_000...1_000_000, using: &g))
                / [1, 10, 100, 1000][Int.random(in: 0..<4, using: &g)]
            return .real(d)
        case 7: return .text("")
        case 8, 9:
            let n = Int.random(in: 1...6, using: &g)
            return .text((0..<n).map { _ in pieces.randomElement(using: &g)! }.joined())
        case 10: return .blob([])
        case 11:
            // TEXT that is not valid UTF-8: sqlite3 prints its bytes as they are.
            let n = Int.random(in: 1...6, using: &g)
            return .text(utf8: [0xE5] + (0..<n).map { _ in UInt8.random(in: 0x20...0xFF, using: &g) })
        default:
            let n = Int.random(in: 1...8, using: &g)
            return .blob((0..<n).map { _ in UInt8.random(in: 0...255, using: &g) })
        }
    }

    /// A SQL expression that sqlite3 evaluates to exactly `value`.
    static func sqlLiteral(_ value: Value) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let n): return n == .min ? "(-9223372036854775807-1)" : String(n)
        case .real(let d):
            if d.isInfinite { return d < 0 ? "-1e999" : "1e999" }
            if d == 0 { return d.sign == .minus ? "-0.0" : "0.0" }
            // sqlite3 3.40 does not always parse decimal literals exactly (e.g. -6.394809783657195e-307),
            // so build the value exactly as integer mantissa × 2^e.
            var mantissa = Int64(d.significand * 0x1p52)
            var exponent = Int(d.exponent) - 52
            while mantissa & 1 == 0 {
                mantissa >>= 1
                exponent += 1
            }
            return "(\(d < 0 ? "-" : "")\(mantissa) * pow(2, \(exponent)))"
        case .text(let s): return s.isEmpty ? "''" : "CAST(X'\(ResultText.hex(Array(s.utf8)))' AS TEXT)"
        case .invalidUTF8Text(let b): return "CAST(X'\(ResultText.hex(b))' AS TEXT)"
        case .blob(let b): return "X'\(ResultText.hex(b))'"
        }
    }

    private func run(_ executable: String, _ arguments: [String], stdin: URL? = nil) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let stdin { process.standardInput = try FileHandle(forReadingFrom: stdin) }
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "\(executable) \(arguments) failed")
        return data
    }

    func testCSVMatchesSQLite3Differential() throws {
        guard let sqlite3 = Self.sqlite3Path() else { throw XCTSkip("sqlite3 not installed; golden tests only") }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: sqlite3)
        probe.arguments = [":memory:", "SELECT pow(2, 1)"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        try probe.run()
        probe.waitUntilExit()
        guard probe.terminationStatus == 0 else { throw XCTSkip("sqlite3 lacks pow(); golden tests only") }
        let seed = testSeed()
        var g = SplitMix64(seed: seed)
        let columns = ["id", "a b", "q\"uote", "c,d", "é", "plain", "x"]
        let rows: [[Value]] = (0..<300).map { i in
            [.integer(Int64(i))] + (1..<columns.count).map { _ in Self.randomValue(&g) }
        }

        let dir = try makeTemporaryDirectory(prefix: "granite-fmt").url
        let db = dir.appendingPathComponent("t.db").path
        let quoted = columns.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        var script = "CREATE TABLE t(\(quoted.joined(separator: ", ")));\nBEGIN;\n"
        for row in rows { script += "INSERT INTO t VALUES(\(row.map(Self.sqlLiteral).joined(separator: ",")));\n" }
        script += "COMMIT;\n"
        let scriptURL = dir.appendingPathComponent("load.sql")
        try script.write(to: scriptURL, atomically: true, encoding: .utf8)
        _ = try run(sqlite3, ["-batch", db], stdin: scriptURL)

        let expected = [UInt8](try run(sqlite3, ["-csv", "-header", db, "SELECT * FROM t"]))
        let actual = CSVFormatter(header: true).formatted(columns: columns, rows: rows)
        if actual != expected {
            let e = expected.split(separator: 0x0a, omittingEmptySubsequences: false)
            let a = actual.split(separator: 0x0a, omittingEmptySubsequences: false)
            for (i, (x, y)) in zip(e, a).enumerated() where x != y {
                let id = Int(String(decoding: x.prefix { $0 != UInt8(ascii: ",") }, as: UTF8.self))
                let values =
                    id.flatMap { $0 < rows.count ? rows[$0].map(Self.sqlLiteral).joined(separator: ",") : nil } ?? "?"
                XCTFail(
                    "seed \(seed): first differing line \(i) (\(values)):\n sqlite3: \(Array(x))\n granite: \(Array(y))"
                )
                break
            }
            XCTFail("seed \(seed): CSV differs from sqlite3 (\(expected.count) vs \(actual.count) bytes)")
        }
    }
}
