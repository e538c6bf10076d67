import GraniteSQL
import GraniteStorage
import XCTest

/// SQL triggers: the syntax (canonical forms and syntax errors), and what the differential tests cannot compare
/// with SQLite (the refused TEMP trigger, a connection sharing the engine). The semantics are compared with
/// SQLite in TriggerDifferentialTests.
final class TriggerTests: XCTestCase {
    func testCanonicalForms() {
        assertCanonical(
            "create trigger tr after insert on t begin insert into log values (new.a); end",
            "CREATE TRIGGER tr AFTER INSERT ON t BEGIN INSERT INTO log VALUES (new.a); END")
        assertCanonical(
            "CREATE TEMP TRIGGER IF NOT EXISTS main.tr UPDATE OF a, \"b c\" ON t FOR EACH ROW WHEN NEW.a > Old.a "
                + "BEGIN UPDATE u SET x = old.\"b c\" WHERE id = new.rowid; SELECT 1; END",
            "CREATE TEMP TRIGGER IF NOT EXISTS main.tr BEFORE UPDATE OF a, \"b c\" ON t WHEN (NEW.a > Old.a) "
                + "BEGIN UPDATE u SET x = old.\"b c\" WHERE (id = new.rowid); SELECT 1; END")
        assertCanonical(
            "CREATE TRIGGER tr INSTEAD OF DELETE ON main.v BEGIN DELETE FROM t WHERE id = old.id; "
                + "SELECT RAISE(IGNORE); SELECT raise(rollback, 'it''s'); END",
            "CREATE TRIGGER tr INSTEAD OF DELETE ON main.v BEGIN DELETE FROM t WHERE (id = old.id); "
                + "SELECT RAISE(IGNORE); SELECT RAISE(ROLLBACK, 'it''s'); END")
        assertCanonical(
            "CREATE TRIGGER tr BEFORE DELETE ON t BEGIN "
                + "INSERT INTO u SELECT * FROM (WITH c AS (SELECT old.a) SELECT * FROM c) "
                + "ON CONFLICT DO NOTHING; WITH d AS (SELECT 1) SELECT * FROM d; END",
            "CREATE TRIGGER tr BEFORE DELETE ON t BEGIN "
                + "INSERT INTO u SELECT * FROM (WITH c AS (SELECT old.a) SELECT * FROM c) "
                + "ON CONFLICT DO NOTHING; WITH d AS (SELECT 1) SELECT * FROM d; END")
        assertCanonical("drop trigger if exists main.tr", "DROP TRIGGER IF EXISTS main.tr")
        assertCanonical("DROP TRIGGER tr", "DROP TRIGGER tr")
    }

    func testTriggerStatementKeepsItsParts() throws {
        let statement = try Parser.parseStatement(
            "CREATE TRIGGER tr AFTER UPDATE OF a ON t WHEN new.a <> old.a BEGIN DELETE FROM u; SELECT new.a; END")
        guard case .createTrigger(let create) = statement.kind else { return XCTFail("not a trigger: \(statement)") }
        XCTAssertEqual(create.name.name, "tr")
        XCTAssertEqual(create.timing, .after)
        XCTAssertEqual(create.event, .update(columns: ["a"]))
        XCTAssertEqual(create.table, "t")
        XCTAssertNotNil(create.when)
        XCTAssertEqual(create.body.count, 2)
        // `NEW.a` and `OLD.a` are the trigger's two parameters, shared by its WHEN and body; the statement creating
        // it takes none.
        XCTAssertEqual(create.parameters.count, 2)
        XCTAssertEqual(create.body[1].parameters.count, 2)
        XCTAssertEqual(statement.parameters.count, 0)
    }

