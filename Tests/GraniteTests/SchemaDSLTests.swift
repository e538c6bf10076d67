import Granite
import XCTest

final class SchemaDSLTests: XCTestCase {
    /// Runs `body` and returns the SQL of the statements it executed.
    private func sqlQueries(_ db: Database, _ body: () throws -> Void) rethrows -> [String] {
        var queries: [String] = []
        db.trace { event in
            if case .statement(let statement) = event { queries.append(statement.sql) }
        }
        defer { db.trace(nil) }
        try body()
        return queries
    }

    private func lastSQL(_ db: Database, _ body: () throws -> Void) throws -> String? {
        try sqlQueries(db, body).last
    }

    func testCreateTable() throws {
        try DatabaseQueue().inDatabase { db in
            let sql = try lastSQL(db) {
                try db.create(table: "test") { t in
                    t.primaryKey("id", .integer)
                    t.column("name", .text)
                }
            }
            XCTAssertEqual(sql, #"CREATE TABLE "test" ("id" INTEGER PRIMARY KEY, "name" TEXT)"#)
            XCTAssertTrue(try db.tableExists("test"))
        }
    }

    func testIfNotExists() throws {
        try DatabaseQueue().inDatabase { db in
            for _ in 0..<2 {
                let queries = try sqlQueries(db) {
                    try db.create(table: "test", options: .ifNotExists) { t in
                        t.column("a", .integer).indexed()
                    }
                }
                XCTAssertEqual(
                    queries,
                    [
                        #"CREATE TABLE IF NOT EXISTS "test" ("a" INTEGER)"#,
                        #"CREATE INDEX IF NOT EXISTS "test_on_a" ON "test"("a")"#,
                    ])
            }
            XCTAssertThrowsError(try db.create(table: "test") { t in t.column("a") }) { error in
                XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_ERROR)
            }
        }
    }

