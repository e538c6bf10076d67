import Foundation
import GraniteSQL
import GraniteStorage
import XCTest

/// Valid statements used by the round-trip test and as seeds for the mutation fuzzer.
enum FuzzCorpus {
    static let validStatements: [String] = [
        "SELECT * FROM t",
        "SELECT a, b AS c, t.* FROM t AS x JOIN u ON x.id = u.id LEFT JOIN v USING (id) WHERE a > 1 AND b < 2",
        "SELECT DISTINCT a FROM t GROUP BY a HAVING count(*) > 1 ORDER BY a DESC NULLS LAST LIMIT 10 OFFSET 2",
        "SELECT a FROM t UNION ALL SELECT b FROM u EXCEPT SELECT c FROM v ORDER BY 1 LIMIT 3, 4",
        "SELECT CASE WHEN a IS NULL THEN 'n' WHEN a BETWEEN 1 AND 5 THEN 'small' ELSE 'big' END FROM t",
        "SELECT x FROM t WHERE x NOT IN (SELECT y FROM u) OR EXISTS (SELECT 1) AND x LIKE 'a%' ESCAPE '\\'",
        "SELECT CAST(a AS TEXT), -b, ~c, NOT d, e COLLATE NOCASE, f || g, 0x1F, 1.5e3, x'CAFE', NULL FROM t",
        "SELECT ?, ?2, :name, @v, $w, (1, 2) = (a, b), a ISNULL, b NOTNULL, c NOT NULL FROM t",
        "SELECT count(DISTINCT a), max(a, b), f() FROM (SELECT * FROM t) AS s, u CROSS JOIN v",
        "SELECT a IS NOT DISTINCT FROM b, a IS DISTINCT FROM b, a -> 'x', a ->> 'y', a << 2 | b & 3 FROM t",
        "VALUES (1, 'a'), (2, 'b')",
        "WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 5) SELECT n FROM c",
        "INSERT INTO t (a, b) VALUES (1, 'x'), (2, 'y') ON CONFLICT (a) DO UPDATE SET b = excluded.b WHERE b <> 'z'",
        "INSERT OR REPLACE INTO t SELECT * FROM u RETURNING *",
        "REPLACE INTO t DEFAULT VALUES",
        "INSERT INTO t VALUES (1) ON CONFLICT DO NOTHING RETURNING a AS b, c",
        "UPDATE OR IGNORE t SET a = a + 1, b = DEFAULT_B WHERE id = ?1 RETURNING a",
        "DELETE FROM main.t WHERE a IN (1, 2, 3) RETURNING *",
        "SELECT * FROM t AS x INDEXED BY t_a JOIN u NOT INDEXED ON x.a = u.a WHERE x.a > 1",
        "UPDATE t INDEXED BY t_a SET b = 1 WHERE a = 2",
        "DELETE FROM t NOT INDEXED WHERE id = 1",
        "CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE, "
            + "price REAL DEFAULT -1.5 CHECK (price >= 0), created TEXT DEFAULT CURRENT_TIMESTAMP, "
            + "owner INTEGER REFERENCES users (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED, "
            + "tag VARCHAR(20) COLLATE NOCASE DEFAULT ('x' || 'y'), CONSTRAINT pk UNIQUE (name, price), "
            + "CHECK (id > 0), FOREIGN KEY (owner) REFERENCES users (id) ON UPDATE SET NULL)",
        "CREATE UNIQUE INDEX IF NOT EXISTS idx ON t (a COLLATE NOCASE DESC, lower(b)) WHERE a IS NOT NULL",
        "DROP TABLE IF EXISTS t",
        "DROP INDEX idx",
        "ALTER TABLE t ADD COLUMN c TEXT DEFAULT 'x'",
        "ALTER TABLE t RENAME COLUMN a TO b",
        "ALTER TABLE t RENAME TO u",
        "BEGIN IMMEDIATE TRANSACTION",
        "COMMIT",
        "ROLLBACK TO SAVEPOINT sp",
        "SAVEPOINT sp",
        "RELEASE sp",
        "PRAGMA main.cache_size = -2000",
        "PRAGMA table_info(t)",
        "EXPLAIN QUERY PLAN SELECT * FROM t WHERE a = 1",
        "SELECT \"quoted id\", [bracket], `tick` FROM \"table\"",
        "SELECT -9223372036854775808, 9223372036854775808, 0xFFFFFFFFFFFFFFFF, .5, 5., 'it''s'",
        "SELECT a, row_number() OVER (PARTITION BY b ORDER BY c DESC NULLS LAST), sum(price) FILTER (WHERE a > 0) "
            + "OVER (w ROWS BETWEEN 1 PRECEDING AND 2 FOLLOWING EXCLUDE TIES), lag(name, 1, 'x') OVER w, "
            + "ntile(2) OVER (ORDER BY id RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM t "
            + "WINDOW w AS (ORDER BY id) ORDER BY 2",
        "SELECT a, count(*), sum(count(*)) OVER (), nth_value(a, 2) OVER (ORDER BY a GROUPS 1 PRECEDING EXCLUDE "
            + "CURRENT ROW), first_value(a) OVER (ORDER BY a RANGE BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) "
            + "FROM t GROUP BY a",
        "CREATE TRIGGER IF NOT EXISTS tr BEFORE UPDATE OF a, b ON t FOR EACH ROW WHEN new.a > old.a BEGIN "
            + "INSERT INTO u VALUES (new.a, OLD.\"b\"); UPDATE OR REPLACE u SET x = new.rowid WHERE y = old.b; "
            + "DELETE FROM v WHERE id = old.id; SELECT RAISE(ABORT, 'no') WHERE new.a IS NULL; "
            + "SELECT CASE WHEN new.a < 0 THEN RAISE(IGNORE) END; END",
        "CREATE TRIGGER tv INSTEAD OF DELETE ON v BEGIN SELECT RAISE(ROLLBACK, 'x'), RAISE(FAIL, 'y'); END",
        "DROP TRIGGER IF EXISTS main.tr",
    ]

