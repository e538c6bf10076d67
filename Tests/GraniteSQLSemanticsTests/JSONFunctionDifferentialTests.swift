import CSQLiteOracle
import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// SQLite's JSON1 functions (3.40, before JSONB) run on SQLite and Granite: random documents (nested objects
/// and arrays, unicode, escapes, numbers of every form, whitespace, malformed text), random paths (valid,
/// missing and malformed) and random calls of every scalar function, the `->`/`->>` operators and nested calls
/// that pass JSON between functions.
final class JSONFunctionDifferentialTests: XCTestCase {
    /// Makes random JSON text, paths and JSON function calls as SQL.
    struct Generator {
        var src: ValueSource

        static let keys = ["a", "b", "c", "a b", "a.b", "x[0]", "", "é", "日本", "A", "\\u0061", "\\\"q"]
        static let numbers = [
            "0", "-0", "1", "-7", "12", "1.5", "-2.25", "0.1", "1e5", "1E5", "1e-3", "2.50", "-1.0e+2", "0e0",
            "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
            "9223372036854775800", "922337203685477580", "-922337203685477581", "123456789012345678901234",
            "1e400", "-1e400", "1e-400", "3.141592653589793238", "100000000000000000000.0", "-0.0", "0.0e0",
            "18446744073709551616", "-18446744073709551616", "1.7976931348623157e308", "4.9e-324", "12E+2",
            "5.7728657164356816e-297", "-8.03865180071594e-283", "1.000000000000000111", "0.30000000000000004",
        ]
        static let stringParts = [
            "a", "b", "xyz", " ", "é", "日本", "😀", "\\n", "\\t", "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\r",
            "\\u0041", "\\u00e9", "\\u65e5", "\\ud83d\\ude00", "\\u001f", "\\u0000", "'", "%", "\\u2028",
            "\\ud800", "\\udc00", "\\uD83D\\uDE00", "\\u00FF", "\\u0080", "\\u07ff", "\\uffff", "\u{7f}",
        ]
        static let malformed = [
            "", " ", "{", "}", "[", "]", "[1,]", "{\"a\":1,}", "{a:1}", "{\"a\" 1}", "[1 2]", "01", "-", "1.",
            ".5", "1.e5", "-.5", "1e", "1e+", "+1", "0x10", "nul", "nulls", "truex", "True", "NaN", "Infinity",
            "\"abc", "\"\\x\"", "\"\\u12\"", "\"\\u12g4\"", "[\"a\\\"]", "{\"a\":}", "[,1]", "{,}", "'a'",
            "1 2", "[1]]", "{\"a\":1}}", "\"a\tb\"", "[1,\n2,]", "--1", "1-", "1e5.5", "00", "-01",
        ]

        mutating func whitespace() -> String {
            src.int(0...3) == 0 ? src.pick([" ", "\t", "\n", "\r\n", "  "]) : ""
        }

        mutating func string() -> String {
            "\"" + (0..<src.int(0...4)).map { _ in src.pick(Self.stringParts) }.joined() + "\""
        }

        mutating func key() -> String {
            src.int(0...4) == 0 ? string() : "\"\(src.pick(Self.keys))\""
        }

        /// A random well-formed JSON document (spaced at random).
        mutating func document(depth: Int = 0) -> String {
            let leaf = depth >= 3 || src.int(0...2) == 0
            if leaf {
                switch src.int(0...5) {
                case 0: return src.pick(["null", "true", "false"])
                case 1, 2: return src.pick(Self.numbers)
                default: return string()
                }
            }
            let count = src.int(0...4)
            if src.bool() {
                let items = (0..<count).map { _ in whitespace() + document(depth: depth + 1) + whitespace() }
                return "[" + items.joined(separator: ",") + "]"
            }
            let members = (0..<count).map { _ in
                whitespace() + key() + whitespace() + ":" + whitespace() + document(depth: depth + 1) + whitespace()
            }
            return "{" + members.joined(separator: ",") + "}"
        }

