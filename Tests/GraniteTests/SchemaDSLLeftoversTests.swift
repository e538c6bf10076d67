import Granite
import XCTest

/// The schema DSL pieces of GRDB 7.10: foreign keys built by `belongsTo`, check closures, generated columns,
/// views and expression indexes. Each test asserts the SQL GRDB writes, then what the engine does with it.
final class SchemaDSLLeftoversTests: XCTestCase {
    /// The SQL of the schema statements `body` runs on `db` (leaving out the schema queries that build them).
    private func statements(_ db: Database, _ body: () throws -> Void) rethrows -> [String] {
        var sql: [String] = []
        db.trace { event in
            guard case .statement(let statement) = event else { return }
            if ["CREATE", "ALTER", "DROP"].contains(where: statement.sql.hasPrefix) { sql.append(statement.sql) }
        }
        defer { db.trace(nil) }
        try body()
        return sql
    }

    /// The error `body` throws, failing the test when it throws none.
    private func databaseError(_ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line)
        -> DatabaseError?
    {
        do {
            try body()
            XCTFail("expected a DatabaseError", file: file, line: line)
        } catch let error as DatabaseError {
            return error
        } catch {
            XCTFail("expected a DatabaseError, got \(error)", file: file, line: line)
        }
        return nil
    }

    // MARK: belongsTo

    func testBelongsToSingleColumnPrimaryKeys() throws {
        try DatabaseQueue().inDatabase { db in
            try db.create(table: "team") { t in t.autoIncrementedPrimaryKey("id") }
            try db.create(table: "countries") { t in t.primaryKey("code", .text) }
            let sql = try statements(db) {
                try db.create(table: "player") { t in
                    t.autoIncrementedPrimaryKey("id")
                    t.belongsTo("team", onDelete: .cascade).notNull()
                    t.belongsTo("country", onUpdate: .setNull, deferred: true).unique()
                    t.belongsTo("coach", inTable: "team", indexed: false)
                    t.column("name", .text)
                }
            }
            XCTAssertEqual(
                sql,
                [
                    #"CREATE TABLE "player" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "#
                        + #""teamId" INTEGER NOT NULL REFERENCES "team"("id") ON DELETE CASCADE, "#
                        + #""countryCode" TEXT UNIQUE REFERENCES "countries"("code") ON UPDATE SET NULL "#
                        + #"DEFERRABLE INITIALLY DEFERRED, "#
                        + #""coachId" INTEGER REFERENCES "team"("id"), "name" TEXT)"#,
                    #"CREATE INDEX "player_on_teamId" ON "player"("teamId")"#,
                ])
            let foreignKeys = try db.foreignKeys(on: "player")
            XCTAssertEqual(foreignKeys.map(\.destinationTable).sorted(), ["countries", "team", "team"])
            XCTAssertEqual(try db.indexes(on: "player").map(\.name).contains("player_on_teamId"), true)
            XCTAssertEqual(
                try db.columns(in: "player").map(\.name), ["id", "teamId", "countryCode", "coachId", "name"])

            try db.execute(sql: "INSERT INTO team (id) VALUES (1)")
            try db.execute(sql: "INSERT INTO countries (code) VALUES ('FR')")
            try db.execute(sql: "INSERT INTO player (teamId, countryCode) VALUES (1, 'FR')")
            let duplicate = databaseError {
                try db.execute(sql: "INSERT INTO player (teamId, countryCode) VALUES (1, 'FR')")
            }
            XCTAssertEqual(duplicate?.resultCode, .SQLITE_CONSTRAINT)
            let missingTeam = databaseError { try db.execute(sql: "INSERT INTO player (teamId) VALUES (NULL)") }
            XCTAssertEqual(missingTeam?.extendedResultCode, .SQLITE_CONSTRAINT_NOTNULL)
        }
    }

    func testBelongsToHiddenRowIDAndLookupByPlural() throws {
        try DatabaseQueue().inDatabase { db in
            try db.create(table: "parent") { t in t.column("name", .text) }
            try db.create(table: "people") { t in t.column("name", .text) }
            let sql = try statements(db) {
                try db.create(table: "child") { t in
                    t.belongsTo("PARENT")
                    t.belongsTo("person")
                }
            }
            XCTAssertEqual(
                sql,
                [
                    #"CREATE TABLE "child" ("PARENTId" INTEGER REFERENCES "PARENT"("rowid"), "#
                        + #""personId" INTEGER REFERENCES "people"("rowid"))"#,
                    #"CREATE INDEX "child_on_PARENTId" ON "child"("PARENTId")"#,
                    #"CREATE INDEX "child_on_personId" ON "child"("personId")"#,
                ])
            XCTAssertTrue(try db.tableExists("child"))
        }
    }

