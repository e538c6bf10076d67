import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

final class PreparedStatementTests: XCTestCase {
    private func makeConnection() throws -> SQLConnection {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        try db.execute("CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER)")
        try db.execute("CREATE INDEX player_score ON player(score)")
        return db
    }

    func testBindStepResetAndColumnNamesBeforeStepping() throws {
        let db = try makeConnection()
        let insert = try db.prepare("INSERT INTO player(name, score) VALUES (?, ?)")
        XCTAssertEqual(insert.parameters.count, 2)
        XCTAssertEqual(insert.columnCount, 0)
        for k in 1...100 {
            try insert.bind([.text("p\(k)"), .integer(Int64(k % 10))])
            try insert.execute()
        }
        let select = try db.prepare("SELECT id, name AS who, score * 2 FROM player WHERE score = :s ORDER BY id")
        XCTAssertEqual(select.columnNames, ["id", "who", "score * 2"])
        try select.bind(.integer(3), named: ":s")
        var ids: [Int64] = []
        while let row = try select.step() {
            if case .integer(let id) = row[0] { ids.append(id) }
        }
        XCTAssertEqual(ids, [3, 13, 23, 33, 43, 53, 63, 73, 83, 93])
        XCTAssertNil(try select.step(), "a finished statement stays finished until reset")
        select.reset()
        XCTAssertEqual(try select.step()?[0], .integer(3), "reset runs it again with the same arguments")
        try select.bind([.integer(4)])
        XCTAssertEqual(try select.all().count, 10)
    }

    func testReadOnlyPragmas() throws {
        let db = try makeConnection()
        for sql in [
            "PRAGMA user_version", "PRAGMA table_info(player)", "PRAGMA table_xinfo('player')",
            "PRAGMA index_list(player)", "PRAGMA index_info(player_score)", "PRAGMA foreign_key_list(player)",
            "PRAGMA integrity_check(10)",
            // Connection settings write nothing to the file: SQLite's sqlite3_stmt_readonly is true for them.
            "PRAGMA foreign_keys = OFF", "PRAGMA synchronous = FULL", "PRAGMA page_size = 2048", "PRAGMA unknown = 1",
        ] {
            XCTAssertTrue(try db.prepare(sql).isReadOnly, sql)
        }
        for sql in [
            "PRAGMA user_version = 3", "PRAGMA journal_mode = wal", "PRAGMA schema_version = 3",
            "INSERT INTO player(name) VALUES ('a')",
        ] {
            XCTAssertFalse(try db.prepare(sql).isReadOnly, sql)
        }
    }

    func testStepRowAndColumnReadTheSameRowsAsStep() throws {
        let db = try makeConnection()
        let insert = try db.prepare("INSERT INTO player(name, score) VALUES (?, ?)")
        for k in 1...30 {
            try insert.bind([.text("player number \(k)"), .integer(Int64(k % 7))])
            try insert.execute()
        }
        for sql in [
            "SELECT id, name, score FROM player WHERE score > ? ORDER BY score LIMIT 5",
            "SELECT score, count(*), max(name) FROM player WHERE score > ? GROUP BY score",
            "SELECT * FROM player WHERE id = ?",
        ] {
            let select = try db.prepare(sql)
            for argument in [Int64(2), 4, 9] {
                try select.bind(.integer(argument), at: 1)
                let expected = try select.all()
                select.reset()
                var rows: [[Value]] = []
                while try select.stepRow() {
                    rows.append((0..<select.columnCount).map { select.column(at: $0) })
                }
                XCTAssertEqual(rows, expected, sql)
                XCTAssertFalse(try select.stepRow(), "a finished statement stays finished until reset")
            }
        }
        // Rows returned by step() stay intact while later rows are produced.
        let select = try db.prepare("SELECT id, name FROM player WHERE id <= 3 ORDER BY id")
        var kept: [[Value]] = []
        while let row = try select.step() { kept.append(row) }
        XCTAssertEqual(kept.map { $0[0] }, [.integer(1), .integer(2), .integer(3)])
        XCTAssertEqual(kept[0][1], .text("player number 1"))
    }

    func testArgumentErrors() throws {
        let db = try makeConnection()
        let select = try db.prepare("SELECT * FROM player WHERE id = ? AND name = ?")
        XCTAssertThrowsError(try select.bind([.integer(1)])) { error in
            XCTAssertEqual((error as? SQLExecutionError)?.kind, .misuse)
        }
        XCTAssertThrowsError(try select.bind(.integer(1), at: 3))
        XCTAssertThrowsError(try select.bind(.integer(1), named: ":nope"))
        XCTAssertThrowsError(try db.prepare("SELECT 1; SELECT 2"))
        XCTAssertThrowsError(try db.prepare("SELECT * FROM nope")) { error in
            XCTAssertEqual((error as? SQLExecutionError)?.message, "no such table: nope")
        }
    }

