import GraniteSQL
import GraniteStorage
import XCTest

/// A database in a memory file that can be closed and reopened, with a schema catalog. Between statements the
/// engine stays in a read transaction, so that the tests can look at its trees.
private final class TestDatabase {
    let file = MemoryFile()
    var engine: StorageEngine
    var catalog = SchemaCatalog()
    /// The transaction in progress: a read between statements, a write after ``beginWrite()``.
    var transaction: StorageTransaction

    init() throws {
        engine = try StorageEngine(file: file, walFile: MemoryFile())
        transaction = try engine.beginRead()
    }

    /// The write transaction begun by ``beginWrite()``.
    var write: WriteTransaction {
        get throws { try XCTUnwrap(transaction as? WriteTransaction, "no write transaction") }
    }

    /// Ends the read transaction and begins a write transaction.
    func beginWrite() throws {
        try transaction.commit()
        transaction = try engine.beginWrite()
    }

    /// Rolls the write transaction back, begins a read transaction and reloads the catalog.
    func rollback() throws {
        try transaction.rollback()
        transaction = try engine.beginRead()
        try catalog.load(transaction: transaction)
    }

    /// Executes each `;`-separated schema statement in one committed transaction.
    func run(_ sql: String) throws {
        try beginWrite()
        do {
            for statement in try Parser.parseScript(sql) { try catalog.execute(statement, transaction: write) }
            try transaction.commit()
            transaction = try engine.beginRead()
        } catch {
            try rollback()
            throw error
        }
    }

    /// Closes the engine, reopens the file and reloads the catalog.
    func reopen() throws {
        try engine.close()
        engine = try StorageEngine(file: file)
        transaction = try engine.beginRead()
        catalog = try SchemaCatalog(transaction: transaction)
    }
}

private func assertSchemaError(
    _ message: String, file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Void
) {
    do {
        try body()
        XCTFail("expected error: \(message)", file: file, line: line)
    } catch let error as SchemaError {
        XCTAssertEqual(error.message, message, file: file, line: line)
    } catch {
        XCTFail("unexpected error \(error)", file: file, line: line)
    }
}

private func table(_ sql: String) throws -> TableDefinition {
    guard case .createTable(let create) = try Parser.parseStatement(sql).kind else {
        throw SchemaError("not create table")
    }
    return try TableDefinition(create, sql: sql)
}

