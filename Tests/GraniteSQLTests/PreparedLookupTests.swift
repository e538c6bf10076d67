import GraniteSQL
import GraniteStorage
import XCTest

/// Prepared statements that run many times through the fast paths of the table cursor (`rowid = ?` read straight
/// from the parameter, index range searches, LEFT JOIN bookkeeping), each checked against the same query written
/// so that the planner cannot use the fast path (a condition wrapped in `(…) = 1` is tested row by row on a
/// scan).
final class PreparedLookupTests: XCTestCase {
    func makeDatabase() throws -> SQLConnection {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        try db.execute(
            """
            CREATE TABLE p(id INTEGER PRIMARY KEY, name TEXT NOT NULL, team TEXT, score INTEGER, created REAL);
            CREATE INDEX p_score ON p(score);
            CREATE TABLE q(k INTEGER, label TEXT);
            """)
        let insert = try db.prepare("INSERT INTO p(id, name, team, score, created) VALUES (?, ?, ?, ?, ?)")
        for i in 1...300 {
            // Every ninth score is NULL; scores repeat (ties are ordered by rowid in the index).
            let score: Value = i % 9 == 0 ? .null : .integer(Int64((i * 37) % 101))
            let name = i % 4 == 0 ? "a name long enough to need a heap-allocated string \(i)" : "p\(i)"
            try insert.bind([
                .integer(Int64(i)), .text(name), i % 5 == 0 ? .null : .text("team\(i % 3)"), score,
                .real(Double(i) / 4),
            ])
            try insert.execute()
        }
        for k in stride(from: 0, to: 101, by: 10) { try db.execute("INSERT INTO q VALUES (\(k), 'label \(k)')") }
        return db
    }

    /// Every row of `statement` read column by column with `stepRow()` and `column(at:)`.
    func columnRows(_ statement: PreparedStatement) throws -> [[Value]] {
        var rows: [[Value]] = []
        while try statement.stepRow() { rows.append((0..<statement.columnCount).map { statement.column(at: $0) }) }
        return rows
    }

    func testRowidEqualsParameterMatchesTheScan() throws {
        let db = try makeDatabase()
        let fast = try db.prepare("SELECT * FROM p WHERE id = ?")
        let slow = try db.prepare("SELECT * FROM p WHERE (id = ?) = 1")
        XCTAssertTrue(
            try db.query("EXPLAIN QUERY PLAN SELECT * FROM p WHERE id = ?", arguments: [.integer(1)]).rows.description
                .contains("rowid"))
        let arguments: [Value] = [
            .integer(1), .integer(150), .integer(300), .integer(0), .integer(301), .integer(-5), .null,
            .text("42"), .text("42.0"), .text(" 42"), .text("abc"), .real(42), .real(42.5), .real(-0.0),
            .blob([0x34, 0x32]), .integer(Int64.max), .integer(Int64.min),
        ]
        for round in 0..<2 {
            for argument in arguments {
                try fast.bind(argument, at: 1)
                try slow.bind(argument, at: 1)
                let expected = try slow.all()
                XCTAssertEqual(try columnRows(fast), expected, "id = \(argument), round \(round)")
                // The same again through step(), after a reset in the middle of nothing.
                fast.reset()
                XCTAssertEqual(try fast.all(), expected, "id = \(argument), round \(round)")
            }
            // Rows deleted (and one replaced) between runs of the prepared statements.
            try db.execute("DELETE FROM p WHERE id IN (1, 150, 42)")
            try db.execute("INSERT INTO p(id, name, score) VALUES (42, 'again', 7)")
        }
        // Stepping on after the one row, and a statement reset before it is stepped.
        try fast.bind(.integer(7), at: 1)
        XCTAssertTrue(try fast.stepRow())
        XCTAssertFalse(try fast.stepRow())
        XCTAssertFalse(try fast.stepRow())
        try fast.bind(.integer(8), at: 1)
        fast.reset()
        XCTAssertEqual(try fast.all().map { $0[0] }, [.integer(8)])
    }