        /// A document that is usually well-formed, sometimes damaged or one of the known malformed texts.
        mutating func maybeMalformed() -> String {
            switch src.int(0...9) {
            case 0: return src.pick(Self.malformed)
            case 1:
                var bytes = Array(document().utf8)
                guard !bytes.isEmpty else { return "" }
                let at = src.int(0...(bytes.count - 1))
                if src.bool() {
                    bytes.remove(at: at)
                } else {
                    bytes.insert(src.pick(Array("{}[],:\"\\ x0.e-".utf8)), at: at)
                }
                return String(decoding: bytes, as: UTF8.self)
            default: return whitespace() + document() + whitespace()
            }
        }

        static func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }

        /// A JSON document as an SQL expression.
        mutating func documentSQL() -> String {
            switch src.int(0...9) {
            case 0: return "NULL"
            case 1: return "json(\(Self.literal(document())))"
            case 2: return src.pick(["12", "1.5", "x'5b315d'", "'[1,2'", "-0.0"])
            default: return Self.literal(maybeMalformed())
            }
        }

        /// A path step: usually valid, sometimes malformed.
        mutating func step() -> String {
            switch src.int(0...12) {
            case 0, 1, 2: return "." + src.pick(["a", "b", "c", "é", "A", "x"])
            case 3: return ".\"" + src.pick(Self.keys.filter { !$0.contains("\"") }) + "\""
            case 4, 5, 6: return "[\(src.int(0...4))]"
            case 7: return src.pick(["[#]", "[#-1]", "[#-2]", "[#-0]", "[#-9]"])
            case 8: return src.pick(["[4294967296]", "[4294967297]", "[99999999999]"])
            default:
                return src.pick([
                    ".", "[", "[]", "[x]", "[1", "[-1]", "[#-]", "[#+1]", "[ 1]", ".\"a", "..a", "a", "[1.5]", "[#x]",
                ])
            }
        }

        /// A path: `$` and up to three steps, sometimes without the `$`, sometimes NULL.
        mutating func path() -> String {
            if src.int(0...30) == 0 { return "NULL" }
            let steps = (0..<src.int(0...3)).map { _ in step() }.joined()
            let head = src.int(0...25) == 0 ? src.pick(["", "a", "$$", " $"]) : "$"
            return Self.literal(head + steps)
        }

        /// A right operand of `->` / `->>`: a full path, or SQLite's abbreviations (a key, an index, `[N]`).
        mutating func arrowPath() -> String {
            switch src.int(0...5) {
            case 0: return "\(src.int(-1...3))"
            case 1: return Self.literal(src.pick(["a", "b", "é", "a.b", "a[0]", "", "0", "1", "[1]", "[#-1]"]))
            case 2: return src.pick(["NULL", "1.5"])
            default: return path()
            }
        }

        /// An SQL value to store in a document.
        mutating func value(depth: Int = 0) -> String {
            switch src.int(0...12) {
            case 0: return "NULL"
            case 1: return "\(src.integer())"
            case 2:
                // SQLite reads SQL literals with tiny exponents one unit in the last place off, which is no
                // JSON matter: such reals are left to the JSON number tokens.
                let real = src.real()
                if src.bool(), real == 0 || (abs(real) > 1e-250 && abs(real) < 1e250) { return "\(real)" }
                return src.pick(["1.5", "-0.0", "1e300", "1e400", "-1e400", "0.1", "100.0", "1e20", "2.0e-7"])
            case 3: return Self.literal(src.asciiText())
            case 4: return src.pick(["char(1, 10, 31, 127)", "'a\"b\\\\c'", "'日本😀'", "char(8232)", "''"])
            case 5: return src.pick(["x'00ff'", "x''"])
            case 6: return Self.literal(document())
            case 7: return "json(\(Self.literal(document())))"
            case 8 where depth < 2: return call(depth: depth + 1)
            default: return "\(src.int(-3...3))"
            }
        }