final class SchemaCatalogTests: XCTestCase {
    func testCreateTablePersistsAcrossReopen() throws {
        let db = try TestDatabase()
        try db.run(
            """
            CREATE TABLE people (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL COLLATE NOCASE,
              email VARCHAR(80) UNIQUE, age INT DEFAULT 0 CHECK (age >= 0), team INTEGER REFERENCES teams(id)
              ON DELETE CASCADE ON UPDATE SET NULL);
            CREATE INDEX people_name ON people (name DESC, lower(email)) WHERE age > 18
            """)
        for pass in 0..<2 {
            let people = try XCTUnwrap(db.catalog.table(named: "PEOPLE"), "pass \(pass)")
            XCTAssertEqual(people.name, "people")
            XCTAssertEqual(people.columns.map(\.name), ["id", "name", "email", "age", "team"])
            XCTAssertEqual(people.columns.map(\.declaredType), ["INTEGER", "TEXT", "VARCHAR(80)", "INT", "INTEGER"])
            XCTAssertEqual(people.columns.map(\.affinity), [.integer, .text, .text, .integer, .integer])
            XCTAssertEqual(people.rowidAlias, 0)
            XCTAssertTrue(people.isAutoincrement)
            XCTAssertTrue(people.columns[1].notNull)
            XCTAssertEqual(people.columns[1].collation, "NOCASE")
            XCTAssertEqual(people.columns[3].defaultValue, try Parser.parseExpression("0"))
            XCTAssertEqual(people.checks.map(\.expression), [try Parser.parseExpression("age >= 0")])
            XCTAssertEqual(people.primaryKey, [KeyColumn(column: 0)])
            XCTAssertEqual(people.columnIndex(named: "EMAIL"), 2)
            XCTAssertNil(people.column(named: "nope"))
            XCTAssertEqual(people.foreignKeys.count, 1)
            let fk = people.foreignKeys[0]
            XCTAssertEqual(fk.columns, [4])
            XCTAssertEqual(fk.parentTable, "teams")
            XCTAssertEqual(fk.parentColumns, ["id"])
            XCTAssertEqual(fk.onDelete, .cascade)
            XCTAssertEqual(fk.onUpdate, .setNull)
            XCTAssertEqual(people.uniqueConstraints.map(\.indexName), ["granite_autoindex_people_1"])
            XCTAssertEqual(db.catalog.indexes(on: "people").map(\.name), ["granite_autoindex_people_1", "people_name"])
            let auto = try XCTUnwrap(db.catalog.index(named: "granite_autoindex_people_1"))
            XCTAssertTrue(auto.unique)
            XCTAssertEqual(auto.origin, .unique)
            XCTAssertNil(auto.sql)
            XCTAssertEqual(auto.columns, [IndexColumn(target: .column(2))])
            let index = try XCTUnwrap(db.catalog.index(named: "People_Name"))
            XCTAssertFalse(index.unique)
            XCTAssertEqual(index.columns.count, 2)
            XCTAssertEqual(index.columns[0], IndexColumn(target: .column(1), collation: "NOCASE", order: .descending))
            XCTAssertEqual(index.columns[1].target, .expression(try Parser.parseExpression("lower(email)")))
            XCTAssertEqual(index.whereClause, try Parser.parseExpression("age > 18"))
            XCTAssertEqual(try db.transaction.table(named: people.storageName).root, people.rootPage)
            XCTAssertEqual(try db.transaction.index(named: index.storageName).root, index.rootPage)
            try db.reopen()
        }
    }

    func testSchemaRows() throws {
        let db = try TestDatabase()
        let sql = "CREATE TABLE t (a INT PRIMARY KEY, b UNIQUE)"
        try db.run(sql + "; CREATE UNIQUE INDEX tb ON t (b, a)")
        let rows = try db.transaction.table(named: SchemaCatalog.schemaTableName)
        let cursor = try rows.makeCursor()
        var decoded: [(Int64, [Value])] = []
        var more = try cursor.first()
        while more {
            decoded.append((cursor.rowid, try RowDecoder.decode(try cursor.payload())))
            more = try cursor.next()
        }
        let t = try XCTUnwrap(db.catalog.table(named: "t"))
        let indexes = db.catalog.indexes(on: "t")
        XCTAssertEqual(decoded.map(\.0), [1, 2, 3, 4])
        XCTAssertEqual(
            decoded.map(\.1),
            [
                [.text("table"), .text("t"), .text("t"), .integer(Int64(t.rootPage)), .text(sql)],
                [
                    .text("index"), .text("granite_autoindex_t_1"), .text("t"), .integer(Int64(indexes[0].rootPage)),
                    .null,
                ],
                [
                    .text("index"), .text("granite_autoindex_t_2"), .text("t"), .integer(Int64(indexes[1].rootPage)),
                    .null,
                ],
                [
                    .text("index"), .text("tb"), .text("t"), .integer(Int64(indexes[2].rootPage)),
                    .text("CREATE UNIQUE INDEX tb ON t (b, a)"),
                ],
            ])
        XCTAssertEqual(indexes.map(\.origin), [.primaryKey, .unique, .createIndex])
        XCTAssertEqual(t.storageName, "t:1")
        XCTAssertEqual(indexes.map(\.storageName), ["i:2", "i:3", "i:4"])
    }