    static let tokenSoup: [String] = [
        "SELECT", "FROM", "WHERE", "INSERT", "INTO", "VALUES", "UPDATE", "SET", "DELETE", "CREATE", "TABLE", "INDEX",
        "DROP", "ALTER", "ADD", "RENAME", "TO", "BEGIN", "COMMIT", "ROLLBACK", "PRAGMA", "EXPLAIN", "AND", "OR",
        "NOT", "NULL", "IS", "IN", "LIKE", "BETWEEN", "CASE", "WHEN", "THEN", "ELSE", "END", "CAST", "AS", "EXISTS",
        "DISTINCT", "ALL", "UNION", "JOIN", "LEFT", "ON", "USING", "ORDER", "BY", "GROUP", "HAVING", "LIMIT",
        "OFFSET", "PRIMARY", "KEY", "UNIQUE", "CHECK", "DEFAULT", "COLLATE", "REFERENCES", "ON", "CONFLICT", "DO",
        "NOTHING", "RETURNING", "ESCAPE", "ISNULL", "NOTNULL", "a", "b", "t", "\"q\"", "[b]", "1", "2.5", "0x1F",
        "'s'", "x'00'", "?", "?3", ":p", "(", ")", ",", ";", ".", "*", "+", "-", "/", "%", "||", "=", "==", "!=",
        "<>", "<", "<=", ">", ">=", "<<", ">>", "&", "|", "~", "->", "->>", "--c\n", "/*c*/", "'", "\"", "x'", "$",
        "#", "é", "OVER", "PARTITION", "WINDOW", "ROWS", "RANGE", "GROUPS", "PRECEDING", "FOLLOWING",
        "UNBOUNDED", "CURRENT", "ROW", "EXCLUDE", "TIES", "OTHERS", "NO", "FILTER", "row_number()", "sum(a)",
        "TRIGGER", "BEFORE", "AFTER", "INSTEAD", "OF", "FOR", "EACH", "RAISE", "IGNORE", "NEW",
        "OLD", "new.a", "old.b",
    ]
}

/// A small deterministic PRNG (SplitMix64).
struct SplitMix64 {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(max(bound, 1))) }
}

final class FuzzTests: XCTestCase {
    func testFuzzNeverTraps() throws {
        let environment = ProcessInfo.processInfo.environment
        let seed =
            environment["GRANITE_SEED"].flatMap { UInt64($0) }
            ?? (environment["CI"] != nil ? 0x4752_414E_4954_4521 : UInt64.random(in: 0...UInt64.max))
        let stress = environment["GRANITE_STRESS"].flatMap { Int($0) } ?? 1
        let iterations = 20_000 * max(stress, 1)
        var random = SplitMix64(state: seed)
        var parsed = 0
        for iteration in 0..<iterations {
            let input = makeInput(&random)
            do {
                let statements = try Parser.parseScript(input)
                parsed += 1
                let printed = statements.map(\.description).joined(separator: ";\n")
                let reparsed = try Parser.parseScript(printed)
                if reparsed != statements {
                    XCTFail("round trip mismatch (GRANITE_SEED=\(seed), iteration \(iteration)): \(input)")
                    return
                }
            } catch {
                let size = input.utf8.count
                if error.location.offset < 0 || error.location.offset > size || error.location.line < 1
                    || error.location.column < 1 || error.message.isEmpty
                {
                    XCTFail("bad error position (GRANITE_SEED=\(seed), iteration \(iteration)): \(error) for \(input)")
                    return
                }
            }
        }
        XCTAssertGreaterThan(parsed, 0, "GRANITE_SEED=\(seed)")
        print("fuzz: seed \(seed), \(iterations) inputs, \(parsed) parsed")
    }

