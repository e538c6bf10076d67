import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// One-row INSERTs inside a transaction run without a statement savepoint when every check comes before the
/// write. These cases fail such statements at each point where a failure can still happen (constraints,
/// RETURNING evaluated after the write, AUTOINCREMENT sequences stored at the statement's end) and compare
/// what the transaction keeps with SQLite.
final class StatementSavepointDifferentialTests: XCTestCase {
    private static let sequenceQuery = "SELECT name, seq FROM sqlite_sequence ORDER BY name"

    func testFailingOneRowInsertsKeepNothingOfTheirOwn() throws {
        try DeleteAllDifferentialTests.checkStatements([
            "CREATE TABLE a(id INTEGER PRIMARY KEY AUTOINCREMENT, u UNIQUE, n NOT NULL, c CHECK (c >= 0))",
            "CREATE TABLE b(id INTEGER PRIMARY KEY, u UNIQUE)",
            "BEGIN",
            "INSERT INTO a(u, n, c) VALUES (1, 'x', 1)",
            "INSERT INTO a(u, n, c) VALUES (1, 'dup', 1)",
            "INSERT INTO a(u, n, c) VALUES (2, NULL, 1)",
            "INSERT INTO a(u, n, c) VALUES (3, 'neg', -1)",
            "INSERT INTO a(id, u, n, c) VALUES (1, 4, 'same id', 1)",
            "INSERT OR IGNORE INTO a(u, n, c) VALUES (1, 'ignored', 1)",
            "SELECT changes(), last_insert_rowid()",
            "INSERT INTO a(u, n, c) VALUES (5, 'returning fails', 1) RETURNING abs(-9223372036854775807 - 1)",
            "INSERT INTO b(u) VALUES (7) RETURNING id, abs(-9223372036854775807 - 1)",
            "INSERT INTO a(u, n, c) VALUES (6, 'kept', 2) RETURNING id, u",
            "SELECT id, u, n, c FROM a ORDER BY id",
            "SELECT id, u FROM b ORDER BY id",
            Self.sequenceQuery,
            "INSERT INTO a(id, u, n, c) VALUES (100, 8, 'high', 1)",
            "INSERT INTO a(id, u, n, c) VALUES (200, 8, 'high dup', 1)",
            Self.sequenceQuery,
            "INSERT INTO a(u, n, c) VALUES (9, 'after', 1)",
            "INSERT INTO b(u) VALUES (abs(-9223372036854775807 - 1))",
            "UPDATE b SET u = abs(-9223372036854775807 - 1) WHERE id = 1",
            "UPDATE a SET u = json('not json') WHERE id = 1",
            "DELETE FROM b WHERE u = abs(-9223372036854775807 - 1)",
            "INSERT INTO b(u) VALUES (json('{'))",
            "INSERT INTO b(u) VALUES (10)",
            "COMMIT",
            "SELECT id, u, n, c FROM a ORDER BY id",
            "SELECT id, u FROM b ORDER BY id",
            Self.sequenceQuery,
            "PRAGMA integrity_check",
        ])
    }

    func testRolledBackSavepointUndoesOneRowInsertsAndTheirSequence() throws {
        try DeleteAllDifferentialTests.checkStatements([
            "CREATE TABLE a(id INTEGER PRIMARY KEY AUTOINCREMENT, u UNIQUE)",
            "BEGIN",
            "INSERT INTO a(u) VALUES (1)",
            "SAVEPOINT s",
            "INSERT INTO a(u) VALUES (2)",
            "INSERT INTO a(u) VALUES (2)",
            "INSERT INTO a(u) VALUES (3)",
            Self.sequenceQuery,
            "ROLLBACK TO s",
            Self.sequenceQuery,
            "INSERT INTO a(u) VALUES (4)",
            "RELEASE s",
            "COMMIT",
            "SELECT id, u FROM a ORDER BY id",
            Self.sequenceQuery,
        ])
    }

    /// Random one-row INSERTs, half of which fail a constraint or their RETURNING clause, in transactions
    /// that commit or roll back: rows, counters and sequences must match SQLite's after every statement.
    func testRandomOneRowInsertsInTransactionsMatchSQLite() throws {
        var source = ValueSource(seed: testSeed())
        var statements = [
            "CREATE TABLE a(id INTEGER PRIMARY KEY AUTOINCREMENT, u INTEGER UNIQUE, n TEXT NOT NULL, c CHECK (c < 8))",
            "CREATE TABLE b(id INTEGER PRIMARY KEY, u INTEGER UNIQUE, n TEXT NOT NULL)",
        ]
        for _ in 0..<(40 * stressFactor) {
            statements.append("BEGIN")
            for _ in 0..<source.int(1...12) {
                let table = source.pick(["a", "b"])
                let id = source.int(0...3) == 0 ? String(source.int(1...60)) : "NULL"
                let unique = source.int(0...40)
                let name = source.int(0...9) == 0 ? "NULL" : "'n\(source.int(0...99))'"
                let check = table == "a" ? ", \(source.int(0...9))" : ""
                let verb = source.int(0...5) == 0 ? "INSERT OR IGNORE" : "INSERT"
                let returning = source.pick([
                    "", "", " RETURNING id", " RETURNING id, u", " RETURNING abs(-9223372036854775807 - 1 + u % 2)",
                ])
                let columns = table == "a" ? "(id, u, n, c)" : "(id, u, n)"
                statements.append(
                    "\(verb) INTO \(table)\(columns) VALUES (\(id), \(unique), \(name)\(check))\(returning)")
            }
            statements.append(source.int(0...3) == 0 ? "ROLLBACK" : "COMMIT")
            statements += [
                "SELECT id, u, n FROM a ORDER BY id", "SELECT id, u, n FROM b ORDER BY id", Self.sequenceQuery,
            ]
        }
        statements.append("PRAGMA integrity_check")
        try DeleteAllDifferentialTests.checkStatements(statements)
    }
}