    func testRowidEqualsExpressionAndConstant() throws {
        let db = try makeDatabase()
        for (fast, slow) in [
            ("SELECT name FROM p WHERE id = ? + 1", "SELECT name FROM p WHERE (id = ? + 1) = 1"),
            (
                "SELECT name FROM p WHERE id = 17 AND ? IS NOT NULL",
                "SELECT name FROM p WHERE (id = 17) = 1 AND ? IS NOT NULL"
            ),
            ("SELECT name FROM p WHERE rowid = ?", "SELECT name FROM p WHERE (rowid = ?) = 1"),
        ] {
            let f = try db.prepare(fast)
            let s = try db.prepare(slow)
            for argument: Value in [.integer(16), .integer(299), .null, .text("20")] {
                try f.bind(argument, at: 1)
                try s.bind(argument, at: 1)
                XCTAssertEqual(try columnRows(f), try s.all(), "\(fast) with \(argument)")
            }
        }
    }

    func testIndexRangeWithOrderAndLimitMatchesTheSort() throws {
        let db = try makeDatabase()
        let shapes: [(fast: String, slow: String)] = [
            (
                "SELECT id, name, score FROM p WHERE score > ? ORDER BY score LIMIT ? OFFSET ?",
                "SELECT id, name, score FROM p WHERE (score > ?) = 1 ORDER BY score, id LIMIT ? OFFSET ?"
            ),
            (
                "SELECT id, name, score FROM p WHERE score > ? ORDER BY score DESC LIMIT ? OFFSET ?",
                "SELECT id, name, score FROM p WHERE (score > ?) = 1 ORDER BY score DESC, id DESC LIMIT ? OFFSET ?"
            ),
            (
                "SELECT score, id FROM p WHERE score <= ? ORDER BY score LIMIT ? OFFSET ?",
                "SELECT score, id FROM p WHERE (score <= ?) = 1 ORDER BY score, id LIMIT ? OFFSET ?"
            ),
            (
                "SELECT id, team, created FROM p WHERE score >= ? ORDER BY score DESC LIMIT ? OFFSET ?",
                "SELECT id, team, created FROM p WHERE (score >= ?) = 1 ORDER BY score DESC, id DESC LIMIT ? OFFSET ?"
            ),
        ]
        let thresholds: [Value] = [
            .integer(-1), .integer(0), .integer(50), .integer(99), .integer(100), .integer(1000), .null, .real(49.5),
            .text("50"), .text("x"),
        ]
        let pages: [(Int64, Int64)] = [(20, 0), (5, 3), (0, 0), (-1, 0), (1000, 290)]
        for shape in shapes {
            let fast = try db.prepare(shape.fast)
            let slow = try db.prepare(shape.slow)
            XCTAssertTrue(
                try db.query("EXPLAIN QUERY PLAN " + shape.fast, arguments: [.integer(0), .integer(1), .integer(0)])
                    .rows.description.contains("INDEX p_score"), shape.fast)
            for round in 0..<2 {
                for threshold in thresholds {
                    for (limit, offset) in pages {
                        for statement in [fast, slow] {
                            try statement.bind(threshold, at: 1)
                            try statement.bind(.integer(limit), at: 2)
                            try statement.bind(.integer(offset), at: 3)
                        }
                        XCTAssertEqual(
                            try columnRows(fast), try slow.all(),
                            "\(shape.fast) with \(threshold), LIMIT \(limit) OFFSET \(offset), round \(round)")
                    }
                }
                // Rows deleted and changed between runs.
                try db.execute("DELETE FROM p WHERE score BETWEEN 40 AND 60")
                try db.execute("UPDATE p SET score = NULL WHERE id % 7 = 0")
            }
        }
    }

    func testLeftJoinRunTwiceFindsUnmatchedRowsEachTime() throws {
        let db = try makeDatabase()
        let statement = try db.prepare(
            "SELECT p.id, q.label FROM p LEFT JOIN q ON q.k = p.score WHERE p.id <= ? ORDER BY p.id, q.label")
        var expected: [[Value]] = []
        for row in try db.query("SELECT id, score FROM p WHERE id <= 40 ORDER BY id").rows {
            if case .integer(let score) = row[1], score % 10 == 0 {
                expected.append([row[0], .text("label \(score)")])
            } else {
                expected.append([row[0], .null])
            }
        }
        for _ in 0..<3 {
            try statement.bind(.integer(40), at: 1)
            XCTAssertEqual(try columnRows(statement), expected)
        }
        try statement.bind(.integer(0), at: 1)
        XCTAssertEqual(try columnRows(statement), [])
    }
}
