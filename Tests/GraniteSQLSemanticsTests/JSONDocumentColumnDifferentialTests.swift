@testable import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// Columns a query reads only as JSON documents (their table cursor keeps a TEXT's stored bytes for the JSON calls
/// instead of decoding it): which columns the compiler marks, and queries over such columns against SQLite, with
/// documents stored plain and compressed, NULL, numbers, BLOBs, text that is not valid UTF-8, malformed JSON and
/// a column's default value, in the positions where the mark must hold and where it must not.
final class JSONDocumentColumnDifferentialTests: XCTestCase {
    private static let schema = [
        "CREATE TABLE person(id INTEGER PRIMARY KEY, profile TEXT, note TEXT)",
        "CREATE TABLE team(id INTEGER PRIMARY KEY, person INTEGER, info TEXT)",
        "CREATE INDEX team_person ON team(person)",
    ]

    /// The document columns of each level of `sql`'s program.
    private func documentColumns(_ db: SQLConnection, _ sql: String) throws -> [Set<Int>] {
        let prepared = try db.prepare(sql)
        guard case .select(let select) = prepared.statement.kind else {
            XCTFail("not a SELECT: \(sql)")
            return []
        }
        return try prepared.selectProgram(select).levels.map(\.documentColumns)
    }

    func testColumnsReadOnlyAsDocumentsAreMarked() throws {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        for statement in Self.schema { try db.execute(statement) }
        let marked: [(String, [Set<Int>])] = [
            ("SELECT count(*) FROM person WHERE profile ->> '$.city' = ?", [[1]]),
            (
                "SELECT count(*), sum(json_extract(profile, '$.age')), max(json_extract(profile, '$.age')) "
                    + "FROM person WHERE json_extract(profile, '$.age') >= ?", [[1]]
            ),
            ("SELECT count(*) FROM person, json_each(person.profile, '$.tags') WHERE json_each.value = ?", [[1], []]),
            ("SELECT id, profile -> '$.a', note FROM person ORDER BY profile ->> '$.b'", [[1]]),
            ("SELECT p.id, t.info ->> '$.x' FROM person p LEFT JOIN team t ON t.person = p.id", [[], [2]]),
            ("SELECT count(json_extract(profile, '$.a')) FROM person GROUP BY note", [[1]]),
        ]
        for (sql, expected) in marked {
            XCTAssertEqual(try documentColumns(db, sql), expected, sql)
        }
        let unmarked = [
            "SELECT profile ->> '$.city', length(profile) FROM person",
            "SELECT profile ->> '$.city' FROM person WHERE profile IS NOT NULL",
            // An aggregate query's outputs, HAVING and GROUP BY read a group's copied row.
            "SELECT profile ->> '$.city', count(*) FROM person",
            "SELECT count(*) FROM person GROUP BY profile ->> '$.city'",
            "SELECT note, count(*) FROM person GROUP BY note HAVING max(id) > 0 AND note ->> '$.a' = 1",
            // A subquery may read any slot.
            "SELECT profile ->> '$.a', (SELECT count(*) FROM team) FROM person",
            // A path that is not a constant of plain keys is no located call.
            "SELECT json_extract(profile, note) FROM person",
            "SELECT json_extract(profile, '$.a', '$.b') FROM person",
        ]
        for sql in unmarked {
            XCTAssertEqual(try documentColumns(db, sql).first, [], sql)
        }
    }

    /// A document as an SQL expression: long (stored compressed) or short JSON, NULL, a number, a BLOB, text
    /// that is not valid UTF-8, malformed JSON.
    private static func documentSQL(_ src: inout ValueSource) -> String {
        let padding = String(repeating: "pad ", count: src.pick([0, 1, 60]))
        let tags = (0..<src.int(0...3)).map { _ in "\"\(src.pick(["a", "b", "é"]))\"" }.joined(separator: ",")
        let json = "{\"a\":\(src.int(0...5)),\"b\":\"\(src.pick(["x", "y", "Zürich"]))\",\"t\":[\(tags)],\"p\":\"\(padding)\"}"
        switch src.int(0...13) {
        case 0: return "NULL"
        case 1: return "\(src.int(-3...3))"
        case 2: return "2.5"
        case 3: return "x'7b7d'"
        case 4: return "CAST(x'7b2262223a22e5227d' AS TEXT)"  // {"b":"<e5>"}
        case 5: return "'\(json.dropLast())'"  // malformed
        default: return "'\(json)'"
        }
    }