    func testRowidAliasRules() throws {
        XCTAssertEqual(try table("CREATE TABLE t (x INTEGER PRIMARY KEY, y)").rowidAlias, 0)
        XCTAssertEqual(try table("CREATE TABLE t (x integer primary key ASC, y)").rowidAlias, 0)
        XCTAssertEqual(try table("CREATE TABLE t (y, x INTEGER, PRIMARY KEY (x))").rowidAlias, 1)
        // SQLite's quirk: DESC in a column constraint is not an alias, in a table constraint it is.
        XCTAssertNil(try table("CREATE TABLE t (x INTEGER PRIMARY KEY DESC, y)").rowidAlias)
        XCTAssertEqual(try table("CREATE TABLE t (x INTEGER, y, PRIMARY KEY (x DESC))").rowidAlias, 0)
        XCTAssertNil(try table("CREATE TABLE t (x INT PRIMARY KEY, y)").rowidAlias)
        XCTAssertNil(try table("CREATE TABLE t (x BIGINT PRIMARY KEY)").rowidAlias)
        XCTAssertNil(try table("CREATE TABLE t (x UNSIGNED INTEGER PRIMARY KEY)").rowidAlias)
        XCTAssertNil(try table("CREATE TABLE t (x PRIMARY KEY)").rowidAlias)
        XCTAssertNil(try table("CREATE TABLE t (x INTEGER, y INTEGER, PRIMARY KEY (x, y))").rowidAlias)
        XCTAssertNil(try table("CREATE TABLE t (x INTEGER)").rowidAlias)

        // Automatic indexes: none for the alias, one for any other primary key.
        XCTAssertEqual(try table("CREATE TABLE t (x INTEGER PRIMARY KEY)").uniqueConstraints.count, 0)
        let desc = try table("CREATE TABLE t (x INTEGER PRIMARY KEY DESC)")
        XCTAssertEqual(desc.uniqueConstraints.map(\.indexName), ["granite_autoindex_t_1"])
        XCTAssertEqual(desc.uniqueConstraints[0].columns, [KeyColumn(column: 0, order: .descending)])
        XCTAssertTrue(desc.uniqueConstraints[0].isPrimaryKey)
        let composite = try table("CREATE TABLE t (a, b, c UNIQUE, PRIMARY KEY (b, a), UNIQUE (a COLLATE nocase))")
        XCTAssertEqual(composite.primaryKey, [KeyColumn(column: 1), KeyColumn(column: 0)])
        XCTAssertEqual(composite.uniqueConstraints.map(\.indexName), (1...3).map { "granite_autoindex_t_\($0)" })
        XCTAssertEqual(composite.uniqueConstraints.map(\.isPrimaryKey), [false, true, false])
        XCTAssertEqual(composite.uniqueConstraints[2].columns, [KeyColumn(column: 0, collation: "nocase")])
        XCTAssertEqual(composite.columns.map(\.isPrimaryKey), [true, true, false])
        // Identical keys share one index.
        XCTAssertEqual(try table("CREATE TABLE t (a UNIQUE, b, UNIQUE (a))").uniqueConstraints.count, 1)

        assertSchemaError("AUTOINCREMENT is only allowed on an INTEGER PRIMARY KEY") {
            _ = try table("CREATE TABLE t (x INT PRIMARY KEY AUTOINCREMENT)")
        }
        assertSchemaError("AUTOINCREMENT is only allowed on an INTEGER PRIMARY KEY") {
            _ = try table("CREATE TABLE t (x INTEGER PRIMARY KEY DESC AUTOINCREMENT)")
        }
        XCTAssertTrue(try table("CREATE TABLE t (x INTEGER PRIMARY KEY AUTOINCREMENT)").isAutoincrement)
    }

    func testAffinity() throws {
        let cases: [(String, SQLAffinity)] = [
            ("INT", .integer), ("INTEGER", .integer), ("TINYINT", .integer), ("UNSIGNED BIG INT", .integer),
            ("CHARACTER(20)", .text), ("VARCHAR(255)", .text), ("NATIVE CHARACTER(70)", .text), ("TEXT", .text),
            ("CLOB", .text), ("BLOB", .blob), ("", .blob), ("REAL", .real), ("DOUBLE PRECISION", .real),
            ("FLOAT", .real), ("NUMERIC", .numeric), ("DECIMAL(10,5)", .numeric), ("BOOLEAN", .numeric),
            ("DATETIME", .numeric), ("CHARINT", .integer), ("FLOATING POINT", .integer), ("STRING", .numeric),
        ]
        for (type, affinity) in cases {
            let definition = try table("CREATE TABLE t (x \(type))")
            XCTAssertEqual(definition.columns[0].affinity, affinity, type)
        }
    }

