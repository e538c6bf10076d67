import Granite
import XCTest

final class SchemaIntrospectionTests: XCTestCase {
    private func assertNoSuchTable(
        _ body: @autoclosure () throws -> some Any, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            guard let error = error as? DatabaseError else { return XCTFail("\(error)", file: file, line: line) }
            XCTAssertEqual(error.resultCode, .SQLITE_ERROR, file: file, line: line)
            XCTAssertEqual(error.message, "no such table: missing", file: file, line: line)
        }
    }

    func testExistence() throws {
        try DatabaseQueue().inDatabase { db in
            try db.execute(sql: "CREATE TABLE Player (id INTEGER PRIMARY KEY); CREATE INDEX p ON Player(id)")
            XCTAssertTrue(try db.tableExists("Player"))
            XCTAssertTrue(try db.tableExists("player"))
            XCTAssertTrue(try db.tableExists("PLAYER", in: "main"))
            XCTAssertFalse(try db.tableExists("player", in: "temp"))
            XCTAssertFalse(try db.tableExists("p"))
            XCTAssertFalse(try db.tableExists("missing"))
            XCTAssertFalse(try db.viewExists("player"))
            XCTAssertFalse(try db.triggerExists("player"))
            XCTAssertThrowsError(try db.tableExists("player", in: "other")) { error in
                XCTAssertEqual((error as? DatabaseError)?.message, "no such schema: other")
            }
            XCTAssertTrue(Database.isSQLiteInternalTable("sqlite_master"))
            XCTAssertFalse(Database.isSQLiteInternalTable("player"))
            XCTAssertTrue(Database.isGRDBInternalTable("grdb_migrations"))
            XCTAssertFalse(Database.isGRDBInternalTable("player"))
        }
    }

    func testTriggers() throws {
        try DatabaseQueue().inDatabase { db in
            try db.execute(
                sql: """
                    CREATE TABLE player (id INTEGER PRIMARY KEY, score INT);
                    CREATE TABLE log (playerId INTEGER, score INT);
                    CREATE TRIGGER playerScored AFTER UPDATE OF score ON player
                    BEGIN INSERT INTO log VALUES (new.id, new.score); END;
                    """)
            XCTAssertTrue(try db.triggerExists("playerScored"))
            XCTAssertTrue(try db.triggerExists("PLAYERSCORED", in: "main"))
            XCTAssertFalse(try db.triggerExists("player"))
            XCTAssertTrue(try db.tableExists("player"))
            try db.execute(sql: "INSERT INTO player VALUES (1, 0); UPDATE player SET score = 10")
            XCTAssertEqual(db.changesCount, 1)
            XCTAssertEqual(try Row.fetchAll(db, sql: "SELECT * FROM log"), [["playerId": 1, "score": 10]])
            try db.execute(sql: "DROP TABLE player")
            XCTAssertFalse(try db.triggerExists("playerScored"))
        }
    }

    func testSchemaVersion() throws {
        try DatabaseQueue().inDatabase { db in
            let v0 = try db.schemaVersion()
            try db.create(table: "t") { t in t.column("a") }
            let v1 = try db.schemaVersion()
            XCTAssertGreaterThan(v1, v0)
            try db.execute(sql: "INSERT INTO t (a) VALUES (1)")
            XCTAssertEqual(try db.schemaVersion(), v1)
            try db.alter(table: "t") { t in t.add(column: "b") }
            XCTAssertGreaterThan(try db.schemaVersion(), v1)
        }
    }

    func testColumns() throws {
        try DatabaseQueue().inDatabase { db in
            try db.execute(
                sql: """
                    CREATE TABLE t (
                        id INTEGER PRIMARY KEY,
                        name TEXT NOT NULL DEFAULT 'Anonymous',
                        score INT DEFAULT 0,
                        data,
                        ratio REAL DEFAULT (1.5))
                    """)
            let columns = try db.columns(in: "T")
            XCTAssertEqual(columns.map(\.name), ["id", "name", "score", "data", "ratio"])
            XCTAssertEqual(columns.map(\.type), ["INTEGER", "TEXT", "INT", "", "REAL"])
            XCTAssertEqual(columns.map(\.isNotNull), [false, true, false, false, false])
            XCTAssertEqual(columns.map(\.defaultValueSQL), [nil, "'Anonymous'", "0", nil, "1.5"])
            XCTAssertEqual(columns.map(\.primaryKeyIndex), [1, 0, 0, 0, 0])
            assertNoSuchTable(try db.columns(in: "missing"))
        }
    }

    func testPrimaryKey() throws {
        try DatabaseQueue().inDatabase { db in
            try db.execute(
                sql: """
                    CREATE TABLE hidden (name TEXT);
                    CREATE TABLE rowidAlias (id INTEGER PRIMARY KEY, name TEXT);
                    CREATE TABLE intPK (id INT PRIMARY KEY, name TEXT);
                    CREATE TABLE textPK (uuid TEXT PRIMARY KEY);
                    CREATE TABLE composite (a TEXT, b INTEGER, PRIMARY KEY (b, a));
                    """)
            var pk = try db.primaryKey("hidden")
            XCTAssertEqual(pk.columns, ["rowid"])
            XCTAssertNil(pk.rowIDColumn)
            XCTAssertTrue(pk.isRowID)

            pk = try db.primaryKey("rowidAlias")
            XCTAssertEqual(pk.columns, ["id"])
            XCTAssertEqual(pk.rowIDColumn, "id")
            XCTAssertTrue(pk.isRowID)

            pk = try db.primaryKey("intPK")
            XCTAssertEqual(pk.columns, ["id"])
            XCTAssertNil(pk.rowIDColumn)
            XCTAssertFalse(pk.isRowID)

            pk = try db.primaryKey("textPK")
            XCTAssertEqual(pk.columns, ["uuid"])
            XCTAssertFalse(pk.isRowID)

            pk = try db.primaryKey("composite")
            XCTAssertEqual(pk.columns, ["b", "a"])
            XCTAssertNil(pk.rowIDColumn)
            XCTAssertFalse(pk.isRowID)

            assertNoSuchTable(try db.primaryKey("missing"))
        }
    }

    func testIndexes() throws {
        try DatabaseQueue().inDatabase { db in
            try db.execute(
                sql: """
                    CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT UNIQUE, b TEXT, c TEXT, PRIMARY KEY (id));
                    """.replacingOccurrences(of: ", PRIMARY KEY (id)", with: ""))
            try db.create(index: "t_on_b_c", on: "t", columns: ["b", "c"])
            try db.create(index: "t_on_c", on: "t", columns: ["c"], options: .unique)
            let indexes = try db.indexes(on: "t")
            XCTAssertEqual(indexes.count, 3)
            let byName = Dictionary(uniqueKeysWithValues: indexes.map { ($0.name, $0) })
            let bc = try XCTUnwrap(byName["t_on_b_c"])
            XCTAssertEqual(bc.columns, ["b", "c"])
            XCTAssertFalse(bc.isUnique)
            XCTAssertEqual(bc.origin, .createIndex)
            let c = try XCTUnwrap(byName["t_on_c"])
            XCTAssertTrue(c.isUnique)
            XCTAssertEqual(c.origin, .createIndex)
            let auto = try XCTUnwrap(indexes.first { $0.origin == .uniqueConstraint })
            XCTAssertEqual(auto.columns, ["a"])
            XCTAssertTrue(auto.isUnique)

            try db.execute(sql: "CREATE TABLE composite (a TEXT, b TEXT, PRIMARY KEY (a, b))")
            let pkIndex = try XCTUnwrap(db.indexes(on: "composite").first)
            XCTAssertEqual(pkIndex.origin, .primaryKeyConstraint)
            XCTAssertEqual(pkIndex.columns, ["a", "b"])
            XCTAssertEqual(IndexInfo.Origin.primaryKeyConstraint.rawValue, "pk")

            try db.execute(sql: "CREATE TABLE plain (a)")
            XCTAssertTrue(try db.indexes(on: "plain").isEmpty)
            assertNoSuchTable(try db.indexes(on: "missing"))
        }
    }

    func testHasUniqueKey() throws {
        try DatabaseQueue().inDatabase { db in
            try db.execute(
                sql: """
                    CREATE TABLE t (id INTEGER PRIMARY KEY, email TEXT UNIQUE, a TEXT, b TEXT, c TEXT);
                    CREATE UNIQUE INDEX t_on_a_b ON t(a, b);
                    CREATE INDEX t_on_c ON t(c);
                    """)
            XCTAssertTrue(try db.table("t", hasUniqueKey: ["id"]))
            XCTAssertTrue(try db.table("t", hasUniqueKey: ["ID", "c"]))
            XCTAssertTrue(try db.table("t", hasUniqueKey: ["rowid"]))
            XCTAssertTrue(try db.table("t", hasUniqueKey: ["email"]))
            XCTAssertTrue(try db.table("t", hasUniqueKey: ["b", "a"]))
            XCTAssertFalse(try db.table("t", hasUniqueKey: ["a"]))
            XCTAssertFalse(try db.table("t", hasUniqueKey: ["c"]))
            XCTAssertFalse(try db.table("t", hasUniqueKey: []))
            assertNoSuchTable(try db.table("missing", hasUniqueKey: ["id"]))
        }
    }

    func testForeignKeys() throws {
        try DatabaseQueue().inDatabase { db in
            try db.execute(
                sql: """
                    CREATE TABLE parent (a TEXT, b TEXT, PRIMARY KEY (a, b));
                    CREATE TABLE team (id INTEGER PRIMARY KEY);
                    CREATE TABLE child (
                        teamId INTEGER REFERENCES team,
                        x TEXT, y TEXT,
                        FOREIGN KEY (x, y) REFERENCES parent (b, a));
                    """)
            let foreignKeys = try db.foreignKeys(on: "child")
            XCTAssertEqual(foreignKeys.count, 2)
            let team = try XCTUnwrap(foreignKeys.first { $0.destinationTable == "team" })
            XCTAssertEqual(team.originColumns, ["teamId"])
            XCTAssertEqual(team.destinationColumns, ["id"])
            let parent = try XCTUnwrap(foreignKeys.first { $0.destinationTable == "parent" })
            XCTAssertEqual(parent.originColumns, ["x", "y"])
            XCTAssertEqual(parent.destinationColumns, ["b", "a"])
            XCTAssertNotEqual(team.id, parent.id)
            XCTAssertTrue(try db.foreignKeys(on: "parent").isEmpty)
            assertNoSuchTable(try db.foreignKeys(on: "missing"))
        }
    }

    func testForeignKeyViolations() throws {
        try DatabaseQueue().inDatabase { db in
            try db.execute(
                sql: """
                    CREATE TABLE team (id INTEGER PRIMARY KEY);
                    CREATE TABLE player (id INTEGER PRIMARY KEY, teamId INTEGER REFERENCES team(id));
                    INSERT INTO team (id) VALUES (1);
                    INSERT INTO player (id, teamId) VALUES (1, 1), (2, NULL);
                    """)
            XCTAssertNil(try db.foreignKeyViolations().next())
            try db.checkForeignKeys()
            try db.checkForeignKeys(in: "player")

            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            try db.execute(sql: "INSERT INTO player (id, teamId) VALUES (3, 42)")
            try db.execute(sql: "PRAGMA foreign_keys = ON")
            let violations = try Array(db.foreignKeyViolations())
            XCTAssertEqual(violations.count, 1)
            XCTAssertEqual(violations.first?.originTable, "player")
            XCTAssertEqual(violations.first?.originRowID, 3)
            XCTAssertEqual(violations.first?.destinationTable, "team")
            XCTAssertEqual(
                violations.first?.description, "FOREIGN KEY constraint violation - from player to team, in rowid 3")
            XCTAssertTrue(try db.foreignKeyViolations(in: "team").next() == nil)
            XCTAssertThrowsError(try db.checkForeignKeys(in: "player")) { error in
                guard let error = error as? DatabaseError else { return XCTFail("\(error)") }
                XCTAssertEqual(error.extendedResultCode, .SQLITE_CONSTRAINT_FOREIGNKEY)
                XCTAssertTrue(
                    error.message?.hasPrefix(
                        "FOREIGN KEY constraint violation - from player(teamId) to team(id), in ") ?? false)
            }
            XCTAssertThrowsError(try db.checkForeignKeys())
            assertNoSuchTable(try db.foreignKeyViolations(in: "missing"))
        }
    }

    func testSchemaIdentifiers() {
        XCTAssertEqual(DatabaseSchemaID.main.name, "main")
        XCTAssertEqual(DatabaseSchemaID.temp.name, "temp")
        XCTAssertEqual(DatabaseSchemaID.attached("aux").name, "aux")
        XCTAssertEqual(DatabaseSchemaID.main.schemaTableName, "sqlite_master")
        XCTAssertEqual(DatabaseSchemaID.temp.schemaTableName, "sqlite_temp_master")
        XCTAssertEqual(DatabaseSchemaID.attached("aux").schemaTableName, "aux.sqlite_master")
        XCTAssertNotEqual(DatabaseSchemaID.attached("main"), .main)
        let id = DatabaseObjectID(name: "player", schemaID: .main)
        XCTAssertEqual(id, DatabaseObjectID(name: "player", schemaID: .main))
        XCTAssertNotEqual(id, DatabaseObjectID(name: "player", schemaID: .temp))
    }
}