    func testStrictTables() throws {
        try DatabaseQueue().inDatabase { db in
            let sql = try lastSQL(db) {
                try db.create(table: "player", options: .strict) { t in
                    t.autoIncrementedPrimaryKey("id")
                    t.column("name", .text).notNull()
                    t.column("score", .integer)
                    t.column("extra", .any)
                }
            }
            XCTAssertEqual(
                sql,
                #"CREATE TABLE "player" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "name" TEXT NOT NULL, "#
                    + #""score" INTEGER, "extra" ANY) STRICT"#)
            try db.execute(sql: "INSERT INTO player(name, score, extra) VALUES ('Ada', '12', '12')")
            let row = try Row.fetchOne(db, sql: "SELECT typeof(score), typeof(extra) FROM player")
            XCTAssertEqual(row, ["typeof(score)": "integer", "typeof(extra)": "text"])
            XCTAssertThrowsError(try db.execute(sql: "INSERT INTO player(name, score) VALUES ('Bo', 'many')")) {
                error in
                XCTAssertEqual((error as? DatabaseError)?.extendedResultCode, .SQLITE_CONSTRAINT_DATATYPE)
                XCTAssertEqual(
                    (error as? DatabaseError)?.message, "cannot store TEXT value in INTEGER column player.score")
            }
        }
    }

    func testPrimaryKeys() throws {
        try DatabaseQueue().inDatabase { db in
            var sql = try lastSQL(db) {
                try db.create(table: "a") { t in t.autoIncrementedPrimaryKey("id", onConflict: .replace) }
            }
            XCTAssertEqual(sql, #"CREATE TABLE "a" ("id" INTEGER PRIMARY KEY ON CONFLICT REPLACE AUTOINCREMENT)"#)
            sql = try lastSQL(db) {
                try db.create(table: "b") { t in t.primaryKey("uuid", .text, onConflict: .ignore) }
            }
            XCTAssertEqual(sql, #"CREATE TABLE "b" ("uuid" TEXT PRIMARY KEY ON CONFLICT IGNORE NOT NULL)"#)
            sql = try lastSQL(db) {
                try db.create(table: "c") { t in
                    t.primaryKey(["x", "y"], onConflict: .fail)
                    t.column("x", .text)
                    t.column("y", .text)
                }
            }
            XCTAssertEqual(sql, #"CREATE TABLE "c" ("x" TEXT, "y" TEXT, PRIMARY KEY ("x", "y") ON CONFLICT FAIL)"#)
            sql = try lastSQL(db) {
                try db.create(table: "d") { t in
                    t.column("regular")
                    t.primaryKey {
                        t.column("x", .text).defaults(to: "O'Reilly")
                        t.column("y", .text)
                    }
                }
            }
            XCTAssertEqual(
                sql,
                #"CREATE TABLE "d" ("regular", "x" TEXT NOT NULL DEFAULT 'O''Reilly', "y" TEXT NOT NULL, PRIMARY KEY ("x", "y"))"#
            )
            XCTAssertEqual(try db.primaryKey("d").columns, ["x", "y"])
        }
    }

    func testColumnConstraints() throws {
        try DatabaseQueue().inDatabase { db in
            let sql = try lastSQL(db) {
                try db.create(table: "test") { t in
                    t.column("a", .integer).notNull()
                    t.column("b", .text).notNull(onConflict: .ignore).unique()
                    t.column("c", .text).unique(onConflict: .replace).collate(.nocase)
                    t.column("d", .integer).check(sql: "d > 0").check(sql: "d < 10")
                    t.column("e", .datetime).defaults(sql: "CURRENT_TIMESTAMP")
                    t.column("f", .text).collate(.rtrim)
                    t.column("g", .blob).defaults(to: Data("foo".utf8))
                    t.column("h", .double).defaults(to: 1.0)
                    t.column("i", .boolean).defaults(to: false)
                    t.column("j").defaults(to: String?.none)
                }
            }
            XCTAssertEqual(
                sql,
                """
                CREATE TABLE "test" (\
                "a" INTEGER NOT NULL, \
                "b" TEXT NOT NULL ON CONFLICT IGNORE UNIQUE, \
                "c" TEXT UNIQUE ON CONFLICT REPLACE COLLATE NOCASE, \
                "d" INTEGER CHECK (d > 0) CHECK (d < 10), \
                "e" DATETIME DEFAULT CURRENT_TIMESTAMP, \
                "f" TEXT COLLATE RTRIM, \
                "g" BLOB DEFAULT X'666F6F', \
                "h" DOUBLE DEFAULT 1.0, \
                "i" BOOLEAN DEFAULT 0, \
                "j" DEFAULT NULL\
                )
                """)
            try db.execute(sql: "INSERT INTO test (a, b, c, d) VALUES (1, 'x', 'y', 5)")
            XCTAssertThrowsError(try db.execute(sql: "INSERT INTO test (a, b, c, d) VALUES (1, 'z', 'w', 50)")) {
                XCTAssertEqual(($0 as? DatabaseError)?.resultCode, .SQLITE_CONSTRAINT)
            }
            XCTAssertThrowsError(try db.execute(sql: "INSERT INTO test (b, c, d) VALUES ('z', 'w', 5)")) {
                XCTAssertEqual(($0 as? DatabaseError)?.resultCode, .SQLITE_CONSTRAINT)
            }
            let row = try XCTUnwrap(Row.fetchOne(db, sql: "SELECT g, h, i, j FROM test"))
            XCTAssertEqual(row["g"] as Data?, Data("foo".utf8))
            XCTAssertEqual(row["h"] as Double?, 1.0)
            XCTAssertEqual(row["i"] as Bool?, false)
            XCTAssertTrue(row.hasNull(atIndex: 3))
        }
    }

    func testDefaultsEscapeText() throws {
        try DatabaseQueue().inDatabase { db in
            try db.create(table: "test") { t in
                t.column("a", .text).defaults(to: "'fooéı👨🇫🇷'")
                t.column("b", .integer).defaults(to: -12)
            }
            try db.execute(sql: "INSERT INTO test DEFAULT VALUES")
            let row = try XCTUnwrap(Row.fetchOne(db, sql: "SELECT a, b FROM test"))
            XCTAssertEqual(row["a"] as String?, "'fooéı👨🇫🇷'")
            XCTAssertEqual(row["b"] as Int?, -12)
        }
    }

    func testReferences() throws {
        try DatabaseQueue().inDatabase { db in
            try db.create(table: "parent") { t in
                t.primaryKey("name", .text)
                t.column("email", .text).unique()
            }
            try db.create(table: "pkless") { t in t.column("email", .text) }
            let sql = try lastSQL(db) {
                try db.create(table: "child") { t in
                    t.autoIncrementedPrimaryKey("id")
                    t.column("parentName", .text).references("parent", onDelete: .cascade, onUpdate: .cascade)
                    t.column("parentEmail", .text).references(
                        "parent", column: "email", onDelete: .restrict, deferred: true)
                    t.column("pklessRowId", .integer).references("pkless", onDelete: .setNull)
                    t.column("childId", .integer).references("child", onDelete: .setDefault)
                }
            }
            XCTAssertEqual(
                sql,
                """
                CREATE TABLE "child" (\
                "id" INTEGER PRIMARY KEY AUTOINCREMENT, \
                "parentName" TEXT REFERENCES "parent"("name") ON DELETE CASCADE ON UPDATE CASCADE, \
                "parentEmail" TEXT REFERENCES "parent"("email") ON DELETE RESTRICT DEFERRABLE INITIALLY DEFERRED, \
                "pklessRowId" INTEGER REFERENCES "pkless"("rowid") ON DELETE SET NULL, \
                "childId" INTEGER REFERENCES "child"("id") ON DELETE SET DEFAULT\
                )
                """)
            XCTAssertThrowsError(
                try db.create(table: "orphan") { t in t.column("x").references("missing") }
            ) { error in
                XCTAssertEqual((error as? DatabaseError)?.message, "no such table: missing")
            }
        }
    }

    func testTableConstraints() throws {
        try DatabaseQueue().inDatabase { db in
            try db.create(table: "parent") { t in
                t.primaryKey {
                    t.column("a", .text)
                    t.column("b", .text)
                }
            }
            let sql = try lastSQL(db) {
                try db.create(table: "child") { t in
                    t.column("c", .text)
                    t.column("d", .text)
                    t.column("e", .text)
                    t.column(sql: "f TEXT")
                    t.column(literal: "g TEXT DEFAULT \("O'Brien".databaseValue)")
                    t.uniqueKey(["c"])
                    t.uniqueKey(["d", "e"], onConflict: .fail)
                    t.foreignKey(["c", "d"], references: "parent", onDelete: .cascade, onUpdate: .cascade)
                    t.foreignKey(["d", "e"], references: "parent", columns: ["b", "a"], deferred: true)
                    t.check(sql: "c <> d")
                    t.constraint(sql: "CHECK (d <> e)")
                    t.constraint(literal: "CHECK (e <> \("x".databaseValue))")
                }
            }
            XCTAssertEqual(
                sql,
                """
                CREATE TABLE "child" (\
                "c" TEXT, "d" TEXT, "e" TEXT, f TEXT, g TEXT DEFAULT 'O''Brien', \
                UNIQUE ("c"), \
                UNIQUE ("d", "e") ON CONFLICT FAIL, \
                FOREIGN KEY ("c", "d") REFERENCES "parent"("a", "b") ON DELETE CASCADE ON UPDATE CASCADE, \
                FOREIGN KEY ("d", "e") REFERENCES "parent"("b", "a") DEFERRABLE INITIALLY DEFERRED, \
                CHECK (c <> d), \
                CHECK (d <> e), \
                CHECK (e <> 'x')\
                )
                """)
            XCTAssertThrowsError(try db.execute(sql: "INSERT INTO child (c, d, e) VALUES ('a', 'a', 'b')")) {
                XCTAssertEqual(($0 as? DatabaseError)?.resultCode, .SQLITE_CONSTRAINT)
            }
            XCTAssertThrowsError(try db.execute(sql: "INSERT INTO child (c, d, e) VALUES ('a', 'b', 'x')")) {
                XCTAssertEqual(($0 as? DatabaseError)?.resultCode, .SQLITE_CONSTRAINT)
            }
        }
    }

    func testIndexedColumns() throws {
        try DatabaseQueue().inDatabase { db in
            let queries = try sqlQueries(db) {
                try db.create(table: "test") { t in
                    t.column("a", .integer).indexed()
                    t.column("b", .integer).unique().indexed()
                    t.column("c", .integer).indexed()
                }
            }
            XCTAssertEqual(
                queries,
                [
                    #"CREATE TABLE "test" ("a" INTEGER, "b" INTEGER UNIQUE, "c" INTEGER)"#,
                    #"CREATE INDEX "test_on_a" ON "test"("a")"#,
                    #"CREATE INDEX "test_on_c" ON "test"("c")"#,
                ])
            XCTAssertTrue(try db.indexes(on: "test").contains { $0.name == "test_on_c" })
        }
    }

    func testCreateIndex() throws {
        try DatabaseQueue().inDatabase { db in
            try db.create(table: "test") { t in
                t.primaryKey("id", .integer)
                t.column("a", .text)
                t.column("b", .text)
            }
            var sql = try lastSQL(db) {
                try db.create(index: "test_on_a", on: "test", columns: ["a"])
            }
            XCTAssertEqual(sql, #"CREATE INDEX "test_on_a" ON "test"("a")"#)
            sql = try lastSQL(db) {
                try db.create(
                    index: "test_on_a_b", on: "test", columns: ["a", "b"], options: [.unique, .ifNotExists],
                    condition: "a = \(1)" as SQL)
            }
            XCTAssertEqual(sql, #"CREATE UNIQUE INDEX IF NOT EXISTS "test_on_a_b" ON "test"("a", "b") WHERE a = 1"#)
            sql = try lastSQL(db) {
                try db.create(index: "test_on_b", on: "test", columns: ["b"], unique: true, ifNotExists: true)
            }
            XCTAssertEqual(sql, #"CREATE UNIQUE INDEX IF NOT EXISTS "test_on_b" ON "test"("b")"#)
            sql = try lastSQL(db) {
                try db.create(indexOn: "test", columns: ["a", "b"])
            }
            XCTAssertEqual(sql, #"CREATE INDEX "index_test_on_a_b" ON "test"("a", "b")"#)
            XCTAssertEqual(
                Set(try db.indexes(on: "test").map(\.name)),
                ["test_on_a", "test_on_a_b", "test_on_b", "index_test_on_a_b"])
            XCTAssertThrowsError(try db.create(index: "test_on_a", on: "test", columns: ["a"]))
        }
    }

    func testDropIndex() throws {
        try DatabaseQueue().inDatabase { db in
            try db.create(table: "test") { t in
                t.column("a", .text)
                t.column("b", .text)
            }
            try db.create(indexOn: "test", columns: ["a", "b"])
            try db.create(index: "single", on: "test", columns: ["b"])
            let sql = try lastSQL(db) { try db.drop(indexOn: "test", columns: ["A", "B"]) }
            XCTAssertEqual(sql, #"DROP INDEX "index_test_on_a_b""#)
            try db.drop(indexOn: "test", columns: ["a"])  // no such index: nothing happens
            XCTAssertEqual(try db.indexes(on: "test").map(\.name), ["single"])
            XCTAssertEqual(try lastSQL(db) { try db.drop(index: "single") }, #"DROP INDEX "single""#)
            XCTAssertTrue(try db.indexes(on: "test").isEmpty)
            XCTAssertThrowsError(try db.drop(index: "single"))
        }
    }

    func testRenameAndDropTable() throws {
        try DatabaseQueue().inDatabase { db in
            try db.create(table: "test") { t in t.column("a", .text) }
            XCTAssertEqual(
                try lastSQL(db) { try db.rename(table: "test", to: "foo") }, #"ALTER TABLE "test" RENAME TO "foo""#)
            XCTAssertFalse(try db.tableExists("test"))
            XCTAssertTrue(try db.tableExists("foo"))
            XCTAssertEqual(try lastSQL(db) { try db.drop(table: "foo") }, #"DROP TABLE "foo""#)
            XCTAssertFalse(try db.tableExists("foo"))
            XCTAssertThrowsError(try db.drop(table: "foo"))
        }
    }

    func testAlterTable() throws {
        try DatabaseQueue().inDatabase { db in
            try db.create(table: "alt") { t in t.column("a", .text) }
            try db.create(table: "test") { t in t.column("a", .text) }
            let queries = try sqlQueries(db) {
                try db.alter(table: "test") { t in
                    t.add(column: "b", .text)
                    t.add(column: "c", .integer).notNull().defaults(to: 1)
                    t.add(column: "d", .text).references("alt")
                    t.add(column: "e")
                    t.add(column: "f", .integer).indexed()
                    t.addColumn(sql: "g TEXT")
                    t.addColumn(literal: "h TEXT DEFAULT \("O'Brien".databaseValue)")
                }
            }
            // The reference to "alt" first reads its primary key.
            XCTAssertEqual(
                Array(queries.suffix(8)),
                [
                    #"ALTER TABLE "test" ADD COLUMN "b" TEXT"#,
                    #"ALTER TABLE "test" ADD COLUMN "c" INTEGER NOT NULL DEFAULT 1"#,
                    #"ALTER TABLE "test" ADD COLUMN "d" TEXT REFERENCES "alt"("rowid")"#,
                    #"ALTER TABLE "test" ADD COLUMN "e""#,
                    #"ALTER TABLE "test" ADD COLUMN "f" INTEGER"#,
                    #"CREATE INDEX "test_on_f" ON "test"("f")"#,
                    #"ALTER TABLE "test" ADD COLUMN g TEXT"#,
                    #"ALTER TABLE "test" ADD COLUMN h TEXT DEFAULT 'O''Brien'"#,
                ])
            XCTAssertEqual(try db.columns(in: "test").map(\.name), ["a", "b", "c", "d", "e", "f", "g", "h"])
        }
    }

    func testRenameColumn() throws {
        try DatabaseQueue().inDatabase { db in
            try db.create(table: "test") { t in
                t.column("a", .text)
                t.column("b", .text)
            }
            try db.execute(sql: "INSERT INTO test (a, b) VALUES ('x', 'y')")
            let queries = try sqlQueries(db) {
                try db.alter(table: "test") { t in
                    t.rename(column: "a", to: "z")
                    t.add(column: "c")
                    t.rename(column: "c", to: "d")
                }
            }
            XCTAssertEqual(
                queries,
                [
                    #"ALTER TABLE "test" RENAME COLUMN "a" TO "z""#, #"ALTER TABLE "test" ADD COLUMN "c""#,
                    #"ALTER TABLE "test" RENAME COLUMN "c" TO "d""#,
                ])
            XCTAssertEqual(try db.columns(in: "test").map(\.name), ["z", "b", "d"])
            XCTAssertEqual(try String.fetchAll(db, sql: "SELECT z FROM test"), ["x"])
            XCTAssertThrowsError(try db.alter(table: "test") { t in t.rename(column: "nope", to: "x") })
        }
    }

    func testDropColumn() throws {
        try DatabaseQueue().inDatabase { db in
            try db.create(table: "test") { t in
                t.column("a", .text)
                t.column("b", .text)
                t.column("c", .integer).indexed()
            }
            try db.execute(sql: "INSERT INTO test VALUES ('x', 'y', 1)")
            var queries: [String] = []
            db.trace { queries.append($0.description) }
            try db.alter(table: "test") { t in t.drop(column: "b") }
            db.trace(nil)
            XCTAssertEqual(queries, [#"ALTER TABLE "test" DROP COLUMN "b""#])
            XCTAssertEqual(try db.columns(in: "test").map(\.name), ["a", "c"])
            XCTAssertEqual(try Row.fetchOne(db, sql: "SELECT * FROM test"), ["a": "x", "c": 1])
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT c FROM test WHERE c = 1"), 1)
            // An indexed column cannot be dropped (SQLite's message).
            XCTAssertThrowsError(try db.alter(table: "test") { t in t.drop(column: "c") }) { error in
                XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_ERROR)
                XCTAssertEqual(
                    (error as? DatabaseError)?.message, "error in index test_on_c after drop column: no such column: c")
            }
        }
    }

    func testColumnTypes() {
        XCTAssertEqual(Database.ColumnType.text.rawValue, "TEXT")
        XCTAssertEqual(Database.ColumnType.jsonText.rawValue, "TEXT")
        XCTAssertEqual(Database.ColumnType.jsonb.rawValue, "BLOB")
        XCTAssertEqual(Database.ColumnType.integer.rawValue, "INTEGER")
        XCTAssertEqual(Database.ColumnType.double.rawValue, "DOUBLE")
        XCTAssertEqual(Database.ColumnType.real.rawValue, "REAL")
        XCTAssertEqual(Database.ColumnType.numeric.rawValue, "NUMERIC")
        XCTAssertEqual(Database.ColumnType.boolean.rawValue, "BOOLEAN")
        XCTAssertEqual(Database.ColumnType.blob.rawValue, "BLOB")
        XCTAssertEqual(Database.ColumnType.date.rawValue, "DATE")
        XCTAssertEqual(Database.ColumnType.datetime.rawValue, "DATETIME")
        XCTAssertEqual(Database.ColumnType.any.rawValue, "ANY")
        XCTAssertEqual(Database.ColumnType(rawValue: "VARCHAR(10)").rawValue, "VARCHAR(10)")
        XCTAssertEqual(Database.CollationName.binary.rawValue, "BINARY")
        XCTAssertEqual(Database.CollationName.nocase.rawValue, "NOCASE")
        XCTAssertEqual(Database.CollationName.rtrim.rawValue, "RTRIM")
    }

    func testCollationBehaviour() throws {
        try DatabaseQueue().inDatabase { db in
            try db.create(table: "test") { t in t.column("name", .text).unique().collate(.nocase) }
            try db.execute(sql: "INSERT INTO test (name) VALUES ('Arthur')")
            XCTAssertThrowsError(try db.execute(sql: "INSERT INTO test (name) VALUES ('ARTHUR')"))
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM test WHERE name = 'arthur'"), 1)
        }
    }
}