    func testSyntaxErrors() {
        assertSyntaxError("CREATE TRIGGER tr AFTER INSERT ON t BEGIN END", "near \"END\": syntax error", at: (1, 43))
        assertSyntaxError(
            "CREATE TRIGGER tr AFTER INSERT ON t BEGIN SELECT 1 END", "near \"END\": syntax error", at: (1, 52))
        assertSyntaxError(
            "CREATE TRIGGER tr AFTER INSERT ON t BEGIN SELECT ?; END", "trigger cannot use variables", at: (1, 50))
        assertSyntaxError(
            "CREATE TRIGGER tr AFTER INSERT ON t BEGIN DELETE FROM main.t; END",
            "qualified table names are not allowed on INSERT, UPDATE, and DELETE statements within triggers",
            at: (1, 43))
        assertSyntaxError(
            "CREATE TRIGGER tr AFTER INSERT ON t BEGIN WITH c AS (SELECT 1) DELETE FROM t; END",
            "near \"DELETE\": syntax error", at: (1, 64))
        assertSyntaxError(
            "CREATE TRIGGER tr AFTER INSERT ON t BEGIN SELECT RAISE(ABORT, 'a' || 'b'); END",
            "near \"||\": syntax error", at: (1, 67))
        assertSyntaxError(
            "CREATE TRIGGER tr AFTER INSERT ON t BEGIN SELECT RAISE(STOP, 'a'); END", "near \"STOP\": syntax error",
            at: (1, 56))
        assertSyntaxError(
            "CREATE TRIGGER tr AFTER INSERT ON t BEGIN CREATE TABLE x(a); END", "near \"CREATE\": syntax error",
            at: (1, 43))
        assertSyntaxError("CREATE TRIGGER tr INSTEAD INSERT ON t BEGIN SELECT 1; END", "near \"INSERT\": syntax error", at: (1, 27))
        assertSyntaxError("SELECT RAISE(IGNORE)", "RAISE() may only be used within a trigger-program", at: (1, 8))
        assertSyntaxError("DROP TRIGGER", "incomplete input", at: (1, 13))
    }

    func testTemporaryTriggersOnMainTablesLiveInTheTemporarySchema() throws {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        try db.execute("CREATE TABLE t(a)")
        try db.execute("CREATE TEMP TABLE log(a)")
        try db.execute("CREATE TEMP TRIGGER tr AFTER INSERT ON t BEGIN INSERT INTO log VALUES (new.a * 2); END")
        XCTAssertEqual(try db.query("SELECT count(*) FROM sqlite_master WHERE type = 'trigger'").rows, [[.integer(0)]])
        XCTAssertEqual(
            try db.query("SELECT name, tbl_name FROM sqlite_temp_master WHERE type = 'trigger'").rows,
            [[.text("tr"), .text("t")]])
        try db.execute("INSERT INTO t VALUES (21)")
        XCTAssertEqual(try db.query("SELECT a FROM log").rows, [[.integer(42)]])
        // A second connection to the same database does not fire it.
        let other = try SQLConnection(engine: try StorageEngine(sharing: db.engine))
        try other.execute("INSERT INTO t VALUES (1)")
        XCTAssertEqual(try db.query("SELECT a FROM log").rows, [[.integer(42)]])
    }

    func testRaiseCarriesTheTriggerConstraintCode() throws {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        try db.execute("CREATE TABLE t(a); CREATE TRIGGER tr BEFORE INSERT ON t BEGIN SELECT RAISE(FAIL, 'no'); END")
        XCTAssertThrowsError(try db.execute("INSERT INTO t VALUES (1)")) { error in
            let failure = error as? SQLExecutionError
            XCTAssertEqual(failure?.message, "no")
            XCTAssertEqual(failure?.kind, .constraint)
            XCTAssertEqual(failure?.extendedCode, .trigger)
        }
    }

    func testConnectionSharingTheEngineSeesNewTriggers() throws {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        try db.execute("CREATE TABLE t(a); CREATE TABLE log(x)")
        let other = try SQLConnection(engine: try StorageEngine(sharing: db.engine))
        try other.execute("INSERT INTO t VALUES (1)")
        try db.execute("CREATE TRIGGER tr AFTER INSERT ON t BEGIN INSERT INTO log VALUES (new.a + 1); END")
        try other.execute("INSERT INTO t VALUES (2)")
        try db.execute("DROP TRIGGER tr")
        try other.execute("INSERT INTO t VALUES (3)")
        XCTAssertEqual(try db.query("SELECT x FROM log").rows, [[.integer(3)]])
    }
}