    func testErrors() throws {
        let db = try TestDatabase()
        try db.run("CREATE TABLE t (a, b); CREATE INDEX i ON t (a)")
        assertSchemaError("table T already exists") { try db.run("CREATE TABLE T (x)") }
        assertSchemaError("table t already exists") { try db.run("CREATE TABLE main.t (x)") }
        XCTAssertNoThrow(try db.run("CREATE TABLE IF NOT EXISTS t (x)"))
        assertSchemaError("there is already an index named i") { try db.run("CREATE TABLE i (x)") }
        assertSchemaError("no such table: u") { try db.run("DROP TABLE u") }
        XCTAssertNoThrow(try db.run("DROP TABLE IF EXISTS u"))
        assertSchemaError("index I already exists") { try db.run("CREATE INDEX I ON t (b)") }
        XCTAssertNoThrow(try db.run("CREATE INDEX IF NOT EXISTS i ON t (b)"))
        assertSchemaError("there is already a table named t") { try db.run("CREATE INDEX t ON t (b)") }
        assertSchemaError("no such index: j") { try db.run("DROP INDEX j") }
        XCTAssertNoThrow(try db.run("DROP INDEX IF EXISTS j"))
        assertSchemaError("no such table: main.u") { try db.run("CREATE INDEX j ON u (a)") }
        assertSchemaError("no such column: c") { try db.run("CREATE INDEX j ON t (a, c)") }
        assertSchemaError("duplicate column name: A") { try db.run("CREATE TABLE u (a, b, A)") }
        assertSchemaError("table u has more than one primary key") {
            try db.run("CREATE TABLE u (a PRIMARY KEY, b PRIMARY KEY)")
        }
        assertSchemaError("table u has more than one primary key") {
            try db.run("CREATE TABLE u (a PRIMARY KEY, b, PRIMARY KEY (b))")
        }
        assertSchemaError("no such column: c") { try db.run("CREATE TABLE u (a, b, UNIQUE (a, c))") }
        assertSchemaError("unknown column \"c\" in foreign key definition") {
            try db.run("CREATE TABLE u (a, FOREIGN KEY (c) REFERENCES t (a))")
        }
        assertSchemaError("object name reserved for internal use: granite_x") {
            try db.run("CREATE TABLE granite_x (a)")
        }
        assertSchemaError("object name reserved for internal use: Granite_i") {
            try db.run("CREATE INDEX Granite_i ON t (a)")
        }
        assertSchemaError("table granite_schema may not be dropped") { try db.run("DROP TABLE granite_schema") }
        assertSchemaError("unknown database aux") { try db.run("CREATE TABLE aux.u (a)") }
        XCTAssertEqual(db.catalog.tables.map(\.name), ["t"])
        XCTAssertEqual(db.catalog.indexes.map(\.name), ["i"])
    }

    func testDropTableAndIndex() throws {
        let db = try TestDatabase()
        try db.run(
            "CREATE TABLE t (a PRIMARY KEY, b UNIQUE); CREATE INDEX ti ON t (b); CREATE TABLE u (x); "
                + "CREATE INDEX ui ON u (x)")
        let t = try XCTUnwrap(db.catalog.table(named: "t"))
        assertSchemaError("index associated with UNIQUE or PRIMARY KEY constraint cannot be dropped") {
            try db.run("DROP INDEX granite_autoindex_t_1")
        }
        try db.run("DROP TABLE t")
        XCTAssertNil(db.catalog.table(named: "t"))
        XCTAssertEqual(db.catalog.indexes.map(\.name), ["ui"])
        XCTAssertNil(try db.transaction.treeInfo(named: t.storageName))
        try db.run("DROP INDEX ui")
        try db.reopen()
        XCTAssertEqual(db.catalog.tables.map(\.name), ["u"])
        XCTAssertEqual(db.catalog.indexes.count, 0)
        XCTAssertEqual(try db.transaction.trees().map(\.name).sorted(), ["granite_schema", "t:5"])
        // Re-creating reuses nothing stale.
        try db.run("CREATE TABLE t (a UNIQUE)")
        try db.reopen()
        XCTAssertEqual(db.catalog.indexes(on: "t").map(\.name), ["granite_autoindex_t_1"])
    }