    func testBelongsToCompositePrimaryKey() throws {
        try DatabaseQueue().inDatabase { db in
            try db.create(table: "citizenship") { t in
                t.primaryKey {
                    t.column("country", .text)
                    t.column("number", .integer)
                }
            }
            let sql = try statements(db) {
                try db.create(table: "passport", options: .ifNotExists) { t in
                    t.column("issued", .date).indexed()
                    t.belongsTo("citizenship", onDelete: .cascade).notNull()
                    t.belongsTo("formerCitizenship", inTable: "citizenship").unique()
                }
            }
            XCTAssertEqual(
                sql,
                [
                    #"CREATE TABLE IF NOT EXISTS "passport" ("issued" DATE, "#
                        + #""citizenshipCountry" TEXT NOT NULL, "citizenshipNumber" INTEGER NOT NULL, "#
                        + #""formerCitizenshipCountry" TEXT, "formerCitizenshipNumber" INTEGER, "#
                        + #"FOREIGN KEY ("citizenshipCountry", "citizenshipNumber") REFERENCES "#
                        + #""citizenship"("country", "number") ON DELETE CASCADE, "#
                        + #"FOREIGN KEY ("formerCitizenshipCountry", "formerCitizenshipNumber") REFERENCES "#
                        + #""citizenship"("country", "number"))"#,
                    #"CREATE INDEX IF NOT EXISTS "index_passport_on_citizenshipCountry_citizenshipNumber" "#
                        + #"ON "passport"("citizenshipCountry", "citizenshipNumber")"#,
                    #"CREATE UNIQUE INDEX IF NOT EXISTS "#
                        + #""index_passport_on_formerCitizenshipCountry_formerCitizenshipNumber" "#
                        + #"ON "passport"("formerCitizenshipCountry", "formerCitizenshipNumber")"#,
                    #"CREATE INDEX IF NOT EXISTS "passport_on_issued" ON "passport"("issued")"#,
                ])
            let uniqueIndex = try db.indexes(on: "passport").first {
                $0.columns == ["formerCitizenshipCountry", "formerCitizenshipNumber"]
            }
            XCTAssertEqual(uniqueIndex?.isUnique, true)
        }
    }