        /// A random JSON function call (or operator) as SQL.
        mutating func call(depth: Int = 0) -> String {
            switch src.int(0...17) {
            case 0: return "json(\(documentSQL()))"
            case 1: return "json_valid(\(documentSQL()))"
            case 2: return src.bool() ? "json_type(\(documentSQL()))" : "json_type(\(documentSQL()), \(path()))"
            case 3:
                return src.bool()
                    ? "json_array_length(\(documentSQL()))" : "json_array_length(\(documentSQL()), \(path()))"
            case 4, 5:
                let paths = (0..<src.pick([1, 1, 1, 2, 3, 0])).map { _ in path() }
                return "json_extract(\(([documentSQL()] + paths).joined(separator: ", ")))"
            case 6: return "(\(documentSQL()) -> \(arrowPath()))"
            case 7: return "(\(documentSQL()) ->> \(arrowPath()))"
            case 8, 9, 10:
                let function = src.pick(["json_insert", "json_replace", "json_set"])
                var arguments = [documentSQL()]
                for _ in 0..<src.int(0...3) { arguments += [path(), value(depth: depth)] }
                if src.int(0...15) == 0 { arguments.append(path()) }
                return "\(function)(\(arguments.joined(separator: ", ")))"
            case 11:
                let arguments = [documentSQL()] + (0..<src.int(0...3)).map { _ in path() }
                return "json_remove(\(arguments.joined(separator: ", ")))"
            case 12: return "json_patch(\(documentSQL()), \(documentSQL()))"
            case 13: return "json_quote(\(value(depth: depth)))"
            case 14:
                let values = (0..<src.int(0...4)).map { _ in value(depth: depth) }
                return "json_array(\(values.joined(separator: ", ")))"
            case 15:
                var arguments: [String] = []
                for _ in 0..<src.int(0...3) {
                    let label = src.int(0...12) == 0 ? src.pick(["1", "NULL", "x'61'"]) : Self.literal(src.asciiText())
                    arguments += [label, value(depth: depth)]
                }
                if src.int(0...12) == 0 { arguments.append("'odd'") }
                return "json_object(\(arguments.joined(separator: ", ")))"
            case 16: return "typeof(\(call(depth: depth + 1)))"
            default:
                return "json_array(\(call(depth: depth + 1)), \(documentSQL()) -> \(arrowPath()))"
            }
        }
    }

    /// How many of SQLite's results were errors, NULL and other values: a generator whose calls all fail, or
    /// all return NULL, would compare nothing worth comparing.
    struct OutcomeCounts {
        var errors = 0
        var nulls = 0
        var values = 0

        mutating func count(_ result: SelectDifferentialTests.Result) {
            switch result {
            case .failure: errors += 1
            case .rows(_, let rows):
                if case .null? = rows.first?.first {
                    nulls += 1
                } else if rows.isEmpty {
                    nulls += 1
                } else {
                    values += 1
                }
            }
        }

        /// Checks that each kind is at least `share` of `total`.
        func assertMixed(total: Int, share: Double, seed: UInt64) {
            for (name, n) in [("errors", errors), ("NULLs", nulls), ("values", values)] {
                XCTAssertGreaterThan(
                    Double(n), Double(total) * share, "too few \(name): \(self) (GRANITE_SEED=\(seed))")
            }
        }
    }

    /// Runs `expression` as `SELECT expression` on both engines; returns why they differ, if they do.
    static func compare(
        _ expression: String, _ oracle: Oracle, _ db: SQLConnection, counts: inout OutcomeCounts
    ) -> String? {
        let sql = "SELECT \(expression) AS r"
        let expected = SelectDifferentialTests.sqlite(oracle, sql)
        counts.count(expected)
        let actual = SelectDifferentialTests.granite(db, sql)
        return SelectDifferentialTests.mismatch(expected, actual, ordered: true).map { "\(sql): \($0)" }
    }

    func testRandomCallsMatchSQLite() throws {
        let seed = testSeed()
        var generator = Generator(src: ValueSource(seed: seed))
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        var failures: [String] = []
        var counts = OutcomeCounts()
        let rounds = 2500 * stressFactor
        for _ in 0..<rounds {
            if let why = Self.compare(generator.call(), oracle, db, counts: &counts) { failures.append(why) }
        }
        counts.assertMixed(total: rounds, share: 0.1, seed: seed)
        XCTAssert(
            failures.isEmpty,
            "\(failures.count) mismatches (GRANITE_SEED=\(seed)):\n" + failures.prefix(30).joined(separator: "\n"))
    }

    /// Paths taken from the document's own keys and indexes, so that most of them lead somewhere.
    func testRandomEditsOfExistingNodesMatchSQLite() throws {
        let seed = testSeed()
        var generator = Generator(src: ValueSource(seed: seed))
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        var failures: [String] = []
        var counts = OutcomeCounts()
        let rounds = 800 * stressFactor
        for _ in 0..<rounds {
            let document = Generator.literal(generator.document())
            var paths: [String] = []
            for _ in 0..<generator.src.int(1...3) {
                let steps = (0..<generator.src.int(0...3)).map { _ in
                    generator.src.bool()
                        ? "." + generator.src.pick(["a", "b", "c"]) : "[\(generator.src.int(0...2))]"
                }
                paths.append(Generator.literal("$" + steps.joined()))
            }
            let function = generator.src.pick([
                "json_set", "json_insert", "json_replace", "json_remove", "json_extract", "json_type",
            ])
            var arguments = [document]
            for path in paths {
                arguments.append(path)
                if ["json_set", "json_insert", "json_replace"].contains(function) {
                    arguments.append(generator.value())
                }
            }
            let call = "\(function)(\(arguments.joined(separator: ", ")))"
            if let why = Self.compare(call, oracle, db, counts: &counts) { failures.append(why) }
        }
        counts.assertMixed(total: rounds, share: 0.02, seed: seed)
        XCTAssert(
            failures.isEmpty,
            "\(failures.count) mismatches (GRANITE_SEED=\(seed)):\n" + failures.prefix(30).joined(separator: "\n"))
    }

    /// `json_patch` of random objects over few keys, so that patches meet, nest, repeat and remove members.
    func testRandomPatchesMatchSQLite() throws {
        let seed = testSeed()
        var src = ValueSource(seed: seed)
        func object(_ depth: Int) -> String {
            let members = (0..<src.int(0...4)).map { _ in
                let key = src.pick(["a", "b", "c", "\\u0061"])
                let value: String
                switch src.int(0...5) {
                case 0: value = "null"
                case 1, 2: value = depth < 3 ? object(depth + 1) : "1"
                case 3: value = src.pick(["[1,null]", "[{\"a\":null}]", "\"s\""])
                default: value = "\(src.int(-2...2))"
                }
                return "\"\(key)\":\(value)"
            }
            return "{" + members.joined(separator: ",") + "}"
        }
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        var failures: [String] = []
        var counts = OutcomeCounts()
        for _ in 0..<(500 * stressFactor) {
            let target = src.int(0...9) == 0 ? src.pick(["[1]", "2", "null"]) : object(0)
            let patch = src.int(0...9) == 0 ? src.pick(["[1]", "null", "\"x\""]) : object(0)
            let call = "json_patch(\(Generator.literal(target)), \(Generator.literal(patch)))"
            if let why = Self.compare(call, oracle, db, counts: &counts) { failures.append(why) }
        }
        XCTAssertGreaterThan(counts.values, 400 * stressFactor, "patches should mostly give documents")
        XCTAssert(
            failures.isEmpty,
            "\(failures.count) mismatches (GRANITE_SEED=\(seed)):\n" + failures.prefix(30).joined(separator: "\n"))
    }

    /// `json_group_array` and `json_group_object` over random rows, grouped and not, with nested JSON values.
    func testRandomAggregatesMatchSQLite() throws {
        let seed = testSeed()
        var generator = Generator(src: ValueSource(seed: seed))
        var failures: [String] = []
        for _ in 0..<(120 * stressFactor) {
            let oracle = Oracle()
            let db = try SQLConnection(engine: try StorageEngine.inMemory())
            var statements = ["CREATE TABLE t(g INTEGER, k TEXT, v, j TEXT)"]
            for _ in 0..<generator.src.int(0...8) {
                let row = [
                    "\(generator.src.int(0...2))", generator.src.pick(["'a'", "'b'", "'é'", "NULL", "1", "1.5"]),
                    generator.src.pick(["NULL", "1", "1.0", "-2.5", "'x'", "'\"q\"'", "'[1]'"]),
                    Generator.literal(generator.document()),
                ]
                statements.append("INSERT INTO t VALUES (\(row.joined(separator: ", ")))")
            }
            for statement in statements {
                oracle.execute(statement)
                try db.execute(statement)
            }
            let aggregate = generator.src.pick([
                "json_group_array(v)", "json_group_array(j)", "json_group_array(json(j))", "json_group_array(k)",
                "json_group_object(k, v)", "json_group_object(k, json(j))", "json_group_object(v, j -> '$')",
                "json_array(json_group_array(v))", "json_group_array(DISTINCT k)", "json_group_array(DISTINCT v)",
                "json_group_array(DISTINCT json(j))",
                "json_group_array(g) FILTER (WHERE g > 0)",
                "json_object('n', json_group_object(k, v), 'c', count(*))", "json_group_array(j ->> 0)",
            ])
            let sql =
                generator.src.bool()
                ? "SELECT \(aggregate) FROM t" : "SELECT g, \(aggregate) FROM t GROUP BY g ORDER BY g"
            let expected = SelectDifferentialTests.sqlite(oracle, sql)
            let actual = SelectDifferentialTests.granite(db, sql)
            if let why = SelectDifferentialTests.mismatch(expected, actual, ordered: true) {
                failures.append("\(statements.dropFirst()) \(sql): \(why)")
            }
        }
        XCTAssert(
            failures.isEmpty,
            "\(failures.count) mismatches (GRANITE_SEED=\(seed)):\n" + failures.prefix(30).joined(separator: "\n"))
    }

    /// Several `json_extract` / `->` / `->>` calls with constant paths over the rows of a table, the way the
    /// compiled path and the row's shared scan are used: the calls of one row on the same text and path share
    /// one scan, which must never answer for another row's document (equal texts included), another column or
    /// another path.
    func testConstantPathCallsOverRowsMatchSQLite() throws {
        let seed = testSeed()
        var generator = Generator(src: ValueSource(seed: seed))
        var failures: [String] = []
        for _ in 0..<(150 * stressFactor) {
            let oracle = Oracle()
            let db = try SQLConnection(engine: try StorageEngine.inMemory())
            var statements = ["CREATE TABLE t(a TEXT, b TEXT)"]
            var documents: [String] = []
            for _ in 0..<generator.src.int(1...6) {
                let a = generator.maybeMalformed()
                let b = generator.src.bool() ? a : generator.src.pick(documents + [generator.document()])
                documents.append(a)
                statements.append("INSERT INTO t VALUES (\(Generator.literal(a)), \(Generator.literal(b)))")
            }
            for statement in statements {
                oracle.execute(statement)
                try db.execute(statement)
            }
            let paths = [generator.path(), generator.path()]
            let columns = ["a", "b"]
            let calls = (0..<generator.src.int(2...5)).map { _ -> String in
                let column = generator.src.pick(columns)
                let path = generator.src.pick(paths)
                switch generator.src.int(0...3) {
                case 0: return "\(column) -> \(path)"
                case 1: return "\(column) ->> \(path)"
                case 2: return "\(column) ->> \(generator.arrowPath())"
                default: return "json_extract(\(column), \(path))"
                }
            }
            let filter = "(\(calls[0])) IS NOT NULL OR (\(calls[1])) IS NULL"
            let sql = "SELECT \(calls.joined(separator: ", ")) FROM t WHERE \(filter) ORDER BY rowid"
            let expected = SelectDifferentialTests.sqlite(oracle, sql)
            let actual = SelectDifferentialTests.granite(db, sql)
            if let why = SelectDifferentialTests.mismatch(expected, actual, ordered: true) {
                failures.append("\(statements.dropFirst()) \(sql): \(why)")
            }
        }
        XCTAssert(
            failures.isEmpty,
            "\(failures.count) mismatches (GRANITE_SEED=\(seed)):\n" + failures.prefix(30).joined(separator: "\n"))
    }
}