    func testRollbackUndoesCreateTable() throws {
        let db = try TestDatabase()
        try db.run("CREATE TABLE keep (a)")
        let version = db.catalog.schemaVersion
        try db.beginWrite()
        try db.catalog.execute(try Parser.parseStatement("CREATE TABLE gone (a UNIQUE)"), transaction: db.write)
        try db.catalog.execute(try Parser.parseStatement("DROP TABLE keep"), transaction: db.write)
        XCTAssertNotNil(db.catalog.table(named: "gone"))
        XCTAssertGreaterThan(db.catalog.schemaVersion, version)
        try db.rollback()
        XCTAssertNil(db.catalog.table(named: "gone"))
        XCTAssertNotNil(db.catalog.table(named: "keep"))
        XCTAssertNil(try db.transaction.treeInfo(named: "t:2"))
        try db.reopen()
        XCTAssertEqual(db.catalog.tables.map(\.name), ["keep"])
        XCTAssertEqual(db.catalog.indexes.count, 0)
    }

    func testRollbackOfFirstSchemaChange() throws {
        let db = try TestDatabase()
        try db.beginWrite()
        try db.catalog.execute(try Parser.parseStatement("CREATE TABLE t (a)"), transaction: db.write)
        try db.rollback()
        XCTAssertTrue(db.catalog.tables.isEmpty)
        XCTAssertNil(try db.transaction.treeInfo(named: SchemaCatalog.schemaTableName))
    }

    func testSchemaVersionBumps() throws {
        let db = try TestDatabase()
        var last = db.catalog.schemaVersion
        for sql in [
            "CREATE TABLE t (a)", "CREATE INDEX i ON t (a)", "ALTER TABLE t ADD COLUMN b", "ALTER TABLE t RENAME TO u",
            "ALTER TABLE u RENAME COLUMN b TO c", "DROP INDEX i", "DROP TABLE u",
        ] {
            try db.run(sql)
            XCTAssertGreaterThan(db.catalog.schemaVersion, last, sql)
            last = db.catalog.schemaVersion
        }
    }

    func testRenameTable() throws {
        let db = try TestDatabase()
        try db.run(
            """
            CREATE TABLE t (a INTEGER PRIMARY KEY, b UNIQUE, p REFERENCES t (a));
            CREATE INDEX tb ON t (b);
            CREATE TABLE child (x REFERENCES T (b))
            """)
        let before = try XCTUnwrap(db.catalog.table(named: "t"))
        try db.run("ALTER TABLE t RENAME TO renamed")
        for _ in 0..<2 {
            XCTAssertNil(db.catalog.table(named: "t"))
            let table = try XCTUnwrap(db.catalog.table(named: "RENAMED"))
            XCTAssertEqual(table.name, "renamed")
            XCTAssertEqual(table.storageName, before.storageName)
            XCTAssertEqual(table.rootPage, before.rootPage)
            XCTAssertEqual(
                table.sql, "CREATE TABLE renamed (a INTEGER PRIMARY KEY, b UNIQUE, p REFERENCES renamed (a))")
            XCTAssertEqual(db.catalog.indexes(on: "renamed").map(\.name), ["granite_autoindex_renamed_1", "tb"])
            XCTAssertEqual(db.catalog.index(named: "tb")?.sql, "CREATE INDEX tb ON renamed (b)")
            XCTAssertEqual(db.catalog.table(named: "child")?.foreignKeys[0].parentTable, "renamed")
            try db.reopen()
        }
        try db.run("CREATE TABLE other (a)")
        assertSchemaError("there is already another table or index with this name: tb") {
            try db.run("ALTER TABLE other RENAME TO tb")
        }
        assertSchemaError("object name reserved for internal use: granite_t") {
            try db.run("ALTER TABLE other RENAME TO granite_t")
        }
        assertSchemaError("no such table: t") { try db.run("ALTER TABLE t RENAME TO v") }
    }

