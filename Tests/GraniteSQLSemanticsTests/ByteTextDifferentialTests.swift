import CSQLiteOracle
import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// TEXT holding any bytes, run on SQLite and Granite: texts made from random byte strings (valid UTF-8, truncated
/// and stray sequences, overlong forms, surrogates, bytes that never occur in UTF-8, NUL) by `CAST(x'…' AS TEXT)`
/// and `x'…' || ''`, stored in a table with BINARY, NOCASE and RTRIM columns, indexed and not, short and long
/// (compressed); then the text functions, operators, casts, comparisons, ordering, grouping, DISTINCT, IN and
/// min/max over them. Results are compared exactly (the oracle reads TEXT as its bytes), mostly through `hex()`
/// so that a difference shows the bytes.
final class ByteTextDifferentialTests: XCTestCase {
    static let schema = [
        "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b TEXT COLLATE NOCASE, c TEXT COLLATE RTRIM, d, n NUMERIC)",
        "CREATE INDEX ta ON t(a)",
        "CREATE INDEX tb ON t(b)",
        "CREATE INDEX tc ON t(c, id)",
        "CREATE TABLE u(x TEXT UNIQUE, y TEXT COLLATE NOCASE UNIQUE)",
    ]

    /// Pieces of byte strings: ASCII that the functions treat specially, valid sequences of every length, and
    /// each way UTF-8 can be malformed.
    static let fragments: [[UInt8]] = [
        [0x61], [0x41], [0x62], [0x42], [0x7A], [0x20], [0x20], [0x27], [0x25], [0x5F], [0x2A], [0x3F], [0x5B],
        [0x5D], [0x31], [0x32], [0x2E], [0x2D], [0x65], [0x09],
        [0xC3, 0xA9], [0xC3, 0x89], [0xE6, 0x97, 0xA5], [0xF0, 0x9F, 0x98, 0x80], [0xEF, 0xBF, 0xBD],
        [0xEF, 0xBF, 0xBE], [0xEF, 0xBF, 0xBF],
        [0xC3], [0xE6], [0xE6, 0x97], [0xF0, 0x9F], [0xF0, 0x9F, 0x98], [0x80], [0xBF], [0x80, 0x80],
        [0xC0, 0xAF], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xF0, 0x80, 0x80, 0x80], [0xED, 0xA0, 0x80],
        [0xED, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF8, 0x88, 0x80, 0x80, 0x80], [0xFC, 0x84, 0x80],
        [0xFE], [0xFF], [0xE5], [0xC3, 0x28], [0x00], [0xC3, 0x80, 0x80, 0x80],
    ]

    struct Generator {
        var src: ValueSource

        /// A random byte string of a few fragments, sometimes repeated past the compression threshold.
        mutating func bytes() -> [UInt8] {
            var out: [UInt8] = []
            for _ in 0..<src.int(0...6) { out += src.pick(ByteTextDifferentialTests.fragments) }
            if src.int(0...7) == 0 {
                let unit = out.isEmpty ? [0xE5, 0x61] : out
                while out.count < 160 { out += unit }
            }
            return out
        }

        static func hex(_ bytes: [UInt8]) -> String {
            bytes.map { String($0, radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
        }

        /// A TEXT expression holding random bytes.
        mutating func text() -> String {
            let hex = Self.hex(bytes())
            switch src.int(0...5) {
            case 0: return "(x'\(hex)' || '')"
            case 1: return "'\(src.pick(["a", "A", "é", "", " ", "a ", "%", "_", "1", "12"]))'"
            default: return "CAST(x'\(hex)' AS TEXT)"
            }
        }

        /// A text operand: a column of `t` or a literal.
        mutating func operand() -> String {
            src.int(0...2) == 0 ? text() : src.pick(["a", "b", "c", "d"])
        }

        mutating func number() -> String {
            "\(src.pick([-3, -2, -1, 0, 1, 2, 3, 4, 7, 100]))"
        }

        mutating func insert(_ id: Int) -> String {
            "INSERT INTO t VALUES (\(id), \(text()), \(text()), \(text()), \(text()), \(text()))"
        }

        /// A scalar expression over text operands.
        mutating func expression() -> String {
            let x = operand()
            let y = operand()
            switch src.int(0...33) {
            case 0: return "length(\(x))"
            case 1: return "hex(substr(\(x), \(number())))"
            case 2: return "hex(substr(\(x), \(number()), \(number())))"
            case 3: return "instr(\(x), \(y))"
            case 4: return "hex(\(x))"
            case 5: return "unicode(\(x))"
            case 6: return "hex(quote(\(x)))"
            case 7: return "hex(upper(\(x)))"
            case 8: return "hex(lower(\(x)))"
            case 9: return "hex(\(src.pick(["trim", "ltrim", "rtrim"]))(\(x)))"
            case 10: return "hex(\(src.pick(["trim", "ltrim", "rtrim"]))(\(x), \(y)))"
            case 11: return "hex(replace(\(x), \(y), \(operand())))"
            case 12: return "\(x) LIKE \(y)"
            case 13: return "\(x) GLOB \(y)"
            case 14: return "hex(printf('%s|%.2s|%5s|%q|%Q|%w', \(x), \(x), \(x), \(x), \(x), \(x)))"
            case 15: return "hex(\(x) || \(y))"
            case 16: return "\(x) \(src.pick(["=", "<", "<=", ">", "<>", "IS"])) \(y)"
            case 17:
                return "\(x) \(src.pick(["=", "<", ">"])) \(y) COLLATE \(src.pick(["BINARY", "NOCASE", "RTRIM"]))"
            case 18: return "CAST(\(x) AS \(src.pick(["INTEGER", "REAL", "NUMERIC"])))"
            case 19: return "hex(CAST(\(x) AS BLOB))"
            case 20: return "typeof(\(x))"
            case 21: return "\(x) + 0"
            case 22: return "hex(json_quote(\(x)))"
            case 23: return "hex(json_array(\(x), \(y)))"
            case 24: return "hex(json_object('k', \(x)))"
            case 25: return "hex(min(\(x), \(y)))"
            case 26: return "hex(max(\(x), \(y)))"
            case 27: return "\(x) IN (\(y), \(operand()))"
            case 28: return "\(x)"
            case 29: return "hex(CAST(\(x) AS TEXT))"
            case 30:
                return "\(x) LIKE \(y) ESCAPE \(src.pick(["'!'", "'é'", "CAST(x'e5' AS TEXT)", "CAST(x'80' AS TEXT)"]))"
            case 31: return "hex(nullif(\(x), \(y)))"
            case 32: return "hex(coalesce(NULL, \(x)))"
            default: return "hex(substring(\(x), \(number()), \(number())))"
            }
        }

        /// A query, and whether its row order is defined.
        mutating func query() -> (sql: String, ordered: Bool) {
            let column = src.pick(["a", "b", "c", "d", "n"])
            switch src.int(0...17) {
            case 0...5:
                var columns: [String] = []
                for _ in 0..<src.int(1...3) { columns.append(expression()) }
                return ("SELECT id, \(columns.joined(separator: ", ")) FROM t ORDER BY id", true)
            case 6:
                return ("SELECT id, hex(\(column)) FROM t ORDER BY \(column)\(src.bool() ? " DESC" : ""), id", true)
            case 7:
                return ("SELECT hex(\(column)), count(*) FROM t GROUP BY \(column)", false)
            case 8:
                return (
                    "SELECT count(DISTINCT a), count(DISTINCT b), count(DISTINCT c), count(DISTINCT d) FROM t", true
                )
            case 9:
                return (
                    "SELECT id FROM t WHERE \(column) \(src.pick(["=", "<", ">=", "<>"])) \(text()) ORDER BY id", true
                )
            case 10:
                return ("SELECT id FROM t WHERE \(column) IN (\(text()), \(text()), \(operand())) ORDER BY id", true)
            case 11:
                return ("SELECT hex(min(\(column))), hex(max(\(column))) FROM t", true)
            case 12:
                return (
                    "SELECT hex(group_concat(\(column), \(src.pick(["''", "','", text()])))) "
                        + "FROM (SELECT \(column) FROM t ORDER BY id)", true
                )
            case 13:
                return ("SELECT sum(\(column)), total(\(column)), avg(\(column)) FROM t", true)
            case 14:
                return ("SELECT hex(x) FROM (SELECT DISTINCT \(column) COLLATE BINARY AS x FROM t)", false)
            case 15:
                return ("SELECT id, hex(\(column)) FROM t WHERE \(expression()) ORDER BY id", true)
            case 16:
                return ("SELECT hex(x), hex(y) FROM u ORDER BY x", true)
            default:
                return ("SELECT id, a, b, c, d, n FROM t WHERE \(column) LIKE \(text()) ORDER BY id", true)
            }
        }
    }

    func testRandomByteTextsMatchSQLite() throws {
        let seed = testSeed()
        var generator = Generator(src: ValueSource(seed: seed))
        var failures: [String] = []
        var cases = 0
        for _ in 0..<(30 * stressFactor) where failures.count < 20 {
            let oracle = Oracle()
            let db = try SQLConnection(engine: try StorageEngine.inMemory())
            var setup = Self.schema
            for id in 1...generator.src.int(1...12) { setup.append(generator.insert(id)) }
            for _ in 0..<generator.src.int(0...6) {
                setup.append("INSERT OR IGNORE INTO u VALUES (\(generator.text()), \(generator.text()))")
            }
            for statement in setup {
                oracle.execute(statement)
                try db.execute(statement)
            }
            var statements: [(sql: String, ordered: Bool)] = []
            for _ in 0..<55 { statements.append(generator.query()) }
            // The same rows after an update through the text functions (new values written, indexes rewritten).
            statements.append(
                ("UPDATE t SET a = substr(a, 2), b = upper(b) || \(generator.text()), c = c || ' '", true))
            for _ in 0..<5 { statements.append(generator.query()) }
            for (sql, ordered) in statements where failures.count < 20 {
                cases += 1
                let expected = SelectDifferentialTests.sqlite(oracle, sql)
                let actual = SelectDifferentialTests.granite(db, sql)
                if let why = SelectDifferentialTests.mismatch(expected, actual, ordered: ordered) {
                    failures.append("\(sql): \(why)")
                }
            }
        }
        XCTAssertGreaterThanOrEqual(cases, 1500 * stressFactor)
        XCTAssert(
            failures.isEmpty,
            "\(failures.count) mismatches in \(cases) cases (GRANITE_SEED=\(seed)):\n"
                + failures.joined(separator: "\n"))
        print("ByteTextDifferentialTests: \(cases) cases (seed \(seed))")
    }

    /// Fixed cases, each showing one of SQLite's byte rules.
    func testFixedByteTextsMatchSQLite() throws {
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        let statements = [
            "SELECT length(CAST(x'e5' AS TEXT)), length(CAST(x'80e5' AS TEXT)), length(CAST(x'c3808080' AS TEXT))",
            "SELECT hex(CAST(x'e5' AS TEXT)), typeof(CAST(x'e5' AS TEXT)), hex(x'e5' || '')",
            "SELECT hex(substr(CAST(x'41e5808042' AS TEXT), 2, 1)), hex(substr('é', 1, 1) || x'a9')",
            "SELECT unicode(CAST(x'80' AS TEXT)), unicode(CAST(x'c1' AS TEXT)), unicode(CAST(x'f880808080' AS TEXT))",
            "SELECT unicode(CAST(x'efbfbf' AS TEXT)), unicode(CAST(x'eda080' AS TEXT)), unicode(CAST(x'e08080' AS TEXT))",
            // A lead byte followed by enough continuation bytes wraps the code point past 2^31 (negative in SQLite).
            "SELECT unicode(CAST(x'fd808080808080' AS TEXT)), unicode(CAST(x'c3bfbfbfbfbf' AS TEXT))",
            "SELECT hex(quote(CAST(x'e527' AS TEXT))), hex(json_quote(CAST(x'e5' AS TEXT)))",
            "SELECT CAST(x'e5' AS TEXT) = CAST(x'e5' AS TEXT), CAST(x'e5' AS TEXT) > 'é', CAST(x'c3' AS TEXT) < 'é'",
            "SELECT CAST(x'313233e5' AS TEXT) + 0, CAST(CAST(x'3132e5' AS TEXT) AS INTEGER)",
            "SELECT instr(CAST(x'e5e5e5' AS TEXT), CAST(x'e5' AS TEXT)), instr(CAST(x'c38080e5' AS TEXT), CAST(x'e5' AS TEXT))",
            "SELECT CAST(x'41e5' AS TEXT) LIKE 'a_', CAST(x'41e580' AS TEXT) LIKE 'a_', CAST(x'e5' AS TEXT) GLOB '?'",
            "SELECT hex(trim(CAST(x'20e520' AS TEXT))), hex(trim(CAST(x'c3a9e5c3' AS TEXT), CAST(x'c3' AS TEXT)))",
            "SELECT hex(upper(CAST(x'61e562' AS TEXT))), hex(replace(CAST(x'e561e5' AS TEXT), CAST(x'e5' AS TEXT), 'z'))",
            "SELECT hex(strftime(CAST(x'2559e5' AS TEXT), '2020-01-01')), hex(ltrim(CAST(x'c3a9c3' AS TEXT), 'é'))",
            "SELECT hex(printf(CAST(x'25732de5' AS TEXT), CAST(x'ff' AS TEXT))), hex(group_concat(x, CAST(x'e5' AS TEXT))) "
                + "FROM (SELECT 'a' AS x UNION ALL SELECT CAST(x'c3' AS TEXT))",
            "SELECT CAST(x'61e5' AS TEXT) = CAST(x'41e5' AS TEXT) COLLATE NOCASE, CAST(x'e52020' AS TEXT) = CAST(x'e5' AS TEXT) COLLATE RTRIM",
            // NOCASE compares nothing past the left text's first NUL byte but the lengths, as strnicmp does.
            "SELECT CAST(x'610078' AS TEXT) = CAST(x'410079' AS TEXT) COLLATE NOCASE, "
                + "CAST(x'0020e5' AS TEXT) < CAST(x'0031' AS TEXT) COLLATE NOCASE, "
                + "CAST(x'0031' AS TEXT) < CAST(x'0020e5' AS TEXT) COLLATE NOCASE, CAST(x'61' AS TEXT) < CAST(x'6100' AS TEXT) COLLATE NOCASE",
            "CREATE TABLE nul(b TEXT COLLATE NOCASE)",
            "CREATE INDEX nulb ON nul(b)",
            "INSERT INTO nul VALUES (CAST(x'0020e5' AS TEXT)), (CAST(x'0031' AS TEXT)), (CAST(x'410079' AS TEXT)), (CAST(x'610078' AS TEXT)), ('a')",
            "SELECT hex(min(b)), hex(max(b)), count(DISTINCT b) FROM nul",
            "SELECT hex(b) FROM nul ORDER BY b, hex(b)",
            "SELECT hex(b) FROM nul WHERE b = CAST(x'61007a' AS TEXT) ORDER BY hex(b)",
            "SELECT hex(b) FROM nul WHERE +b = CAST(x'61007a' AS TEXT) ORDER BY hex(b)",
        ]
        var failures: [String] = []
        for sql in statements {
            let expected = SelectDifferentialTests.sqlite(oracle, sql)
            let actual = SelectDifferentialTests.granite(db, sql)
            if let why = SelectDifferentialTests.mismatch(expected, actual, ordered: true) {
                failures.append("\(sql): \(why)")
            }
        }
        XCTAssert(failures.isEmpty, failures.joined(separator: "\n"))
    }
}