    private static let queries = [
        "SELECT id, profile ->> '$.b', profile -> '$.t', json_extract(profile, '$.a') FROM person ORDER BY id",
        "SELECT count(*), sum(json_extract(profile, '$.a')), max(profile ->> '$.b') FROM person WHERE json_extract(profile, '$.a') >= 2",
        "SELECT count(*) FROM person WHERE profile ->> '$.b' = 'x'",
        "SELECT id FROM person WHERE profile ->> '$.b' = 'Zürich' OR json_extract(profile, '$.a') = 1 ORDER BY id",
        "SELECT person.id, key, value, json FROM person, json_each(person.profile, '$.t') ORDER BY person.id, key",
        "SELECT person.id, fullkey, atom FROM person, json_tree(person.profile) WHERE type <> 'object' ORDER BY person.id, fullkey",
        "SELECT person.id, count(*) FROM person, json_each(person.profile) GROUP BY person.id ORDER BY person.id",
        "SELECT p.id, t.id, t.info ->> '$.b', p.profile ->> '$.a' FROM person p LEFT JOIN team t ON t.person = p.id ORDER BY p.id, t.id",
        "SELECT p.id, t.id FROM person p JOIN team t ON t.info ->> '$.a' = p.profile ->> '$.a' ORDER BY p.id, t.id",
        "SELECT note, count(*), sum(profile ->> '$.a') FROM person GROUP BY note ORDER BY note",
        "SELECT DISTINCT profile ->> '$.b' FROM person ORDER BY 1",
        "SELECT id, profile ->> '$.a' FROM person ORDER BY profile ->> '$.b', id LIMIT 3",
        "SELECT profile ->> '$.b', count(*) FROM person GROUP BY profile ->> '$.b' HAVING count(*) > 0 ORDER BY 1",
        "SELECT id, extra ->> '$.z' FROM person ORDER BY id",
        "SELECT id, profile ->> '$.a' FROM person WHERE profile IS NULL OR length(profile) > 40 ORDER BY id",
        "SELECT id FROM person WHERE profile ->> '$.a' IN (SELECT info ->> '$.a' FROM team) ORDER BY id",
        "SELECT profile ->> '$.b' FROM person UNION SELECT info ->> '$.b' FROM team ORDER BY 1",
        "SELECT * FROM docs ORDER BY id",
        "WITH c AS (SELECT id, profile ->> '$.a' AS a FROM person) SELECT count(*), sum(a) FROM c",
    ]

    private static let writes = [
        "UPDATE team SET info = json_set(info, '$.a', person.profile ->> '$.a') FROM person WHERE person.id = team.person",
        "INSERT INTO team(person, info) SELECT id, profile -> '$.t' FROM person WHERE json_extract(profile, '$.a') > 1",
        "DELETE FROM team WHERE info ->> '$.b' = 'y'",
    ]

