import CSQLiteOracle
import GraniteSQL
import GraniteStorage
import XCTest

/// The text→REAL conversions with a rule of their own, each checked against SQLite, and the inputs that must
/// not trap however long or large they are.
final class RealConversionEdgeTests: XCTestCase {
    private func bothEngines() throws -> (Oracle, SQLConnection) {
        (Oracle(), try SQLConnection(engine: try StorageEngine.inMemory()))
    }

    /// The first row of `sql` on Granite.
    private func graniteRow(_ db: SQLConnection, _ sql: String, _ arguments: [Value] = []) throws -> [Value] {
        try XCTUnwrap(try db.query(sql, arguments: arguments).rows.first)
    }

    /// Checks that `sql` gives the same row, bit for bit, on both engines.
    private func assertSameRow(
        _ sql: String, _ arguments: [Value] = [], _ oracle: Oracle, _ db: SQLConnection, file: StaticString = #filePath,
        line: UInt = #line
    ) throws {
        let expected = oracle.row(sql, arguments)
        let actual = try graniteRow(db, sql, arguments)
        XCTAssertEqual(expected.count, actual.count, sql, file: file, line: line)
        for (e, a) in zip(expected, actual) {
            guard case .value(let v) = e else {
                XCTFail("\(sql): SQLite failed with \(e)", file: file, line: line)
                continue
            }
            XCTAssertTrue(
                RealConversionDifferentialTests.same(v, a),
                "\(sql) \(arguments): sqlite=\(RealConversionDifferentialTests.show(v)) "
                    + "granite=\(RealConversionDifferentialTests.show(a))", file: file, line: line)
        }
    }

    /// SQLite rounds `567758.326114083` twice (to 64 bits, then to 53) and lands one unit below the correctly
    /// rounded double; literals, casts and `quote()` all agree with it, so `quote()` round-trips.
    func testDoubleRoundedExampleMatchesSQLiteEverywhere() throws {
        let (oracle, db) = try bothEngines()
        let sql =
            "SELECT 567758.326114083, CAST('567758.326114083' AS REAL), quote(567758.326114083), "
            + "567758.326114083 = CAST('567758.326114083' AS REAL), '567758.326114083' + 0"
        try assertSameRow(sql, [], oracle, db)
        let row = try graniteRow(db, sql)
        XCTAssertEqual(row[0], .real(Double(bitPattern: 0x4121_539C_A6F8_6CD2)))
        XCTAssertEqual(row[2], .text("567758.326114083"))
        XCTAssertEqual(row[3], .integer(1))
    }

    /// Each of the edge texts through every conversion that reads text as a number.
    func testEdgeTextsConvertAsInSQLite() throws {
        let (oracle, db) = try bothEngines()
        let sql =
            "SELECT CAST(?1 AS REAL), CAST(?1 AS NUMERIC), CAST(?1 AS INTEGER), ?1 + 0, ?1 * 1.0, -?1, "
            + "typeof(CAST(?1 AS NUMERIC))"
        for text in RealConversionGenerator.edgeTexts {
            try assertSameRow(sql, [.text(text)], oracle, db)
            try assertSameRow(sql, [.blob(Array(text.utf8))], oracle, db)
        }
    }

    /// Literals at the ends of the ranges: integers that overflow to REAL, the most negative integer, huge and
    /// tiny exponents, and the hex literal that is too big (an error with SQLite's message).
    func testBoundaryLiteralsMatchSQLite() throws {
        let (oracle, db) = try bothEngines()
        let literals = [
            "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
            "99999999999999999999", "1e308", "1e309", "1e-324", "1e-400", "4.9e-324", "2.5e-324", ".5", "5.",
            "0.0", "-0.0", "1.7976931348623157e308", "0x7fffffffffffffff", "0xffffffffffffffff", "1E+2", "1e-0",
        ]
        for literal in literals {
            try assertSameRow("SELECT \(literal), typeof(\(literal)), quote(\(literal))", [], oracle, db)
        }
        let hex = "SELECT 0x10000000000000000"
        let expected = SelectDifferentialTests.sqlite(oracle, hex)
        guard case .failure(let message) = expected,
            case .failure(let graniteMessage) = SelectDifferentialTests.granite(db, hex)
        else { return XCTFail("Granite accepted \(hex)") }
        // Granite's syntax errors add the position after SQLite's message.
        XCTAssertTrue(graniteMessage.hasPrefix(message), "\(graniteMessage) vs \(message)")
    }

    /// Digit strings far longer than any double needs, and exponents far beyond its range, convert without
    /// trapping and as SQLite converts them.
    func testVeryLongDigitStringsAndExponentsMatchSQLite() throws {
        let (oracle, db) = try bothEngines()
        let manyDigits = String(repeating: "7", count: 100_000)
        let texts = [
            manyDigits, "0." + manyDigits, manyDigits + "." + manyDigits + "e-99999", "1e" + manyDigits,
            "1e-" + manyDigits, "-" + manyDigits + "e-100000", String(repeating: "0", count: 50_000) + "1.5",
            "0." + String(repeating: "0", count: 400) + "1e400",
        ]
        for text in texts {
            try assertSameRow(
                "SELECT CAST(?1 AS REAL), CAST(?1 AS NUMERIC), ?1 + 0, typeof(?1 + 0)", [.text(text)], oracle, db)
        }
        try assertSameRow("SELECT \(manyDigits), 0.\(manyDigits), quote(\(manyDigits).5)", [], oracle, db)
    }

    /// Infinities and zeros keep their sign through rendering, and `quote()` spells them as SQLite does.
    func testInfinitiesAndSignedZerosRenderAsInSQLite() throws {
        let (oracle, db) = try bothEngines()
        let sql = "SELECT CAST(?1 AS TEXT), quote(?1), ?1 || '', CAST(CAST(?1 AS TEXT) AS REAL)"
        let values = [
            Double.infinity, -Double.infinity, 0.0, -0.0, Double.leastNonzeroMagnitude, -Double.greatestFiniteMagnitude,
        ]
        for value in values {
            try assertSameRow(sql, [.real(value)], oracle, db)
        }
    }
}