    func testAddColumn() throws {
        let db = try TestDatabase()
        try db.run("CREATE TABLE t (a INTEGER PRIMARY KEY,\n  b TEXT\n)")
        try db.run("ALTER TABLE t ADD COLUMN c REAL NOT NULL DEFAULT 1.5")
        try db.run("ALTER TABLE t ADD d")
        for _ in 0..<2 {
            let table = try XCTUnwrap(db.catalog.table(named: "t"))
            XCTAssertEqual(table.columns.map(\.name), ["a", "b", "c", "d"])
            XCTAssertEqual(table.columns[2].affinity, .real)
            XCTAssertTrue(table.columns[2].notNull)
            XCTAssertEqual(
                table.sql, "CREATE TABLE t (a INTEGER PRIMARY KEY,\n  b TEXT\n, c REAL NOT NULL DEFAULT 1.5, d)")
            try db.reopen()
        }
        assertSchemaError("duplicate column name: B") { try db.run("ALTER TABLE t ADD COLUMN B") }
        assertSchemaError("Cannot add a PRIMARY KEY column") { try db.run("ALTER TABLE t ADD COLUMN e PRIMARY KEY") }
        assertSchemaError("Cannot add a UNIQUE column") { try db.run("ALTER TABLE t ADD COLUMN e UNIQUE") }
        assertSchemaError("Cannot add a NOT NULL column with default value NULL") {
            try db.run("ALTER TABLE t ADD COLUMN e NOT NULL")
        }
        assertSchemaError("Cannot add a NOT NULL column with default value NULL") {
            try db.run("ALTER TABLE t ADD COLUMN e NOT NULL DEFAULT NULL")
        }
        assertSchemaError("Cannot add a column with non-constant default") {
            try db.run("ALTER TABLE t ADD COLUMN e DEFAULT CURRENT_TIMESTAMP")
        }
        assertSchemaError("no such table: u") { try db.run("ALTER TABLE u ADD COLUMN e") }
        XCTAssertEqual(db.catalog.table(named: "t")?.columns.count, 4)
    }

    func testRenameColumn() throws {
        let db = try TestDatabase()
        try db.run(
            """
            CREATE TABLE t (a INTEGER PRIMARY KEY, b CHECK (b > 0), c, UNIQUE (b, c), CHECK (t.b < 100 AND c IS NULL));
            CREATE INDEX tb ON t (b COLLATE nocase, abs(b)) WHERE b IS NOT NULL;
            CREATE TABLE child (x, FOREIGN KEY (x) REFERENCES t (b))
            """)
        try db.run("ALTER TABLE t RENAME COLUMN B TO bee")
        for _ in 0..<2 {
            let table = try XCTUnwrap(db.catalog.table(named: "t"))
            XCTAssertEqual(table.columns.map(\.name), ["a", "bee", "c"])
            XCTAssertEqual(
                table.sql,
                "CREATE TABLE t (a INTEGER PRIMARY KEY, bee CHECK (bee > 0), c, UNIQUE (bee, c), "
                    + "CHECK ((t.bee < 100) AND (c IS NULL)))")
            XCTAssertEqual(table.uniqueConstraints[0].columns.map(\.column), [1, 2])
            let index = try XCTUnwrap(db.catalog.index(named: "tb"))
            XCTAssertEqual(
                index.sql, "CREATE INDEX tb ON t (bee COLLATE nocase, abs(bee)) WHERE (bee IS NOT NULL)")
            XCTAssertEqual(index.columns[0].target, .column(1))
            XCTAssertEqual(db.catalog.table(named: "child")?.foreignKeys[0].parentColumns, ["bee"])
            try db.reopen()
        }
        assertSchemaError("no such column: \"zz\"") { try db.run("ALTER TABLE t RENAME COLUMN zz TO y") }
        assertSchemaError("duplicate column name: C") { try db.run("ALTER TABLE t RENAME COLUMN a TO C") }
    }
}
