import Granite
import XCTest

private struct Player: FetchableRecord, Hashable {
    var id: Int64
    var name: String
    init(id: Int64, name: String) {
        self.id = id
        self.name = name
    }
    init(row: Row) {
        id = row["id"]
        name = row["name"]
    }
}

private struct Team: FetchableRecord, Equatable {
    var id: Int64?
    var name: String?
    init(id: Int64?, name: String?) {
        self.id = id
        self.name = name
    }
    init(row: Row) {
        id = row["id"]
        name = row["name"]
    }
}

private struct DecodableTeam: Decodable, FetchableRecord, Equatable {
    var id: Int64
    var name: String
}

private struct PlayerInfo: Decodable, FetchableRecord {
    var player: Player
    var team: DecodableTeam?
}

extension Player: Decodable {
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(Int64.self, forKey: .id), name: try container.decode(String.self, forKey: .name))
    }

    private enum CodingKeys: String, CodingKey {
        case id, name
    }
}

/// Asserts that `body` throws a `DatabaseError` with SQLITE_MISUSE and `message`.
private func assertMisuse(
    _ message: String, file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Void
) {
    XCTAssertThrowsError(try body(), file: file, line: line) { error in
        guard let error = error as? DatabaseError else {
            return XCTFail("not a DatabaseError: \(error)", file: file, line: line)
        }
        XCTAssertEqual(error.resultCode, .SQLITE_MISUSE, file: file, line: line)
        XCTAssertEqual(error.message, message, file: file, line: line)
    }
}