    func testStatementCacheReusesStatements() throws {
        let db = try makeConnection()
        let a = try db.cachedStatement("SELECT count(*) FROM player")
        let b = try db.cachedStatement("SELECT count(*) FROM player")
        XCTAssertTrue(a === b)
        XCTAssertEqual(try a.step(), [.integer(0)])
        // While `a` runs, the cache hands out another statement.
        let c = try db.cachedStatement("SELECT count(*) FROM player")
        XCTAssertFalse(a === c)
    }

    func testSchemaChangeReplansTheStatement() throws {
        let db = try makeConnection()
        try db.execute("INSERT INTO player(name, score) VALUES ('a', 1), ('b', 2)")
        let select = try db.prepare("SELECT * FROM player ORDER BY id")
        XCTAssertEqual(select.columnNames, ["id", "name", "score"])
        XCTAssertEqual(try select.all().count, 2)
        try db.execute("ALTER TABLE player ADD COLUMN team TEXT DEFAULT 'red'")
        let rows = try select.all()
        XCTAssertEqual(select.columnNames, ["id", "name", "score", "team"])
        XCTAssertEqual(rows.first?.last, .text("red"))
        try db.execute("DROP TABLE player")
        XCTAssertThrowsError(try select.all()) { error in
            XCTAssertEqual((error as? SQLExecutionError)?.message, "no such table: player")
        }
    }

    /// A prepared UPDATE or DELETE keeps its syntax tree after its first run: a table replaced by a view of the same
    /// name (written through INSTEAD OF triggers) must be seen on the next run.
    func testPreparedUpdateAndDeleteFollowATableReplacedByAView() throws {
        let db = try makeConnection()
        try db.execute("INSERT INTO player(name, score) VALUES ('a', 1), ('b', 2), ('c', 3)")
        let update = try db.prepare("UPDATE player SET score = score + 10 WHERE name = ?")
        let delete = try db.prepare("DELETE FROM player WHERE name = ?")
        try update.bind([.text("a")])
        try update.execute()
        try delete.bind([.text("b")])
        try delete.execute()
        XCTAssertEqual(
            try db.query("SELECT name, score FROM player ORDER BY id").rows,
            [[.text("a"), .integer(11)], [.text("c"), .integer(3)]])
        try db.execute("ALTER TABLE player RENAME TO stored_player")
        try db.execute("CREATE VIEW player AS SELECT id, name, score FROM stored_player")
        try db.execute("CREATE TABLE log(what, name)")
        try db.execute(
            "CREATE TRIGGER player_update INSTEAD OF UPDATE ON player BEGIN "
                + "INSERT INTO log VALUES ('update', old.name); END")
        try db.execute(
            "CREATE TRIGGER player_delete INSTEAD OF DELETE ON player BEGIN "
                + "INSERT INTO log VALUES ('delete', old.name); END")
        try update.bind([.text("c")])
        try update.execute()
        try delete.bind([.text("a")])
        try delete.execute()
        XCTAssertEqual(
            try db.query("SELECT what, name FROM log ORDER BY rowid").rows,
            [[.text("update"), .text("c")], [.text("delete"), .text("a")]])
        XCTAssertEqual(
            try db.query("SELECT name, score FROM stored_player ORDER BY id").rows,
            [[.text("a"), .integer(11)], [.text("c"), .integer(3)]])
    }

    func testWritingWhileAStatementIsRunning() throws {
        let db = try makeConnection()
        for k in 1...50 {
            try db.execute(
                "INSERT INTO player(name, score) VALUES (?, ?)", arguments: [.text("p\(k)"), .integer(Int64(k))])
        }
        let select = try db.prepare("SELECT id FROM player ORDER BY id")
        let update = try db.prepare("UPDATE player SET score = score + 1000 WHERE id = ?")
        var seen = 0
        while let row = try select.step() {
            try update.bind([row[0]])
            try update.execute()
            seen += 1
        }
        XCTAssertEqual(seen, 50)
        XCTAssertEqual(try db.query("SELECT min(score) FROM player").rows, [[.integer(1001)]])
        XCTAssertFalse(db.engine.isInTransaction, "the statement's read snapshot ends with it")
    }

    func testAnotherConnectionsSchemaChangeIsSeen() throws {
        let path = try makeTemporaryDatabasePath()
        let engine = try StorageEngine(path: path)
        let first = try SQLConnection(engine: engine)
        let second = try SQLConnection(engine: try StorageEngine(sharing: engine))
        try first.execute("CREATE TABLE t(x)")
        try second.execute("INSERT INTO t VALUES (1)")
        try second.execute("CREATE TABLE u(y)")
        try first.execute("INSERT INTO u VALUES (2)")
        XCTAssertEqual(try second.query("SELECT y FROM u").rows, [[.integer(2)]])
        try second.execute("ALTER TABLE t ADD COLUMN z DEFAULT 9")
        XCTAssertEqual(try first.query("SELECT * FROM t").rows, [[.integer(1), .integer(9)]])
    }

    func testExplainAndReturningColumnNamesAreKnownBeforeStepping() throws {
        let db = try makeConnection()
        XCTAssertEqual(
            try db.prepare("EXPLAIN QUERY PLAN SELECT * FROM player").columnNames,
            ["id", "parent", "notused", "detail"])
        XCTAssertEqual(
            try db.prepare("DELETE FROM player RETURNING id, upper(name), score AS s").columnNames,
            ["id", "upper(name)", "s"])
    }
}

