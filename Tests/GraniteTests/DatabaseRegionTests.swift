import Foundation
import Granite
import XCTest

final class DatabaseRegionTests: XCTestCase {
    private func makeQueue() throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT);
                    CREATE TABLE player(id INTEGER PRIMARY KEY, teamId INTEGER REFERENCES team(id), name TEXT,
                                        score INTEGER);
                    CREATE TABLE plain(a, b);
                    CREATE VIEW ranked AS SELECT name, score FROM player ORDER BY score DESC;
                    """)
        }
        return dbQueue
    }

    func testEmptyAndFullRegions() {
        let empty = DatabaseRegion()
        XCTAssertTrue(empty.isEmpty)
        XCTAssertFalse(empty.isFullDatabase)
        XCTAssertEqual(empty.description, "empty")
        let full = DatabaseRegion.fullDatabase
        XCTAssertFalse(full.isEmpty)
        XCTAssertTrue(full.isFullDatabase)
        XCTAssertEqual(full.description, "full database")
        XCTAssertEqual(empty.union(full), full)
        XCTAssertTrue(full.isModified(byEventsOfKind: .insert(tableName: "anything")))
        XCTAssertFalse(empty.isModified(byEventsOfKind: .insert(tableName: "anything")))
        let viaProtocol: DatabaseRegion = .fullDatabase
        XCTAssertEqual(viaProtocol, full)
    }

    func testStatementRegionsNameTheColumnsRead() throws {
        let dbQueue = try makeQueue()
        try dbQueue.read { db in
            func region(_ sql: String) throws -> String { try db.makeStatement(sql: sql).databaseRegion.description }
            XCTAssertEqual(try region("SELECT name FROM player WHERE score > 10"), "player(name,score)")
            XCTAssertEqual(try region("SELECT * FROM team"), "team(id,name)")
            XCTAssertEqual(try region("SELECT COUNT(*) FROM player"), "player(*)")
            XCTAssertEqual(try region("SELECT rowid FROM plain"), "plain(rowid)")
            XCTAssertEqual(try region("SELECT rowid FROM team"), "team(id)")
            XCTAssertEqual(
                try region("SELECT player.name, team.name FROM player JOIN team ON team.id = player.teamId"),
                "player(name,teamId),team(id,name)")
            XCTAssertEqual(
                try region("SELECT a FROM plain WHERE b IN (SELECT score FROM player)"), "plain(a,b),player(score)")
            XCTAssertEqual(try region("SELECT name FROM ranked"), "player(name,score)")
            XCTAssertEqual(try region("SELECT 1"), "empty")
            XCTAssertEqual(try region("UPDATE player SET score = 0"), "empty")
            let cursor = try Row.fetchCursor(db, sql: "SELECT a FROM plain")
            XCTAssertEqual(cursor.databaseRegion.description, "plain(a)")
        }
    }

    func testRequestAndTableRegions() throws {
        let dbQueue = try makeQueue()
        try dbQueue.read { db in
            XCTAssertEqual(try Table("player").databaseRegion(db).description, "player(*)")
            XCTAssertEqual(
                try Table("player").select(Column("name")).databaseRegion(db).description, "player(name)")
            XCTAssertEqual(
                try SQLRequest<Row>(sql: "SELECT id FROM team").databaseRegion(db).description, "team(id)")
            let erased = AnyDatabaseRegionConvertible(Table("team"))
            XCTAssertEqual(try erased.databaseRegion(db).description, "team(*)")
            let computed = AnyDatabaseRegionConvertible { _ in .fullDatabase }
            XCTAssertTrue(try computed.databaseRegion(db).isFullDatabase)
        }
    }

    func testUnionAndModification() throws {
        let dbQueue = try makeQueue()
        let region = try dbQueue.read { db in
            try db.makeStatement(sql: "SELECT name FROM player").databaseRegion
                .union(db.makeStatement(sql: "SELECT id FROM TEAM").databaseRegion)
        }
        XCTAssertEqual(region.description, "player(name),team(id)", "statements name tables as declared")
        XCTAssertTrue(region.isModified(byEventsOfKind: .insert(tableName: "player")))
        XCTAssertTrue(region.isModified(byEventsOfKind: .delete(tableName: "team")), "names ignore case")
        XCTAssertTrue(region.isModified(byEventsOfKind: .update(tableName: "player", columnNames: ["name", "score"])))
        XCTAssertFalse(region.isModified(byEventsOfKind: .update(tableName: "player", columnNames: ["score"])))
        XCTAssertFalse(region.isModified(byEventsOfKind: .insert(tableName: "plain")))
        var grown = DatabaseRegion()
        grown.formUnion(region)
        XCTAssertEqual(grown, region)
        XCTAssertNotEqual(grown, DatabaseRegion())
    }

    func testModificationByEvents() throws {
        let dbQueue = try makeQueue()
        final class Checker: TransactionObserver {
            let region: DatabaseRegion
            var verdicts: [Bool] = []
            init(_ region: DatabaseRegion) { self.region = region }
            func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
            func databaseDidChange(with event: DatabaseEvent) { verdicts.append(region.isModified(by: event)) }
            func databaseDidCommit(_ db: Database) {}
            func databaseDidRollback(_ db: Database) {}
        }
        let checker = Checker(try dbQueue.read { try Table("team").databaseRegion($0) })
        dbQueue.add(transactionObserver: checker)
        try dbQueue.write { db in
            try db.execute(sql: "INSERT INTO team(id) VALUES (1)")
            try db.execute(sql: "INSERT INTO plain VALUES (1, 2)")
        }
        // An event of a table outside the region reached the observer: it is assumed to matter, as in GRDB.
        XCTAssertEqual(checker.verdicts, [true, true])
        XCTAssertEqual(checker.region.description, "team(*)")
    }

    func testNotifyChangesTellsObserversOfTheRegion() throws {
        let dbQueue = try makeQueue()
        final class Counter: TransactionObserver {
            let table: String
            var changes = 0
            var commits = 0
            init(_ table: String) { self.table = table }
            func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { eventKind.tableName == table }
            func databaseDidChange() { changes += 1 }
            func databaseDidChange(with event: DatabaseEvent) {}
            func databaseDidCommit(_ db: Database) { commits += 1 }
            func databaseDidRollback(_ db: Database) {}
        }
        let playerCounter = Counter("player")
        let teamCounter = Counter("team")
        dbQueue.add(transactionObserver: playerCounter)
        dbQueue.add(transactionObserver: teamCounter)
        try dbQueue.write { db in try db.notifyChanges(in: Table("PLAYER")) }
        XCTAssertEqual(playerCounter.changes, 1)
        XCTAssertEqual(teamCounter.changes, 0)
        XCTAssertEqual(playerCounter.commits, 1)
        try dbQueue.writeWithoutTransaction { db in try db.notifyChanges(in: DatabaseRegion.fullDatabase) }
        XCTAssertEqual(playerCounter.changes, 2)
        XCTAssertEqual(teamCounter.changes, 1)
        XCTAssertEqual(teamCounter.commits, 2, "outside a transaction, the notification commits on its own")
    }

    func testPrimaryKeyFiltersNarrowTheRegionToRows() throws {
        let dbQueue = try makeQueue()
        try dbQueue.read { db in
            let player = Table("player")
            XCTAssertEqual(try player.filter(key: 1).databaseRegion(db).description, "player(id,name,score,teamId)[1]")
            XCTAssertEqual(
                try player.filter(keys: [3, 1, 2]).databaseRegion(db).description, "player(id,name,score,teamId)[1,2,3]"
            )
            XCTAssertEqual(
                try player.filter(Column("id") == 4 || Column("id") == 5).select(Column("name")).databaseRegion(db)
                    .description,
                "player(id,name)[4,5]")
            XCTAssertEqual(
                try player.filter(Column("id") == 4).filter(Column("score") > 0).select(Column("name"))
                    .databaseRegion(db).description,
                "player(id,name,score)[4]")
            XCTAssertEqual(
                try player.filter(Column("rowid") == 7).databaseRegion(db).description,
                "player(id,name,score,teamId)[7]")
            XCTAssertTrue(try player.none().databaseRegion(db).isEmpty)
            // Filters that do not identify rowids keep the whole table.
            XCTAssertEqual(
                try player.filter(Column("score") == 4).select(Column("name")).databaseRegion(db).description,
                "player(name,score)")
            XCTAssertEqual(
                try player.filter(Column("id") == 4 || Column("score") == 1).select(Column("name")).databaseRegion(db)
                    .description,
                "player(id,name,score)")
            XCTAssertEqual(try Table("plain").filter(Column("a") == 1).databaseRegion(db).description, "plain(a,b)")
        }
    }
}