    /// Mutated statements run against a small database: each either runs or throws, never traps, and a failing
    /// statement leaves the database usable.
    func testExecutingFuzzedStatementsNeverTraps() throws {
        let environment = ProcessInfo.processInfo.environment
        let seed =
            environment["GRANITE_SEED"].flatMap { UInt64($0) }
            ?? (environment["CI"] != nil ? 0x4752_414E_4954_4522 : UInt64.random(in: 0...UInt64.max))
        let stress = environment["GRANITE_STRESS"].flatMap { Int($0) } ?? 1
        var random = SplitMix64(state: seed)
        var db = try makeFuzzDatabase()
        var succeeded = 0
        for iteration in 0..<(3_000 * max(stress, 1)) {
            if iteration % 300 == 0 { db = try makeFuzzDatabase() }
            let input = makeInput(&random)
            do {
                let statement = try db.prepare(input)
                let arguments = (0..<statement.parameters.count).map { k in Value.integer(Int64(k)) }
                try statement.bind(arguments)
                var rows = 0
                while try statement.step() != nil, rows < 10_000 { rows += 1 }
                succeeded += 1
            } catch {
                XCTAssertFalse("\(error)".isEmpty, "GRANITE_SEED=\(seed) iteration \(iteration): \(input)")
            }
            if db.isInTransaction, random.below(3) == 0 { try? db.execute("ROLLBACK") }
        }
        XCTAssertNoThrow(try db.query("SELECT count(*) FROM granite_schema"), "GRANITE_SEED=\(seed)")
        print("fuzz/execute: seed \(seed), \(succeeded) statements ran")
    }

    private func makeFuzzDatabase() throws -> SQLConnection {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        try db.execute(
            """
            CREATE TABLE t(id INTEGER PRIMARY KEY, a, b TEXT, c REAL, name TEXT, price REAL, owner INTEGER);
            CREATE TABLE u(id INTEGER PRIMARY KEY, x, y, b, c);
            CREATE TABLE v(id, c, d);
            CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT UNIQUE);
            CREATE INDEX t_a ON t(a);
            CREATE INDEX u_xy ON u(x, y);
            INSERT INTO users(name) VALUES ('ann'), ('bob');
            INSERT INTO t(a, b, c, name, price, owner) VALUES (1, 'x', 1.5, 'n1', 2, 1), (2, 'y', NULL, 'n2', 3, 2),
                (NULL, 'z', -1, 'n3', 0, NULL);
            INSERT INTO u(x, y, b, c) VALUES (1, 2, 'x', 3), (2, 3, 'y', 4), (1, NULL, NULL, 5);
            INSERT INTO v VALUES (1, 2, 3), (2, 3, 4);
            """)
        return db
    }

    private func makeInput(_ random: inout SplitMix64) -> String {
        let corpus = FuzzCorpus.validStatements
        if random.below(4) == 0 {
            let count = 1 + random.below(20)
            return (0..<count).map { _ in FuzzCorpus.tokenSoup[random.below(FuzzCorpus.tokenSoup.count)] }
                .joined(separator: random.below(3) == 0 ? "" : " ")
        }
        var characters = Array(corpus[random.below(corpus.count)])
        let alphabet = Array("abcSELECT()'\"[]`,;.*+-=<>!|&~?:@$0x9 \n\t/é")
        for _ in 0..<(1 + random.below(3)) {
            switch random.below(5) {
            case 0 where !characters.isEmpty:
                characters.remove(at: random.below(characters.count))
            case 1:
                characters.insert(alphabet[random.below(alphabet.count)], at: random.below(characters.count + 1))
            case 2 where !characters.isEmpty:
                characters[random.below(characters.count)] = alphabet[random.below(alphabet.count)]
            case 3:
                characters = Array(characters.prefix(random.below(characters.count + 1)))
            default:
                let soup = FuzzCorpus.tokenSoup[random.below(FuzzCorpus.tokenSoup.count)]
                characters.insert(contentsOf: " \(soup) ", at: random.below(characters.count + 1))
            }
        }
        return String(characters)
    }
}