final class SortTests: XCTestCase {
    func testLargeSortSpillsAndMatchesTheInMemorySort() throws {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, s TEXT)")
        try db.execute("BEGIN")
        let insert = try db.prepare("INSERT INTO t(k, s) VALUES (?, ?)")
        var generator = SystemRandomNumberGenerator()
        for n in 0..<20_000 {
            let k = Int64.random(in: 0..<500, using: &generator)
            try insert.bind([
                k % 7 == 0 ? .null : .integer(k), .text("row \(n) " + String(repeating: "x", count: n % 13)),
            ])
            try insert.execute()
        }
        try db.execute("COMMIT")
        let sql = "SELECT id, k, s FROM t ORDER BY k DESC NULLS FIRST, length(s)"
        let inMemory = try db.query(sql).rows
        db.sortMemoryLimit = 64 << 10
        let statement = try db.prepare(sql)
        let spilled = try statement.all()
        XCTAssertTrue(statement.sortSpilled, "a 64 KiB budget must spill 20,000 rows")
        XCTAssertEqual(spilled, inMemory, "the merge is stable and equal to the in-memory sort")
        XCTAssertEqual(spilled.count, 20_000)
        // ORDER BY … LIMIT keeps only the best rows and gives the same prefix.
        let limited = try db.query(sql + " LIMIT 25 OFFSET 10").rows
        XCTAssertEqual(limited, Array(inMemory[10..<35]))
    }
}

final class StatementAtomicityTests: XCTestCase {
    /// One-row INSERTs run without a statement savepoint inside a transaction: a failing one must still leave
    /// the transaction open with everything before it, and nothing of itself.
    func testFailingOneRowInsertInsideATransactionChangesNothing() throws {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        try db.execute(
            "CREATE TABLE t(id INTEGER PRIMARY KEY, email TEXT UNIQUE, name TEXT NOT NULL, n INT CHECK (n >= 0))")
        try db.execute("CREATE INDEX t_name ON t(name)")
        try db.execute("BEGIN")
        let insert = try db.prepare("INSERT INTO t(email, name, n) VALUES (?, ?, ?)")
        try insert.bind([.text("a@x"), .text("A"), .integer(1)])
        try insert.execute()
        let failures: [[Value]] = [
            [.text("a@x"), .text("B"), .integer(1)],  // UNIQUE
            [.text("b@x"), .null, .integer(1)],  // NOT NULL
            [.text("c@x"), .text("C"), .integer(-1)],  // CHECK
        ]
        for arguments in failures {
            try insert.bind(arguments)
            XCTAssertThrowsError(try insert.execute())
            XCTAssertTrue(db.isInTransaction)
        }
        try insert.bind([.text("d@x"), .text("D"), .integer(2)])
        try insert.execute()
        try db.execute("COMMIT")
        XCTAssertEqual(try db.query("SELECT email FROM t ORDER BY id").rows, [[.text("a@x")], [.text("d@x")]])
        XCTAssertEqual(try db.query("PRAGMA integrity_check").rows, [[.text("ok")]])
    }

    /// UPDATE and DELETE of one row defer the statement savepoint; failures must still change nothing, and a
    /// multi-row statement failing half-way must be undone.
    func testFailingUpdatesInsideATransactionChangeNothing() throws {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        try db.execute(
            "CREATE TABLE t(id INTEGER PRIMARY KEY, email TEXT UNIQUE, name TEXT NOT NULL, n INT CHECK (n >= 0))")
        try db.execute("CREATE INDEX t_n ON t(n)")
        try db.execute("INSERT INTO t(email, name, n) VALUES ('a', 'A', 1), ('b', 'B', 2), ('c', 'C', 3)")
        try db.execute("BEGIN")
        let update = try db.prepare("UPDATE t SET email = ?, name = ?, n = ? WHERE id = ?")
        for arguments: [Value] in [
            [.text("b"), .text("X"), .integer(5), .integer(1)],  // UNIQUE
            [.text("z"), .null, .integer(5), .integer(1)],  // NOT NULL
            [.text("z"), .text("X"), .integer(-5), .integer(1)],  // CHECK
        ] {
            try update.bind(arguments)
            XCTAssertThrowsError(try update.execute())
            XCTAssertTrue(db.isInTransaction)
        }
        // Several rows: the second one fails after the first was changed; the statement is undone.
        XCTAssertThrowsError(try db.execute("UPDATE t SET n = 10 - n * 4"))
        try db.execute("DELETE FROM t WHERE id = 3")
        try db.execute("COMMIT")
        XCTAssertEqual(
            try db.query("SELECT id, email, name, n FROM t ORDER BY id").rows,
            [[.integer(1), .text("a"), .text("A"), .integer(1)], [.integer(2), .text("b"), .text("B"), .integer(2)]])
        XCTAssertEqual(try db.query("PRAGMA integrity_check").rows, [[.text("ok")]])
    }
}