    func testQueriesOverDocumentColumnsMatchSQLite() throws {
        let seed = testSeed()
        var src = ValueSource(seed: seed)
        var failures: [String] = []
        for _ in 0..<(12 * stressFactor) {
            var statements = Self.schema
            for id in 1...src.int(1...10) {
                let note = src.pick(["NULL", "'n'", "'{\"a\":1}'"])
                statements.append("INSERT INTO person VALUES (\(id), \(Self.documentSQL(&src)), \(note))")
                if src.bool() {
                    statements.append(
                        "INSERT INTO team(person, info) VALUES (\(src.int(1...id)), \(Self.documentSQL(&src)))")
                }
            }
            // Rows stored before the column exists read its default.
            statements.append("ALTER TABLE person ADD COLUMN extra TEXT DEFAULT '{\"z\":[1,2]}'")
            statements.append("INSERT INTO person(id, profile, extra) VALUES (100, '{\"a\":3}', '{\"z\":\"w\"}')")
            statements.append("CREATE VIEW docs AS SELECT id, profile ->> '$.b' AS b FROM person WHERE profile ->> '$.a' > 0")
            let (oracle, db) = try Oracle.enginesHolding(statements)
            var script = statements
            for sql in Self.queries + Self.writes + Self.queries.prefix(6) {
                let expected = SelectDifferentialTests.sqlite(oracle, sql)
                let actual = SelectDifferentialTests.granite(db, sql)
                if let why = SelectDifferentialTests.mismatch(expected, actual, ordered: true) {
                    failures.append("\(script.joined(separator: "; ")); \(sql): \(why)")
                }
                script.append(sql)
            }
        }
        XCTAssert(
            failures.isEmpty,
            "\(failures.count) mismatches (GRANITE_SEED=\(seed)):\n" + failures.prefix(10).joined(separator: "\n"))
    }

    /// A prepared statement run again and again over changing rows reads each run's documents.
    func testPreparedQueriesReadEachRunsDocuments() throws {
        let (oracle, db) = try Oracle.enginesHolding(Self.schema)
        let query = try db.prepare(
            "SELECT count(*), sum(json_extract(profile, '$.n')) FROM person WHERE profile ->> '$.k' = ?")
        let long = String(repeating: "long text ", count: 30)
        for n in 1...40 {
            let insert =
                "INSERT INTO person(id, profile) VALUES (\(n), '{\"k\":\"\(n % 3)\",\"n\":\(n),\"p\":\"\(n % 2 == 0 ? long : "")\"}')"
            oracle.execute(insert)
            try db.execute(insert)
            let key = "\(n % 3)"
            let expected = SelectDifferentialTests.sqlite(
                oracle, "SELECT count(*), sum(json_extract(profile, '$.n')) FROM person WHERE profile ->> '$.k' = '\(key)'")
            query.reset()
            try query.bind(.text(key), at: 1)
            guard try query.stepRow() else { return XCTFail("no row") }
            let actual = [query.column(at: 0), query.column(at: 1)]
            if case .rows(_, let rows) = expected {
                XCTAssertEqual(rows.first.map { $0.map(\.description) }, actual.map(\.description), "after \(n) rows")
            } else {
                XCTFail("SQLite failed")
            }
        }
    }

    /// Rows whose documents go from megabytes to a few bytes and back: the buffer grows, gives back what a long
    /// document took, and grows again, each row reading its own bytes (stored plain or compressed).
    func testDocumentsOfVeryDifferentSizesMatchSQLite() throws {
        var statements = ["CREATE TABLE t(id INTEGER PRIMARY KEY, doc TEXT)"]
        for (id, padding) in [3_000_000, 10, 2_500_000, 0, 1_200_000, 5].enumerated() {
            // A repeated pad compresses; a printf of random-looking digits does not.
            let pad = id % 2 == 0
                ? "printf('%.\(padding)c', 'x')" : "substr(hex(randomblob(\(padding / 2 + 1))), 1, \(padding))"
            statements.append(
                "INSERT INTO t VALUES (\(id), json_object('k', \(id), 'pad', \(pad), 'tail', 'end\(id)'))")
        }
        let (oracle, db) = try Oracle.enginesHolding(statements)
        SelectDifferentialTests.compareInOrder(
            [
                "SELECT id, doc ->> '$.k', length(doc ->> '$.pad'), doc ->> '$.tail' FROM t ORDER BY id",
                "SELECT count(*), sum(json_extract(doc, '$.k')) FROM t WHERE doc ->> '$.tail' LIKE 'end%'",
                "SELECT t.id, j.key FROM t, json_each(t.doc) j WHERE j.key <> 'pad' ORDER BY t.id, j.key",
            ], oracle, db)
    }
}