final class RowAdapterTests: XCTestCase {
    private func makeDatabase() throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE team (id INTEGER PRIMARY KEY, name TEXT);
                    CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL, teamId INTEGER);
                    INSERT INTO team VALUES (10, 'Reds'), (20, 'Blues');
                    INSERT INTO player VALUES (1, 'Arthur', 10), (2, 'Barbara', 20), (3, 'Craig', NULL);
                    """)
        }
        return dbQueue
    }

    private let joinSQL = """
        SELECT player.id, player.name, team.id, team.name FROM player LEFT JOIN team ON team.id = player.teamId \
        ORDER BY player.id
        """

    // MARK: Each adapter

    func testColumnMapping() throws {
        try DatabaseQueue().read { db in
            let adapter = ColumnMapping(["id": "playerId", "name": "PLAYERNAME"])
            let row = try XCTUnwrap(
                Row.fetchOne(db, sql: "SELECT 'x' AS other, 'Arthur' AS playerName, 1 AS playerId", adapter: adapter))
            // Columns come in the order of the columns they read, names are the mapping's keys.
            XCTAssertEqual(row.columnNames, ["name", "id"])
            XCTAssertEqual(row.count, 2)
            XCTAssertEqual(row["id"] as Int64, 1)
            XCTAssertEqual(row["NAME"] as String, "Arthur")
            XCTAssertNil(row["other"])
            XCTAssertFalse(row.hasColumn("playerId"))
            XCTAssertEqual(row, ["name": "Arthur", "id": 1])
            XCTAssertEqual(row.unadapted, ["other": "x", "playerName": "Arthur", "playerId": 1])
        }
    }

    func testSuffixAndRangeAdapters() throws {
        try DatabaseQueue().read { db in
            let sql = "SELECT 0 AS a, 1 AS b, 2 AS c, 3 AS d"
            XCTAssertEqual(
                try Row.fetchOne(db, sql: sql, adapter: SuffixRowAdapter(fromIndex: 2)), ["c": 2, "d": 3])
            XCTAssertEqual(try Row.fetchOne(db, sql: sql, adapter: SuffixRowAdapter(fromIndex: 4))?.count, 0)
            XCTAssertEqual(try Row.fetchOne(db, sql: sql, adapter: RangeRowAdapter(1..<3)), ["b": 1, "c": 2])
            XCTAssertEqual(try Row.fetchOne(db, sql: sql, adapter: RangeRowAdapter(1...3)), ["b": 1, "c": 2, "d": 3])
            XCTAssertEqual(try Row.fetchOne(db, sql: sql, adapter: RangeRowAdapter(2..<2))?.columnNames, [])
        }
    }

    func testEmptyAndRenameAdapters() throws {
        try DatabaseQueue().read { db in
            let empty = try XCTUnwrap(Row.fetchOne(db, sql: "SELECT 1 AS a, 2 AS b", adapter: EmptyRowAdapter()))
            XCTAssertTrue(empty.isEmpty)
            XCTAssertTrue(empty.scopes.isEmpty)
            XCTAssertEqual(empty.unadapted, ["a": 1, "b": 2])

            let rename = RenameColumnAdapter { $0.uppercased() + "_" }
            let row = try XCTUnwrap(Row.fetchOne(db, sql: "SELECT 1 AS a, 2 AS b", adapter: rename))
            XCTAssertEqual(row.columnNames, ["A_", "B_"])
            XCTAssertEqual(row["b_"] as Int, 2)
        }
    }

    func testSplittingRowAdapters() throws {
        try DatabaseQueue().read { db in
            let sql = "SELECT 1 AS a, 2 AS b, 3 AS c, 4 AS d, 5 AS e, 6 AS f"
            let adapters = splittingRowAdapters(columnCounts: [1, 3, 2])
            XCTAssertEqual(adapters.count, 4)
            let rows = try adapters.map { try XCTUnwrap(Row.fetchOne(db, sql: sql, adapter: $0)) }
            XCTAssertEqual(rows.map(\.columnNames), [["a"], ["b", "c", "d"], ["e", "f"], []])

            let identity = splittingRowAdapters(columnCounts: [])
            XCTAssertEqual(identity.count, 1)
            XCTAssertEqual(try Row.fetchOne(db, sql: sql, adapter: identity[0])?.count, 6)
        }
    }

    // MARK: Errors

    func testAdapterErrors() throws {
        try DatabaseQueue().read { db in
            let sql = "SELECT 1 AS a, 2 AS b"
            assertMisuse("Mapping references missing column c. Valid column names are: a, b.") {
                _ = try Row.fetchOne(db, sql: sql, adapter: ColumnMapping(["x": "c"]))
            }
            // Errors are thrown when the cursor is created, before the first step.
            assertMisuse("Mapping references missing column c. Valid column names are: a, b.") {
                _ = try Row.fetchCursor(db, sql: sql, adapter: ColumnMapping(["x": "c"]))
            }
            assertMisuse("Negative column index is out of range") {
                _ = try Row.fetchAll(db, sql: sql, adapter: SuffixRowAdapter(fromIndex: -1))
            }
            assertMisuse("Negative column index is out of range") {
                _ = try Row.fetchAll(db, sql: sql, adapter: RangeRowAdapter(-1..<1))
            }
            assertMisuse("Column range 1..<4 is out of range: the row has 2 columns") {
                _ = try Row.fetchAll(db, sql: sql, adapter: RangeRowAdapter(1...3))
            }
            assertMisuse("Column range 3..<3 is out of range: the row has 2 columns") {
                _ = try Row.fetchAll(db, sql: sql, adapter: SuffixRowAdapter(fromIndex: 3))
            }
            // A bad scope fails the whole adapter.
            assertMisuse("Mapping references missing column z. Valid column names are: a, b.") {
                _ = try Row.fetchAll(db, sql: sql, adapter: ScopeAdapter(["s": ColumnMapping(["z": "z"])]))
            }
            // An adapter without columns leaves value fetches no column to read.
            assertMisuse("statement returns no column") {
                _ = try Int.fetchOne(db, sql: sql, adapter: EmptyRowAdapter())
            }
            assertMisuse("statement returns no column") {
                _ = try String.fetchAll(db, sql: sql, adapter: EmptyRowAdapter())
            }
        }
    }

    // MARK: Scopes

    func testScopes() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.read { db in
            let adapter = ScopeAdapter(base: RangeRowAdapter(0..<2), scopes: ["team": SuffixRowAdapter(fromIndex: 2)])
            let rows = try Row.fetchAll(db, sql: joinSQL, adapter: adapter)
            XCTAssertEqual(rows.count, 3)
            let row = rows[0]
            // Scopes take part in equality.
            XCTAssertNotEqual(row, ["id": 1, "name": "Arthur"])
            XCTAssertEqual(row.unscoped, ["id": 1, "name": "Arthur"])
            XCTAssertEqual(row.columnNames, ["id", "name"])
            XCTAssertEqual(Array(row.scopes.names), ["team"])
            XCTAssertEqual(row.scopes.count, 1)
            XCTAssertEqual(row.scopes["team"], ["id": 10, "name": "Reds"])
            XCTAssertNil(row.scopes["TEAM"])
            XCTAssertNil(row.scopes["missing"])
            let (name, scopedRow) = row.scopes[row.scopes.startIndex]
            XCTAssertEqual(name, "team")
            XCTAssertEqual(scopedRow["name"] as String, "Reds")
            XCTAssertEqual(row.unadapted, ["id": 1, "name": "Arthur", "id": 10, "name": "Reds"])
            // A scope is adapted from the unadapted row, and has no scope of its own.
            XCTAssertEqual(scopedRow.unadapted, row.unadapted)
            XCTAssertTrue(scopedRow.scopes.isEmpty)

            let unscoped = row.unscoped
            XCTAssertEqual(unscoped.columnNames, ["id", "name"])
            XCTAssertTrue(unscoped.scopes.isEmpty)
            XCTAssertNotEqual(unscoped, row)
            XCTAssertEqual(unscoped.unadapted, row.unadapted)
            // Rows without scopes are their own unscoped and unadapted rows.
            XCTAssertTrue(unscoped.unscoped === unscoped)
            let plain = try XCTUnwrap(Row.fetchOne(db, sql: "SELECT 1 AS a"))
            XCTAssertTrue(plain.unadapted === plain)
            XCTAssertTrue(plain.unscoped === plain)
            XCTAssertTrue(plain.scopes.isEmpty)
            XCTAssertTrue(plain.scopesTree.names.isEmpty)
        }
    }

    func testAddingScopesAndScopeAdapterInits() throws {
        try DatabaseQueue().read { db in
            let sql = "SELECT 1 AS a, 2 AS b, 3 AS c"
            // ScopeAdapter(_:) keeps every column.
            let whole = try XCTUnwrap(Row.fetchOne(db, sql: sql, adapter: ScopeAdapter(["s": RangeRowAdapter(2..<3)])))
            XCTAssertEqual(whole.columnNames, ["a", "b", "c"])
            XCTAssertEqual(whole.scopes["s"], ["c": 3])

            // addingScopes keeps the base scopes, and replaces those of the same name.
            let base = ScopeAdapter(base: RangeRowAdapter(0..<1), scopes: ["x": RangeRowAdapter(1..<2)])
            let adapter = base.addingScopes(["y": SuffixRowAdapter(fromIndex: 2), "x": RangeRowAdapter(0..<1)])
            let row = try XCTUnwrap(Row.fetchOne(db, sql: sql, adapter: adapter))
            XCTAssertEqual(row.unscoped, ["a": 1])
            XCTAssertEqual(Set(row.scopes.names), ["x", "y"])
            XCTAssertEqual(row.scopes["x"], ["a": 1])
            XCTAssertEqual(row.scopes["y"], ["c": 3])

            // Adding no scope returns an adapter that behaves as the original.
            let same = RangeRowAdapter(1..<2).addingScopes([:])
            XCTAssertEqual(try Row.fetchOne(db, sql: sql, adapter: same), ["b": 2])
        }
    }

    func testNestedScopesAndScopesTree() throws {
        try DatabaseQueue().read { db in
            let sql = "SELECT 1 AS book, 2 AS author, 3 AS country, 4 AS publisher"
            let adapter = ScopeAdapter(
                base: RangeRowAdapter(0..<1),
                scopes: [
                    "author": ScopeAdapter(
                        base: RangeRowAdapter(1..<2),
                        scopes: [
                            "country": ScopeAdapter(base: RangeRowAdapter(2..<3), scopes: ["x": EmptyRowAdapter()])
                        ]),
                    "publisher": ScopeAdapter(
                        base: RangeRowAdapter(3..<4), scopes: ["country": RangeRowAdapter(0..<1)]),
                ])
            let row = try XCTUnwrap(Row.fetchOne(db, sql: sql, adapter: adapter))
            XCTAssertEqual(Set(row.scopes.names), ["author", "publisher"])
            XCTAssertNil(row.scopes["country"])
            XCTAssertEqual(row.scopesTree.names, ["author", "publisher", "country", "x"])
            XCTAssertEqual(row.scopesTree["author"]?["author"] as Int?, 2)
            // Both nested scopes named "country" are at depth 2: the breadth-first search returns one of them.
            let country = try XCTUnwrap(row.scopesTree["country"])
            XCTAssertTrue(
                country.unscoped == ["country": 3] || country == ["book": 1], "\(country.debugDescription)")
            XCTAssertEqual(row.scopes["author"]?.scopes["country"]?["country"] as Int?, 3)
            XCTAssertEqual(row.scopes["publisher"]?.scopes["country"], ["book": 1])
            XCTAssertEqual(try XCTUnwrap(row.scopesTree["x"]).count, 0)
            XCTAssertNil(row.scopesTree["missing"])
            // Nested scopes are adapted from the same unadapted row.
            XCTAssertEqual(row.scopes["author"]?.scopes["country"]?.unadapted.count, 4)
        }
    }

    func testShallowestScopeWinsInScopesTree() throws {
        try DatabaseQueue().read { db in
            let adapter = ScopeAdapter([
                "a": ScopeAdapter(base: RangeRowAdapter(0..<1), scopes: ["name": RangeRowAdapter(1..<2)]),
                "name": RangeRowAdapter(2..<3),
            ])
            let row = try XCTUnwrap(Row.fetchOne(db, sql: "SELECT 1 AS x, 2 AS y, 3 AS z", adapter: adapter))
            XCTAssertEqual(row.scopesTree["name"], ["z": 3])
        }
    }

    func testDebugDescriptionShowsScopes() throws {
        try DatabaseQueue().read { db in
            let adapter = ScopeAdapter(
                base: RangeRowAdapter(0..<1),
                scopes: ["b": ScopeAdapter(base: RangeRowAdapter(1..<2), scopes: ["c": SuffixRowAdapter(fromIndex: 2)])]
            )
            let row = try XCTUnwrap(Row.fetchOne(db, sql: "SELECT 1 AS a, 2 AS b, 3 AS c", adapter: adapter))
            XCTAssertEqual(row.description, "[a:1]")
            XCTAssertEqual(
                row.debugDescription,
                """
                ▿ [a:1]
                  unadapted: [a:1 b:2 c:3]
                  - b: [b:2]
                    - c: [c:3]
                """)
            let plain = try XCTUnwrap(Row.fetchOne(db, sql: "SELECT 1 AS a"))
            XCTAssertEqual(plain.debugDescription, "[a:1]")
        }
    }

    func testContainsNonNullValueLooksInScopes() throws {
        try DatabaseQueue().read { db in
            let adapter = ScopeAdapter(base: RangeRowAdapter(0..<1), scopes: ["s": SuffixRowAdapter(fromIndex: 1)])
            let row = try XCTUnwrap(Row.fetchOne(db, sql: "SELECT NULL AS a, 1 AS b", adapter: adapter))
            XCTAssertFalse(try XCTUnwrap(Row.fetchOne(db, sql: "SELECT NULL AS a")).containsNonNullValue)
            XCTAssertTrue(row.containsNonNullValue)
            XCTAssertFalse(row.unscoped.containsNonNullValue)
            let nulls = try XCTUnwrap(Row.fetchOne(db, sql: "SELECT NULL AS a, NULL AS b", adapter: adapter))
            XCTAssertFalse(nulls.containsNonNullValue)
        }
    }

    // MARK: Records from scopes

    func testDecodingRecordsFromScopes() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.read { db in
            let adapters = splittingRowAdapters(columnCounts: [2])
            let adapter = ScopeAdapter(["player": adapters[0], "team": adapters[1]])
            let rows = try Row.fetchAll(db, sql: joinSQL, adapter: adapter)

            let player: Player = rows[0]["player"]
            XCTAssertEqual(player, Player(id: 1, name: "Arthur"))
            XCTAssertEqual(try rows[1].decode(Team.self, forKey: "team"), Team(id: 20, name: "Blues"))
            XCTAssertEqual(try rows[1].decodeIfPresent(Team.self, forKey: "team"), Team(id: 20, name: "Blues"))
            let optionalTeam: Team? = rows[0]["team"]
            XCTAssertEqual(optionalTeam?.name, "Reds")

            // Craig has no team: the scope only contains NULLs.
            XCTAssertNil(try rows[2].decodeIfPresent(Team.self, forKey: "team"))
            let missingTeam: Team? = rows[2]["team"]
            XCTAssertNil(missingTeam)
            XCTAssertNil(try rows[2].decodeIfPresent(Team.self, forKey: "missing"))
            XCTAssertThrowsError(try rows[2].decode(Team.self, forKey: "team")) { error in
                XCTAssertTrue(error is RowDecodingError)
                XCTAssertTrue("\(error)".hasPrefix("scope \"team\" only contains null values"), "\(error)")
            }
            XCTAssertThrowsError(try rows[0].decode(Team.self, forKey: "missing")) { error in
                XCTAssertTrue(error is RowDecodingError)
                XCTAssertTrue(
                    "\(error)".hasPrefix(#"scope not found: "missing" - available scopes: ["player", "team"]"#),
                    "\(error)")
            }
            let unscoped = try XCTUnwrap(Row.fetchOne(db, sql: "SELECT 1 AS id"))
            XCTAssertThrowsError(try unscoped.decode(Team.self, forKey: "team")) { error in
                XCTAssertTrue("\(error)".hasPrefix(#"scope not found: "team" - row: [id:1]"#), "\(error)")
            }
        }
    }

    func testPrefetchedRowsAreEmptyWithoutAssociations() throws {
        try DatabaseQueue().read { db in
            let row = try XCTUnwrap(Row.fetchOne(db, sql: "SELECT 1 AS id"))
            XCTAssertTrue(row.prefetchedRows.isEmpty)
            XCTAssertEqual(row.prefetchedRows.keys, [])
            XCTAssertNil(row.prefetchedRows["players"])
            XCTAssertEqual(row.prefetchedRows, row.copy().prefetchedRows)
            XCTAssertThrowsError(try row.decode([Player].self, forKey: "players")) { error in
                XCTAssertTrue(error is RowDecodingError)
                XCTAssertTrue(
                    "\(error)".hasPrefix(#"key for prefetched rows not found: "players""#), "\(error)")
            }
        }
    }

    // MARK: Adapters on every fetch family

    func testRowFetchMethodsWithAdapter() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.read { db in
            let sql = "SELECT id, name FROM player ORDER BY id"
            let adapter = SuffixRowAdapter(fromIndex: 1)
            XCTAssertEqual(
                try Row.fetchAll(db, sql: sql, adapter: adapter).map { $0["name"] as String },
                [
                    "Arthur", "Barbara", "Craig",
                ])
            XCTAssertEqual(try Row.fetchOne(db, sql: sql, adapter: adapter), ["name": "Arthur"])
            XCTAssertEqual(try Row.fetchSet(db, sql: sql, adapter: adapter).count, 3)
            XCTAssertEqual(try Row.fetchCursor(db, sql: sql, adapter: adapter).map { $0.count }.reduce(0, +), 3)

            let statement = try db.makeStatement(sql: "SELECT id, name FROM player WHERE id > ? ORDER BY id")
            XCTAssertEqual(
                try Row.fetchAll(statement, arguments: [1], adapter: adapter), [["name": "Barbara"], ["name": "Craig"]])
            XCTAssertEqual(try Row.fetchOne(statement, arguments: [2], adapter: adapter), ["name": "Craig"])
            XCTAssertEqual(try Row.fetchSet(statement, arguments: [0], adapter: adapter).count, 3)
            let cursor = try Row.fetchCursor(statement, arguments: [0], adapter: adapter)
            XCTAssertEqual(try cursor.next()?["name"] as String?, "Arthur")
        }
    }

    func testCursorReusesTheAdaptedRow() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.read { db in
            let adapter = ScopeAdapter(base: RangeRowAdapter(0..<2), scopes: ["team": SuffixRowAdapter(fromIndex: 2)])
            let cursor = try Row.fetchCursor(db, sql: joinSQL, adapter: adapter)
            let first = try XCTUnwrap(cursor.next())
            let kept = first.copy()
            XCTAssertEqual(first.scopes["team"]?["name"] as String?, "Reds")
            let second = try XCTUnwrap(cursor.next())
            // The same instance shows the new values; the copy keeps the old ones, scopes included.
            XCTAssertTrue(first === second)
            XCTAssertEqual(second["name"] as String, "Barbara")
            XCTAssertEqual(second.scopes["team"]?["name"] as String?, "Blues")
            XCTAssertEqual(second.unadapted.count, 4)
            XCTAssertEqual(kept["name"] as String, "Arthur")
            XCTAssertEqual(kept.scopes["team"]?["name"] as String?, "Reds")
            XCTAssertEqual(kept.unadapted, ["id": 1, "name": "Arthur", "id": 10, "name": "Reds"])
            XCTAssertEqual(cursor.columnNames, ["id", "name", "id", "name"])
            XCTAssertEqual(cursor.columnCount, 4)
        }
    }

    func testAdaptedCursorRowsDecodeLikeStatementRows() throws {
        try DatabaseQueue().read { db in
            // Rows of a cursor convert with SQLite's column conversions; adapted ones too.
            let sql = "SELECT 'x', '12' AS n"
            let plain = try XCTUnwrap(Row.fetchCursor(db, sql: sql).next())
            let adapted = try XCTUnwrap(Row.fetchCursor(db, sql: sql, adapter: SuffixRowAdapter(fromIndex: 1)).next())
            XCTAssertEqual(try plain.decode(Int.self, forColumn: "n"), 12)
            XCTAssertEqual(try adapted.decode(Int.self, atIndex: 0), 12)
        }
    }

    func testValueFetchMethodsWithAdapter() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.read { db in
            let sql = "SELECT id, name FROM player ORDER BY id"
            let adapter = ColumnMapping(["value": "name"])
            // String and Int64 are StatementColumnConvertible: the fast path.
            XCTAssertEqual(try String.fetchAll(db, sql: sql, adapter: adapter), ["Arthur", "Barbara", "Craig"])
            XCTAssertEqual(try String.fetchOne(db, sql: sql, adapter: adapter), "Arthur")
            XCTAssertEqual(try String.fetchSet(db, sql: sql, adapter: adapter), ["Arthur", "Barbara", "Craig"])
            XCTAssertEqual(
                try Array(String.fetchCursor(db, sql: sql, adapter: adapter)), ["Arthur", "Barbara", "Craig"])
            // Optional and Row-less DatabaseValueConvertible types: the DatabaseValue path.
            XCTAssertEqual(try String?.fetchAll(db, sql: sql, adapter: adapter), ["Arthur", "Barbara", "Craig"])
            XCTAssertEqual(
                try DatabaseValue.fetchAll(db, sql: sql, adapter: adapter).map { String.fromDatabaseValue($0) },
                ["Arthur", "Barbara", "Craig"])
            XCTAssertEqual(try DatabaseValue.fetchOne(db, sql: sql, adapter: adapter), "Arthur".databaseValue)
            XCTAssertEqual(try DatabaseValue.fetchSet(db, sql: sql, adapter: adapter).count, 3)
            XCTAssertEqual(try Array(DatabaseValue.fetchCursor(db, sql: sql, adapter: adapter)).count, 3)

            let statement = try db.makeStatement(sql: "SELECT id, teamId FROM player ORDER BY id")
            let teamIds = SuffixRowAdapter(fromIndex: 1)
            XCTAssertEqual(try Int64?.fetchAll(statement, adapter: teamIds), [10, 20, nil])
            XCTAssertEqual(try Int64.fetchOne(statement, adapter: teamIds), 10)
            XCTAssertEqual(try Int64.fetchAll(statement, arguments: nil, adapter: RangeRowAdapter(0..<1)), [1, 2, 3])
            XCTAssertEqual(try Int64?.fetchSet(statement, adapter: teamIds), [10, 20, nil])
            XCTAssertEqual(try Array(Int64.fetchCursor(statement, adapter: RangeRowAdapter(0...0))), [1, 2, 3])
            XCTAssertEqual(try DatabaseValue.fetchOne(statement, adapter: teamIds), 10.databaseValue)
            XCTAssertEqual(try DatabaseValue.fetchAll(statement, adapter: teamIds).count, 3)
            XCTAssertEqual(try DatabaseValue.fetchSet(statement, adapter: teamIds).count, 3)
            XCTAssertEqual(try Array(DatabaseValue.fetchCursor(statement, adapter: teamIds)).count, 3)

            // A value that does not decode names the adapted column.
            XCTAssertThrowsError(try Int64.fetchAll(statement, adapter: teamIds)) { error in
                XCTAssertTrue("\(error)".contains(#"column: "teamId", column index: 1"#), "\(error)")
            }
        }
    }

    func testRecordFetchMethodsWithAdapter() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.read { db in
            let sql = "SELECT 'ignored' AS x, id, name FROM player ORDER BY id"
            let adapter = SuffixRowAdapter(fromIndex: 1)
            XCTAssertEqual(
                try Player.fetchAll(db, sql: sql, adapter: adapter).map(\.name), ["Arthur", "Barbara", "Craig"])
            XCTAssertEqual(try Player.fetchOne(db, sql: sql, adapter: adapter), Player(id: 1, name: "Arthur"))
            XCTAssertEqual(try Player.fetchSet(db, sql: sql, adapter: adapter).count, 3)
            XCTAssertEqual(try Player.fetchCursor(db, sql: sql, adapter: adapter).map(\.id).reduce(0, +), 6)

            let statement = try db.makeStatement(
                sql: "SELECT id AS playerId, name AS playerName FROM player ORDER BY id")
            let mapping = ColumnMapping(["id": "playerId", "name": "playerName"])
            XCTAssertEqual(try Player.fetchAll(statement, adapter: mapping).map(\.id), [1, 2, 3])
            XCTAssertEqual(try Player.fetchOne(statement, adapter: mapping)?.name, "Arthur")
            XCTAssertEqual(try Player.fetchSet(statement, adapter: mapping).count, 3)
            XCTAssertEqual(try Player.fetchCursor(statement, adapter: mapping).next()?.name, "Arthur")
        }
    }

    // MARK: Requests

    func testSQLRequestWithAdapter() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.read { db in
            let adapter = SuffixRowAdapter(fromIndex: 1)
            let rows = SQLRequest(sql: "SELECT id, name FROM player WHERE id = ?", arguments: [2], adapter: adapter)
            XCTAssertNotNil(rows.adapter)
            XCTAssertEqual(try rows.fetchOne(db), ["name": "Barbara"])
            XCTAssertEqual(try Row.fetchAll(db, rows), [["name": "Barbara"]])
            XCTAssertEqual(try rows.fetchCount(db), 1)
            XCTAssertNotNil(try rows.makePreparedRequest(db).adapter)

            let names = SQLRequest<String>(literal: "SELECT id, name FROM player ORDER BY id", adapter: adapter)
            XCTAssertEqual(try names.fetchAll(db), ["Arthur", "Barbara", "Craig"])
            XCTAssertEqual(try names.fetchOne(db), "Arthur")
            XCTAssertEqual(try names.fetchSet(db).count, 3)

            var players = SQLRequest<Player>(sql: "SELECT 0, id, name FROM player ORDER BY id", cached: true)
            XCTAssertNil(players.adapter)
            players.adapter = adapter
            XCTAssertEqual(try players.fetchAll(db).map(\.name), ["Arthur", "Barbara", "Craig"])
            XCTAssertEqual(try Player.fetchOne(db, players)?.id, 1)
        }
    }

    func testAdaptedFetchRequest() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.read { db in
            let request = SQLRequest<Row>(sql: joinSQL).adapted { _ in
                ScopeAdapter(base: RangeRowAdapter(0..<2), scopes: ["team": SuffixRowAdapter(fromIndex: 2)])
            }
            let rows = try request.fetchAll(db)
            XCTAssertEqual(rows.map { $0.scopes["team"]?["name"] as String? }, ["Reds", "Blues", nil])
            XCTAssertEqual(try request.fetchCount(db), 3)

            // A second adapter applies to the columns of the first.
            let chained = SQLRequest<Row>(sql: "SELECT 1 AS a, 2 AS b, 3 AS c", adapter: SuffixRowAdapter(fromIndex: 1))
                .adapted { _ in SuffixRowAdapter(fromIndex: 1) }
            XCTAssertEqual(try chained.fetchOne(db), ["c": 3])

            let players = SQLRequest<Player>(sql: "SELECT 0, id, name FROM player ORDER BY id")
                .adapted { _ in SuffixRowAdapter(fromIndex: 1) }
            XCTAssertEqual(try players.fetchAll(db).map(\.id), [1, 2, 3])
            XCTAssertEqual(try players.fetchOne(db)?.name, "Arthur")

            let values = SQLRequest<String>(sql: "SELECT id, name FROM player ORDER BY id")
                .adapted { _ in SuffixRowAdapter(fromIndex: 1) }
            XCTAssertEqual(try values.fetchAll(db), ["Arthur", "Barbara", "Craig"])

            // Query interface requests too.
            let table = Table<Player>("player").order(Column("id")).adapted { _ in ColumnMapping(["name": "name"]) }
            XCTAssertEqual(try Row.fetchAll(db, table), [["name": "Arthur"], ["name": "Barbara"], ["name": "Craig"]])

            // The builder's errors are the fetch's errors.
            let failing = SQLRequest<Row>(sql: "SELECT 1").adapted { _ in
                throw DatabaseError(resultCode: .SQLITE_ERROR, message: "no adapter")
            }
            XCTAssertThrowsError(try failing.fetchAll(db)) { error in
                XCTAssertEqual((error as? DatabaseError)?.message, "no adapter")
            }
        }
    }

    func testDecodableRecordsDecodeNestedRecordsFromScopes() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.read { db in
            let adapters = splittingRowAdapters(columnCounts: [2])
            let adapter = ScopeAdapter(["player": adapters[0], "team": adapters[1]])
            let infos = try PlayerInfo.fetchAll(db, sql: joinSQL, adapter: adapter)
            XCTAssertEqual(infos.map(\.player.name), ["Arthur", "Barbara", "Craig"])
            // A scope of NULLs (no team) decodes as nil.
            XCTAssertEqual(infos.map(\.team?.name), ["Reds", "Blues", nil])
            XCTAssertEqual(infos[1].team, DecodableTeam(id: 20, name: "Blues"))
        }
    }
}
