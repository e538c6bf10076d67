import CSQLiteOracle
import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// `printf()` / `format()` run on SQLite and Granite: random formats (every flag, width and precision form,
/// every conversion, unknown ones and a trailing `%`) over random integers, reals, texts, blobs and NULLs.
final class PrintfDifferentialTests: XCTestCase {
    /// Calls per statement.
    static let callsPerStatement = 20

    struct Generator {
        var reals: RealConversionGenerator
        var src: ValueSource {
            get { reals.src }
            set { reals.src = newValue }
        }

        static let conversions = Array("diuxXopcsqQwzfeEgGr%n".utf8).map { Character(Unicode.Scalar($0)) }
        static let rareConversions: [Character] = ["y", "T", "S", "k"]

        /// One `%…` directive, and the arguments it takes: a small one for each `*` (large ones would build
        /// gigabyte strings on both engines), then a random one for the conversion.
        mutating func directive(_ arguments: inout [Value]) -> String {
            var text = "%"
            for _ in 0..<src.int(0...2) { text.append(src.pick(Array("-+ #!0,"))) }
            switch src.int(0...5) {
            case 0:
                text += "*"
                let width = src.int(-30...30)
                arguments.append(src.pick([.integer(Int64(width)), .text("\(width)"), .null]))
            case 1, 2: text += "\(src.int(1...25))"
            default: break
            }
            switch src.int(0...5) {
            case 0:
                text += ".*"
                arguments.append(.integer(Int64(src.int(-30...30))))
            case 1: text += ".\(src.int(0...30))"
            case 2: text += "."
            default: break
            }
            if src.int(0...9) == 0 { text += src.pick(["l", "ll"]) }
            let conversion = src.int(0...60) == 0 ? src.pick(Self.rareConversions) : src.pick(Self.conversions)
            text.append(conversion)
            // `%%` and `%n` take no argument.
            if conversion != "%" && conversion != "n" { arguments.append(argument()) }
            return text
        }

        /// A format of up to three directives between literal pieces, and its arguments (sometimes one too
        /// few or too many).
        mutating func call() -> [Value] {
            var text = ""
            var arguments: [Value] = []
            for _ in 0..<src.int(0...3) {
                if src.bool() { text += src.pick(["", "x", "é|", " = ", "%%"]) }
                text += directive(&arguments)
            }
            if src.int(0...15) == 0 { text += "%" }
            switch src.int(0...9) {
            case 0: if !arguments.isEmpty { arguments.removeLast() }
            case 1: arguments.append(argument())
            default: break
            }
            return [.text(text)] + arguments
        }

        mutating func argument() -> Value {
            switch src.int(0...6) {
            case 0: return .integer(src.integer())
            case 1: return .integer(Int64(src.int(-2000...2000)))
            case 2: return .real(reals.randomDouble())
            case 3: return .real(Double(src.int(-100_000...100_000)) / 64)
            case 4: return .text(src.pick(["abc", "", "it's", "a\"b", "été", "日本語", "12abc", "-0", "1e400"]))
            case 5: return .text(reals.decimalText())
            default: return src.pick([.null, .blob([0x41, 0x00, 0x42]), .integer(0), .real(-0.0)])
            }
        }
    }

    func testRandomFormatsMatchSQLite() throws {
        let seed = testSeed()
        var generator = Generator(reals: RealConversionGenerator(src: ValueSource(seed: seed)))
        let checker = Checker("printf", seed: seed)
        let oracle = Oracle()
        let granite = try SQLConnection(engine: try StorageEngine.inMemory())
        let count = 30_000 * stressFactor
        var done = 0
        while done < count {
            // One statement per batch of calls: each call has its own number of arguments.
            var calls: [[Value]] = []
            var placeholders: [String] = []
            var arguments: [Value] = []
            for k in 0..<Self.callsPerStatement {
                let call = generator.call()
                let first = arguments.count + 1
                placeholders.append(
                    (k % 2 == 0 ? "printf(" : "format(")
                        + (first..<first + call.count).map { "?\($0)" }.joined(separator: ", ") + ")")
                arguments += call
                calls.append(call)
            }
            let sql = "SELECT " + placeholders.joined(separator: ", ")
            RealConversionDifferentialTests.compareRow(
                sql, arguments, oracle: oracle, granite: granite, checker: checker
            ) { column in
                "printf(" + calls[column].map { RealConversionDifferentialTests.show($0) }.joined(separator: ", ") + ")"
            }
            done += Self.callsPerStatement
        }
        XCTAssertGreaterThanOrEqual(checker.checks, count)
        checker.finish()
    }

    /// Calls with a rule of their own, each checked against SQLite: NULL results, stops at unknown
    /// conversions, `*` widths and precisions beyond 32 bits, `%c` repetition, quoting of NULL, thousands.
    func testEdgeFormatsMatchSQLite() throws {
        let oracle = Oracle()
        let granite = try SQLConnection(engine: try StorageEngine.inMemory())
        let calls = [
            "printf()", "printf(NULL)", "printf('')", "printf('%n')", "printf('%')", "printf('abc%')",
            "printf('%T|after', 1)", "printf('%5.2%|%y|more', 1)", "printf('%3', 'a')", "printf(5)",
            "printf('%*d|', -2147483648, 1)", "printf('%*d|', 4294967301, 1)", "printf('%.*f|', 4294967298, 1.0)",
            "printf('%4294967301d|', 1)", "printf('%.*f|', -2, 3.14159)", "printf('%c', NULL)",
            "printf('%.3c|%5.2c|%-10.3c|%!5.2c|', NULL, 'é', 'é', 'é')", "printf('%Q|%q|%w', NULL, NULL, NULL)",
            "printf('%.1Q|%!.2q|%10Q|', 'ab', 'été', 'a''b')",
            "printf('%,x|%,5d|%,d|%,d|%,.2f', 255, 1234, -1234567, 12, 1234567.891)",
            "printf('%r %r %r %r %r %r', 1, 2, 3, 11, 112, -21)",
            "printf('%p|%#p|%#o|%#x|%#X|%#x', 255, 255, 8, 255, 255, 0)",
            "printf('%05d|%0-5d|%-05d|%+05d|% 05d', -42, 3, 3, 7, 7)", "printf('%.400f', 1.5)",
            "printf('%+f|% f|%+5.1f|%010.1f|%-+8.2f|', 'inf', 1e400, -1e400, 1e400, 1e400)",
            "printf('%#.0e|%#.0g|%!.0g|%!.0f|%!#.2g', 3.0, 3.0, 3.0, 3.0, 100.0)",
            "printf('%.0f|%.0f|%.0f|%.0e', 0.5, 1.5, 2.5, 15)", "printf('%.20f|%!.20e|%!.15g', 0.1, 0.1, 0.1)",
            "printf('%s|%d|%g', 1e100, 1e100, 'abc')", "printf('%s|', x'410042')", "printf('%d %s', 'a')",
        ]
        for call in calls {
            let sql = "SELECT \(call), typeof(\(call))"
            let expected = SelectDifferentialTests.sqlite(oracle, sql)
            let actual = SelectDifferentialTests.granite(granite, sql)
            XCTAssertNil(SelectDifferentialTests.mismatch(expected, actual, ordered: true), call)
        }
    }
}
