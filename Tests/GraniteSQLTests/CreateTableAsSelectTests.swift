import GraniteStorage
import XCTest

@testable import GraniteSQL

/// `CREATE TABLE … AS SELECT`: its parse, the generated `CREATE TABLE` text, and its statement-level behaviour.
final class CreateTableAsSelectTests: XCTestCase {
    func testParsesTheQueryAndFlags() throws {
        let statement = try Parser.parseStatement("CREATE TEMP TABLE IF NOT EXISTS n AS SELECT a FROM t")
        guard case .createTable(let create) = statement.kind, let select = create.asSelect else {
            return XCTFail("not a CREATE TABLE … AS SELECT: \(statement.kind)")
        }
        XCTAssertTrue(create.temporary)
        XCTAssertTrue(create.ifNotExists)
        XCTAssertEqual(create.name.name, "n")
        XCTAssertTrue(create.columns.isEmpty)
        guard case .select(let expected) = try Parser.parseStatement("SELECT a FROM t").kind else {
            return XCTFail("not a SELECT")
        }
        XCTAssertEqual(select, expected)
        XCTAssertEqual(
            Statement.Kind.createTable(create).description, "CREATE TABLE IF NOT EXISTS n AS \(select.description)")
    }

    func testQueryMustFollowAs() {
        XCTAssertThrowsError(try Parser.parseStatement("CREATE TABLE n AS"))
        XCTAssertThrowsError(try Parser.parseStatement("CREATE TABLE n AS DELETE FROM t"))
    }

    func testGeneratedTextQuotesOnlyWhatNeedsIt() {
        let columns = [("a", "INT"), ("select", ""), ("1x", "TEXT"), ("q\"t", "REAL"), ("ä", "NUM"), ("", "")]
            .map { CreateTableText.Column(name: $0.0, type: $0.1) }
        XCTAssertEqual(
            CreateTableText.statement(table: "n", columns: Array(columns.prefix(2))), "CREATE TABLE n(a INT,\"select\")"
        )
        XCTAssertEqual(
            CreateTableText.statement(table: "abort", columns: columns),
            "CREATE TABLE \"abort\"(\n  a INT,\n  \"select\",\n  \"1x\" TEXT,\n  \"q\"\"t\" REAL,\n  \"ä\" NUM,\n  \"\"\n)"
        )
    }

    func testGeneratedTextBreaksLinesFromFiftyBudgetedCharacters() {
        // The budget: each name's bytes plus 2, plus 5 a column, 50 or more breaks lines.
        let short = (0..<6).map { CreateTableText.Column(name: "c\($0)", type: "") }
        XCTAssertEqual(short.count * (2 + 2 + 5) + 3, 57)
        XCTAssertTrue(CreateTableText.statement(table: "n", columns: short).contains("\n"))
        let shorter = Array(short.prefix(5))
        XCTAssertEqual(shorter.count * (2 + 2 + 5) + 3, 48)
        XCTAssertEqual(CreateTableText.statement(table: "n", columns: shorter), "CREATE TABLE n(c0,c1,c2,c3,c4)")
    }

    func testTypeSpellings() {
        XCTAssertEqual(
            [SQLAffinity.text, .numeric, .integer, .real, .blob, nil].map(CreateTableText.typeName(of:)),
            ["TEXT", "NUM", "INT", "REAL", "", ""])
    }

    func testRollbackUndoesTableAndRows() throws {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        try db.execute("CREATE TABLE t(a); INSERT INTO t VALUES (1), (2)")
        try db.execute("BEGIN; CREATE TABLE n AS SELECT a * 10 AS b FROM t")
        XCTAssertEqual(try db.query("SELECT b FROM n ORDER BY b").rows, [[.integer(10)], [.integer(20)]])
        try db.execute("ROLLBACK")
        XCTAssertThrowsError(try db.query("SELECT * FROM n"))
        XCTAssertEqual(try db.query("SELECT count(*) FROM sqlite_master WHERE name = 'n'").rows, [[.integer(0)]])
    }

    func testQueryErrorCreatesNothing() throws {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        try db.execute("CREATE TABLE t(a); INSERT INTO t VALUES (1)")
        XCTAssertThrowsError(try db.execute("CREATE TABLE n AS SELECT nosuch FROM t"))
        XCTAssertEqual(try db.query("SELECT count(*) FROM sqlite_master").rows, [[.integer(1)]])
    }
}
