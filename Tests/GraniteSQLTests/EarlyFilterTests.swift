import GraniteSQL
import GraniteStorage
import XCTest

/// A table cursor tests a query's conditions on the columns they read before it decodes the other columns: these
/// tests check the rows that pass, and that the columns decoded afterwards are those of the passing row.
final class EarlyFilterTests: XCTestCase {
    func makeDatabase() throws -> SQLConnection {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        try db.execute(
            """
            CREATE TABLE p(id INTEGER PRIMARY KEY, name TEXT, team TEXT, score INTEGER, note TEXT);
            CREATE TABLE q(k INTEGER, label TEXT);
            """)
        let insert = try db.prepare("INSERT INTO p(name, team, score, note) VALUES (?, ?, ?, ?)")
        for i in 0..<200 {
            // Every seventh note is long enough to spill to overflow pages.
            let note = i % 7 == 0 ? String(repeating: "n\(i)-", count: 2_000) : "short \(i)"
            try insert.bind([.text("player \(i)"), .text("team\(i % 5)"), .integer(Int64(i * 3)), .text(note)])
            try insert.execute()
        }
        for k in 0..<5 { try db.execute("INSERT INTO q VALUES (\(k * 30), 'label \(k)')") }
        return db
    }

    func testFilterOnOneColumnDecodesTheOthersOfPassingRows() throws {
        let db = try makeDatabase()
        let rows = try db.query("SELECT id, name, score, note FROM p WHERE team = ?", arguments: [.text("team2")]).rows
        XCTAssertEqual(rows.count, 40)
        for row in rows {
            guard case .integer(let id) = row[0] else { return XCTFail("id: \(row[0])") }
            let i = Int(id - 1)
            XCTAssertEqual(i % 5, 2)
            XCTAssertEqual(row[1], .text("player \(i)"))
            XCTAssertEqual(row[2], .integer(Int64(i * 3)))
            let note = i % 7 == 0 ? String(repeating: "n\(i)-", count: 2_000) : "short \(i)"
            XCTAssertEqual(row[3], .text(note))
        }
    }

    func testFilterOnAnOverflowingColumnAndTheRowidAlias() throws {
        let db = try makeDatabase()
        let rows = try db.query("SELECT id, team FROM p WHERE length(note) > 100 AND id > 100").rows
        var expected: [[Value]] = []
        for i in 100..<200 where i % 7 == 0 { expected.append([.integer(Int64(i + 1)), .text("team\(i % 5)")]) }
        XCTAssertEqual(rows, expected)
    }

    func testFilterOnTheRowidAloneDecodesEveryColumnAfterwards() throws {
        let db = try makeDatabase()
        let rows = try db.query("SELECT name, note, id FROM p WHERE id % 3 = 0 AND rowid < 40").rows
        var expected: [[Value]] = []
        for i in 0..<39 where (i + 1) % 3 == 0 {
            let note = i % 7 == 0 ? String(repeating: "n\(i)-", count: 2_000) : "short \(i)"
            expected.append([.text("player \(i)"), .text(note), .integer(Int64(i + 1))])
        }
        XCTAssertEqual(rows, expected)
    }

    func testSeveralConditionsAndAJoin() throws {
        let db = try makeDatabase()
        // score = 3i and k = 30j: i = 10j, whose team is team0.
        let rows = try db.query(
            "SELECT q.label, p.name FROM q JOIN p ON p.score = q.k WHERE p.team <> 'team1' AND q.k < 100 ORDER BY q.k"
        ).rows
        XCTAssertEqual(rows, (0..<4).map { [.text("label \($0)"), .text("player \($0 * 10)")] })
        let none = try db.query("SELECT q.label FROM q JOIN p ON p.score = q.k WHERE p.team <> 'team0'").rows
        XCTAssertEqual(none, [])
        let passing = try db.query(
            "SELECT q.label, p.name, p.note FROM q JOIN p ON p.score = q.k + 3 WHERE p.team = 'team1' ORDER BY q.k"
        ).rows
        // score = 30j + 3: i = 10j + 1, team1 for every j.
        XCTAssertEqual(
            passing,
            (0..<5).map { j in
                let i = 10 * j + 1
                let note = i % 7 == 0 ? String(repeating: "n\(i)-", count: 2_000) : "short \(i)"
                return [.text("label \(j)"), .text("player \(i)"), .text(note)]
            })
    }

    func testLeftJoinFiltersStayOnTheJoin() throws {
        let db = try makeDatabase()
        let rows = try db.query(
            "SELECT q.k, p.name FROM q LEFT JOIN p ON p.score = q.k AND p.team = 'team3' WHERE p.name IS NULL ORDER BY q.k"
        ).rows
        // score = 30j: i = 10j has team0, never team3: every q row is unmatched.
        XCTAssertEqual(rows, (0..<5).map { [.integer(Int64($0 * 30)), .null] })
    }

    func testSubqueryConditionsAndAddedColumnDefaults() throws {
        let db = try makeDatabase()
        try db.execute("ALTER TABLE p ADD COLUMN bonus INTEGER DEFAULT 7")
        try db.execute("UPDATE p SET bonus = 1 WHERE id = 3")
        let rows = try db.query(
            """
            SELECT id, bonus FROM p
            WHERE bonus > 0 AND score < 12 AND EXISTS (SELECT 1 FROM q WHERE q.k = p.score - p.score % 30)
            """
        ).rows
        XCTAssertEqual(
            rows,
            [
                [.integer(1), .integer(7)], [.integer(2), .integer(7)], [.integer(3), .integer(1)],
                [.integer(4), .integer(7)],
            ])
        let byDefault = try db.query("SELECT count(*), min(name) FROM p WHERE bonus = 7").rows
        XCTAssertEqual(byDefault, [[.integer(199), .text("player 0")]])
    }

    func testRowsReusedByTheStatementAfterAFailingRow() throws {
        let db = try makeDatabase()
        let select = try db.prepare("SELECT name, note FROM p WHERE score % 2 = 1 AND team = ?")
        for team in 0..<5 {
            try select.bind([.text("team\(team)")])
            var count = 0
            while try select.stepRow() {
                guard case .text(let name) = select.column(at: 0), let i = Int(name.dropFirst(7)) else {
                    return XCTFail("name: \(select.column(at: 0))")
                }
                XCTAssertEqual(i % 5, team)
                XCTAssertEqual(i % 2, 1)
                let note = i % 7 == 0 ? String(repeating: "n\(i)-", count: 2_000) : "short \(i)"
                XCTAssertEqual(select.column(at: 1), .text(note))
                count += 1
            }
            XCTAssertEqual(count, 20)
        }
    }
}
