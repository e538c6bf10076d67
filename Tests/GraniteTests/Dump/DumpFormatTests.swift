import Foundation
import Granite
import XCTest

/// Collects what a dump prints.
final class DumpOutput: TextOutputStream {
    private(set) var text = ""
    func write(_ string: String) { text += string }
}

/// The built-in dump formats, value by value: GRDB's output for the same rows.
final class DumpFormatTests: XCTestCase {
    /// One row per kind of value, named so that `ORDER BY label` lists them in this order.
    private func makeSampleQueue() throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE sample(label TEXT, v)")
            let values: [(String, (any DatabaseValueConvertible)?)] = [
                ("a null", nil),
                ("b int", 42),
                ("c negative int", Int64.min),
                ("d real", 2.5),
                ("e whole real", -3.0),
                ("f big real", 1e20),
                ("g text", "l'été \\ /"),
                ("h text with line feed", "one\ntwo"),
                ("i empty text", ""),
                ("j utf8 blob", Data("café".utf8)),
                ("k binary blob", Data([0x80, 0x00, 0xFF])),
                ("l uuid blob", Data([0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC, 0xDE, 0xF0,
                                      0x90, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0xF7])),
                ("m empty blob", Data()),
            ]
            for (label, value) in values {
                try db.execute(sql: "INSERT INTO sample VALUES (?, ?)", arguments: [label, value])
            }
        }
        return queue
    }

    private func dump(_ format: some DumpFormat, _ sql: SQL = "SELECT * FROM sample ORDER BY label") throws -> String {
        let output = DumpOutput()
        try makeSampleQueue().dumpSQL(sql, format: format, to: output)
        return output.text
    }

    func testDebugFormat() throws {
        XCTAssertEqual(try dump(.debug()), """
            a null|
            b int|42
            c negative int|-9223372036854775808
            d real|2.5
            e whole real|-3.0
            f big real|1e+20
            g text|l'été \\ /
            h text with line feed|one
            two
            i empty text|
            j utf8 blob|café
            k binary blob|X'8000FF'
            l uuid blob|12345678-9ABC-DEF0-9011-1213141516F7
            m empty blob|

            """)
        XCTAssertEqual(try dump(.debug(header: true, separator: ", ", nullValue: "NULL"), "SELECT * FROM sample LIMIT 2"), """
            label, v
            a null, NULL
            b int, 42

            """)
    }

    func testListFormat() throws {
        XCTAssertEqual(try dump(.list(), "SELECT * FROM sample WHERE label > 'i' ORDER BY label"), """
            i empty text|
            j utf8 blob|café
            k binary blob|\u{FFFD}
            l uuid blob|\u{12}4Vx\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}\u{11}\u{12}\u{13}\u{14}\u{15}\u{16}\u{FFFD}
            m empty blob|

            """)
        XCTAssertEqual(try dump(.list(header: true, separator: ";", nullValue: "-"), "SELECT * FROM sample LIMIT 2"), """
            label;v
            a null;-
            b int;42

            """)
    }

    func testQuoteFormat() throws {
        XCTAssertEqual(try dump(.quote()), """
            'a null',NULL
            'b int',42
            'c negative int',-9223372036854775808
            'd real',2.5
            'e whole real',-3.0
            'f big real',1.0e+20
            'g text','l''été \\ /'
            'h text with line feed','one
            two'
            'i empty text',''
            'j utf8 blob',X'636166C3A9'
            'k binary blob',X'8000FF'
            'l uuid blob',X'123456789ABCDEF090111213141516F7'
            'm empty blob',X''

            """)
        XCTAssertEqual(try dump(.quote(header: true, separator: "|"), "SELECT 1 AS \"it's\", 'x'"), """
            'it''s'|'''x'''
            1|'x'

            """)
    }

    func testLineFormat() throws {
        XCTAssertEqual(try dump(.line(nullValue: "NULL"), "SELECT * FROM sample ORDER BY label LIMIT 2; SELECT 1 AS longer"), """
            label = a null
                v = NULL

            label = b int
                v = 42

            longer = 1

            """)
        // An empty result leaves no margin behind.
        XCTAssertEqual(try dump(.line(), "SELECT 1 WHERE 0; SELECT 2 AS x"), """
            x = 2

            """)
    }

    func testJSONFormat() throws {
        XCTAssertEqual(try dump(.json(), "SELECT * FROM sample WHERE label < 'e' OR label > 'f' ORDER BY label"), """
            [{"label":"a null","v":null},
            {"label":"b int","v":42},
            {"label":"c negative int","v":-9223372036854775808},
            {"label":"d real","v":2.5},
            {"label":"f big real","v":1e+20},
            {"label":"g text","v":"l'été \\\\ /"},
            {"label":"h text with line feed","v":"one\\ntwo"},
            {"label":"i empty text","v":""},
            {"label":"j utf8 blob","v":"Y2Fmw6k="},
            {"label":"k binary blob","v":"gAD/"},
            {"label":"l uuid blob","v":"EjRWeJq83vCQERITFBUW9w=="},
            {"label":"m empty blob","v":""}]

            """)
        XCTAssertEqual(try dump(.json(), "SELECT 1 WHERE 0; CREATE TABLE t(a)"), "[]\n")

        let encoder = JSONDumpFormat.defaultEncoder
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        XCTAssertEqual(try dump(.json(encoder: encoder), "SELECT 1 AS a, 'x' AS b UNION ALL SELECT 2, NULL"), """
            [
              {
                "a":1,
                "b":"x"
              },
              {
                "a":2,
                "b":null
              }
            ]

            """)
    }

    func testStatementsWithoutRowsPrintNothing() throws {
        for format in [AnyDumpFormat(.debug()), AnyDumpFormat(.line()), AnyDumpFormat(.list()),
                       AnyDumpFormat(.quote()), AnyDumpFormat(.json())] {
            let output = DumpOutput()
            try DatabaseQueue().write { db in
                try db.dumpSQL("CREATE TABLE t(a); INSERT INTO t VALUES (1)", format: format, to: output)
            }
            XCTAssertEqual(output.text, "")
        }
    }

    func testGRDBColumnsAreLeftOut() throws {
        XCTAssertEqual(try dump(.debug(header: true), "SELECT 1 AS a, 2 AS grdb_b, 3 AS c"), "a|grdb_b|c\n1|3\n")
        XCTAssertEqual(try dump(.json(), "SELECT 1 AS a, 2 AS grdb_b"), "[{\"a\":1}]\n")
    }

    func testAnErrorKeepsWhatWasPrinted() throws {
        let output = DumpOutput()
        XCTAssertThrowsError(try DatabaseQueue().dumpSQL("SELECT 'before'; SELECT * FROM missing", to: output))
        XCTAssertEqual(output.text, "before\n")
    }
}

/// A format that forwards to another one, so that a test can loop over formats of different types.
private struct AnyDumpFormat: DumpFormat {
    private var base: any DumpFormat
    init(_ base: some DumpFormat) { self.base = base }
    mutating func writeRow(_ db: Database, statement: Statement, to stream: inout DumpStream) throws {
        try base.writeRow(db, statement: statement, to: &stream)
    }
    mutating func finalize(_ db: Database, statement: Statement, to stream: inout DumpStream) {
        base.finalize(db, statement: statement, to: &stream)
    }
}