    func testBelongsToTheTableItself() throws {
        try DatabaseQueue().inDatabase { db in
            let sql = try statements(db) {
                try db.create(table: "employees") { t in
                    t.primaryKey("badge", .text)
                    t.belongsTo("employee")
                    t.belongsTo("manager", inTable: "employees", onDelete: .setNull)
                }
            }
            XCTAssertEqual(
                sql,
                [
                    #"CREATE TABLE "employees" ("badge" TEXT PRIMARY KEY NOT NULL, "#
                        + #""employeeBadge" TEXT REFERENCES "employees"("badge"), "#
                        + #""managerBadge" TEXT REFERENCES "employees"("badge") ON DELETE SET NULL)"#,
                    #"CREATE INDEX "employees_on_employeeBadge" ON "employees"("employeeBadge")"#,
                    #"CREATE INDEX "employees_on_managerBadge" ON "employees"("managerBadge")"#,
                ])

            // Without a declared primary key, the foreign key refers to the hidden rowid.
            let rowidSQL = try statements(db) {
                try db.create(table: "node") { t in t.belongsTo("parent", inTable: "node", indexed: false) }
            }
            XCTAssertEqual(rowidSQL, [#"CREATE TABLE "node" ("parentId" INTEGER REFERENCES "node"("rowid"))"#])
        }
    }

    func testBelongsToInPrimaryKey() throws {
        try DatabaseQueue().inDatabase { db in
            try db.create(table: "book") { t in t.autoIncrementedPrimaryKey("id") }
            try db.create(table: "shelf") { t in
                t.primaryKey {
                    t.column("room", .text)
                    t.column("rank", .integer)
                }
            }
            let sql = try statements(db) {
                try db.create(table: "placement") { t in
                    t.primaryKey {
                        t.belongsTo("shelf")
                        t.belongsTo("book")
                        t.column("position", .integer)
                    }
                    t.column("note", .text)
                }
            }
            XCTAssertEqual(
                sql,
                [
                    #"CREATE TABLE "placement" ("shelfRoom" TEXT NOT NULL, "shelfRank" INTEGER NOT NULL, "#
                        + #""bookId" INTEGER NOT NULL REFERENCES "book"("id"), "position" INTEGER NOT NULL, "#
                        + #""note" TEXT, PRIMARY KEY ("shelfRoom", "shelfRank", "bookId", "position"), "#
                        + #"FOREIGN KEY ("shelfRoom", "shelfRank") REFERENCES "shelf"("room", "rank"))"#
                ])
            XCTAssertEqual(try db.primaryKey("placement").columns, ["shelfRoom", "shelfRank", "bookId", "position"])
        }
    }

    func testBelongsToUnknownTable() throws {
        try DatabaseQueue().inDatabase { db in
            let error = databaseError {
                try db.create(table: "player") { t in t.belongsTo("team") }
            }
            XCTAssertEqual(error?.resultCode, .SQLITE_ERROR)
            XCTAssertEqual(error?.message, "no such table: team")
            XCTAssertFalse(try db.tableExists("player"))

            // A primary key cannot refer to itself: the table does not exist yet.
            let circular = databaseError {
                try db.create(table: "node") { t in t.primaryKey { t.belongsTo("node") } }
            }
            XCTAssertEqual(circular?.message, "no such table: node")
        }
    }

    // MARK: Checks

    func testColumnCheckClosures() throws {
        try DatabaseQueue().inDatabase { db in
            let sql = try statements(db) {
                try db.create(table: "score") { t in
                    t.column("points", .integer).check { $0 >= 0 }.check { $0 < 1000 }
                    t.column("label", .text).check { length($0) > 0 }
                    t.column("bonus", .integer).check { $0 <= Column("points") }
                }
            }
            XCTAssertEqual(
                sql,
                [
                    #"CREATE TABLE "score" ("points" INTEGER CHECK ("points" >= 0) CHECK ("points" < 1000), "#
                        + #""label" TEXT CHECK (LENGTH("label") > 0), "bonus" INTEGER CHECK ("bonus" <= "points"))"#
                ])
            try db.execute(sql: "INSERT INTO score (points, label, bonus) VALUES (10, 'a', 1)")
            let negative = databaseError { try db.execute(sql: "INSERT INTO score (points) VALUES (-1)") }
            XCTAssertEqual(negative?.extendedResultCode, .SQLITE_CONSTRAINT_CHECK)
            let empty = databaseError { try db.execute(sql: "INSERT INTO score (label) VALUES ('')") }
            XCTAssertEqual(empty?.extendedResultCode, .SQLITE_CONSTRAINT_CHECK)
        }
    }

    func testTableCheckExpression() throws {
        try DatabaseQueue().inDatabase { db in
            let sql = try statements(db) {
                try db.create(table: "contact") { t in
                    t.check(Column("phone") != nil || Column("email") != nil)
                    t.check(Column("name") != "O'Brien")
                    t.column("name", .text)
                    t.column("phone", .text)
                    t.column("email", .text)
                }
            }
            XCTAssertEqual(
                sql,
                [
                    #"CREATE TABLE "contact" ("name" TEXT, "phone" TEXT, "email" TEXT, "#
                        + #"CHECK (("phone" IS NOT NULL) OR ("email" IS NOT NULL)), CHECK ("name" <> 'O''Brien'))"#
                ])
            try db.execute(sql: "INSERT INTO contact (phone) VALUES ('555')")
            let neither = databaseError { try db.execute(sql: "INSERT INTO contact (name) VALUES ('Arthur')") }
            XCTAssertEqual(neither?.extendedResultCode, .SQLITE_CONSTRAINT_CHECK)
            let forbidden = databaseError {
                try db.execute(sql: "INSERT INTO contact (name, email) VALUES ('O''Brien', 'a@b')")
            }
            XCTAssertEqual(forbidden?.extendedResultCode, .SQLITE_CONSTRAINT_CHECK)
        }
    }

    // MARK: Generated columns

    func testGeneratedColumns() throws {
        try DatabaseQueue().inDatabase { db in
            var statements: [String] = []
            db.trace { statements.append($0.description) }
            try db.create(table: "line") { t in
                t.column("price", .integer)
                t.column("quantity", .integer)
                t.column("total", .integer).generatedAs(sql: "price*quantity")
                t.column("doubled").generatedAs(Column("price") * 2, .stored)
                t.column("label").generatedAs("O'Brien", .virtual)
            }
            try db.create(table: "item") { t in t.column("price", .integer) }
            try db.execute(sql: "INSERT INTO item(price) VALUES (10)")
            try db.alter(table: "item") { t in t.add(column: "tax", .integer).generatedAs(sql: "price/5") }
            db.trace(nil)
            XCTAssertEqual(
                statements.first,
                #"CREATE TABLE "line" ("price" INTEGER, "quantity" INTEGER, "#
                    + #""total" INTEGER GENERATED ALWAYS AS (price*quantity) VIRTUAL, "#
                    + #""doubled" GENERATED ALWAYS AS ("price" * 2) STORED, "#
                    + #""label" GENERATED ALWAYS AS ('O''Brien') VIRTUAL)"#)
            XCTAssertEqual(
                statements.last, #"ALTER TABLE "item" ADD COLUMN "tax" INTEGER GENERATED ALWAYS AS (price/5) VIRTUAL"#)

            try db.execute(sql: "INSERT INTO line(price, quantity) VALUES (3, 4)")
            XCTAssertEqual(
                try Row.fetchOne(db, sql: "SELECT * FROM line"),
                ["price": 3, "quantity": 4, "total": 12, "doubled": 6, "label": "O'Brien"])
            try db.execute(sql: "UPDATE line SET quantity = 5")
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT total FROM line"), 15)
            // The row written before the column was added reads its computed value.
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT tax FROM item"), 2)
            // Generated columns take no value.
            let error = databaseError { try db.execute(sql: "UPDATE line SET total = 1") }
            XCTAssertEqual(error?.resultCode, .SQLITE_ERROR)
            XCTAssertEqual(error?.message, #"cannot UPDATE generated column "total""#)
        }
    }

    func testGeneratedColumnQualification() {
        XCTAssertNotEqual(ColumnDefinition.GeneratedColumnQualification.virtual, .stored)
        XCTAssertEqual(Set([ColumnDefinition.GeneratedColumnQualification.stored, .stored]).count, 1)
    }

    // MARK: Views

    func testCreateViewSQL() throws {
        try DatabaseQueue().inDatabase { db in
            try db.create(table: "player") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text)
            }
            func storedSQL() throws -> String? {
                try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'v'")
            }
            let literal: SQL = "SELECT * FROM player WHERE name = \("O'Brien")"
            try db.create(view: "v", asLiteral: literal)
            XCTAssertEqual(try storedSQL(), #"CREATE VIEW "v" AS SELECT * FROM player WHERE name = 'O''Brien'"#)
            try db.drop(view: "v")
            XCTAssertFalse(try db.viewExists("v"))
            // IF NOT EXISTS is not stored (as in SQLite); a second creation does nothing.
            try db.create(view: "v", options: .ifNotExists, columns: ["a", "b"], asLiteral: literal)
            try db.create(view: "v", options: .ifNotExists, asLiteral: "SELECT 1")
            XCTAssertEqual(
                try storedSQL(), #"CREATE VIEW "v" ("a", "b") AS SELECT * FROM player WHERE name = 'O''Brien'"#)
            try db.drop(view: "v")

            // A temporary view is stored in the temporary schema, without TEMPORARY (as in SQLite).
            let temporary: [(ViewOptions, [String]?, String)] = [
                (.temporary, nil, #"CREATE VIEW "v" AS SELECT * FROM player WHERE name = 'O''Brien'"#),
                (
                    [.temporary, .ifNotExists], ["a", "b"],
                    #"CREATE VIEW "v" ("a", "b") AS SELECT * FROM player WHERE name = 'O''Brien'"#
                ),
            ]
            for (options, columns, expectedSQL) in temporary {
                try db.create(view: "v", options: options, columns: columns, asLiteral: literal)
                XCTAssertEqual(
                    try String.fetchOne(db, sql: "SELECT sql FROM sqlite_temp_master WHERE name = 'v'"), expectedSQL)
                XCTAssertTrue(try db.viewExists("v"))
                XCTAssertTrue(try db.viewExists("v", in: "temp"))
                XCTAssertFalse(try db.viewExists("v", in: "main"))
                XCTAssertNil(try storedSQL())
                try db.drop(view: "v")
            }
            XCTAssertFalse(try db.viewExists("v"))

            let dropError = databaseError { try db.drop(view: "v") }
            XCTAssertEqual(dropError?.sql, #"DROP VIEW "v""#)
            XCTAssertEqual(dropError?.message, "no such view: v")
            XCTAssertEqual(dropError?.resultCode, .SQLITE_ERROR)
        }
    }

    func testCreateViewFromRequest() throws {
        try DatabaseQueue().inDatabase { db in
            try db.create(table: "player") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text)
                t.column("score", .integer)
            }
            try db.execute(
                sql: "INSERT INTO player(name, score) VALUES ('Arthur', 1500), ('Barbara', 800), ('Craig', 2000)")
            let request = Table("player").filter(Column("score") > 1000).order(Column("name"))
            try db.create(view: "best", columns: ["id", "name", "score"], as: request)
            XCTAssertEqual(
                try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'best'"),
                #"CREATE VIEW "best" ("id", "name", "score") AS SELECT * FROM "player" WHERE "score" > 1000 ORDER BY "name""#
            )
            XCTAssertEqual(try String.fetchAll(db, sql: "SELECT name FROM best"), ["Arthur", "Craig"])

            let sqlRequest = SQLRequest<Row>(sql: "SELECT name FROM player WHERE name = ?", arguments: ["O'Brien"])
            try db.create(view: "named", options: .ifNotExists, as: sqlRequest)
            XCTAssertEqual(
                try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'named'"),
                #"CREATE VIEW "named" AS SELECT name FROM player WHERE name = 'O''Brien'"#)
            XCTAssertEqual(try Row.fetchAll(db, sql: "SELECT * FROM named"), [])
        }
    }

    func testViewOptions() {
        var options: ViewOptions = [.temporary]
        XCTAssertFalse(options.contains(.ifNotExists))
        options.insert(.ifNotExists)
        XCTAssertEqual(options, [.ifNotExists, .temporary])
        XCTAssertNotEqual(ViewOptions.ifNotExists.rawValue, ViewOptions.temporary.rawValue)
        XCTAssertEqual(ViewOptions(rawValue: options.rawValue), options)
    }

    // MARK: Indexes

    func testIndexOnExpressions() throws {
        try DatabaseQueue().inDatabase { db in
            try db.create(table: "player") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text)
                t.column("score", .integer)
            }
            let sql = try statements(db) {
                try db.create(
                    index: "player_on_lower_name", on: "player",
                    expressions: [SQL(sql: "lower(name)"), Column("score")],
                    options: [.unique, .ifNotExists], condition: Column("score") > 10)
            }
            XCTAssertEqual(
                sql,
                [
                    #"CREATE UNIQUE INDEX IF NOT EXISTS "player_on_lower_name" ON "player"(lower(name), "score") "#
                        + #"WHERE "score" > 10"#
                ])
            try db.execute(sql: "INSERT INTO player (name, score) VALUES ('Arthur', 20), ('arthur', 5)")
            let duplicate = databaseError {
                try db.execute(sql: "INSERT INTO player (name, score) VALUES ('ARTHUR', 20)")
            }
            XCTAssertEqual(duplicate?.extendedResultCode, .SQLITE_CONSTRAINT_UNIQUE)
        }
    }

    func testIndexConditionExpression() throws {
        try DatabaseQueue().inDatabase { db in
            try db.create(table: "player") { t in
                t.column("email", .text)
                t.column("deleted", .boolean)
            }
            let sql = try statements(db) {
                try db.create(
                    index: "player_on_email", on: "player", columns: ["email"], options: .unique,
                    condition: !Column("deleted"))
                try db.create(indexOn: "player", columns: ["deleted"], condition: Column("email") != "")
            }
            XCTAssertEqual(
                sql,
                [
                    #"CREATE UNIQUE INDEX "player_on_email" ON "player"("email") WHERE NOT "deleted""#,
                    #"CREATE INDEX "index_player_on_deleted" ON "player"("deleted") WHERE "email" <> ''"#,
                ])
            try db.execute(sql: "INSERT INTO player (email, deleted) VALUES ('a', 1), ('a', 1), ('a', 0)")
            let duplicate = databaseError {
                try db.execute(sql: "INSERT INTO player (email, deleted) VALUES ('a', 0)")
            }
            XCTAssertEqual(duplicate?.extendedResultCode, .SQLITE_CONSTRAINT_UNIQUE)
        }
    }
}
