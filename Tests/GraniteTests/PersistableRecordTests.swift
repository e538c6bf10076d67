import Granite
import XCTest

/// The README's Place (seed 3).
private struct Place: PersistableRecord, FetchableRecord, Identifiable {
    var id: Int64
    var title: String
    init(id: Int64, title: String) {
        self.id = id
        self.title = title
    }
    init(row: Row) {
        id = row["id"]
        title = row["title"]
    }
    func encode(to container: inout PersistenceContainer) {
        container["id"] = id
        container["title"] = title
    }
}

/// The README's Country (seed 1), whose id is its primary key.
private struct Country: Identifiable, FetchableRecord, PersistableRecord {
    var isoCode: String
    var name: String
    var population: Int
    var id: String { isoCode }
    init(isoCode: String, name: String, population: Int) {
        self.isoCode = isoCode
        self.name = name
        self.population = population
    }
    init(row: Row) {
        isoCode = row["isoCode"]
        name = row["name"]
        population = row["population"]
    }
    func encode(to container: inout PersistenceContainer) {
        container["isoCode"] = isoCode
        container["name"] = name
        container["population"] = population
    }
}

/// A class whose non-mutating didInsert stores the rowid.
private final class Author: PersistableRecord, @unchecked Sendable {
    var id: Int64?
    var name: String
    init(name: String) { self.name = name }
    func encode(to container: inout PersistenceContainer) {
        container["id"] = id
        container["name"] = name
    }
    func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

final class PersistableRecordTests: XCTestCase {
    private func makeDatabase() throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE place (id INTEGER PRIMARY KEY, title TEXT NOT NULL);
                    CREATE TABLE country (isoCode TEXT PRIMARY KEY, name TEXT NOT NULL, population INT NOT NULL);
                    CREATE TABLE author (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                    INSERT INTO place VALUES (1, 'Paris');
                    """)
        }
        return dbQueue
    }

    func testSeedPlace() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            try Place.delete(db, id: 1)
            try Place(id: 2, title: "Berlin").insert(db)
        }
        try dbQueue.read { db in
            XCTAssertEqual(try Place.fetchAll(db).map(\.title), ["Berlin"])
        }
    }

    func testSeedCountry() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            try Country(isoCode: "FR", name: "France", population: 67_000_000).insert(db)
        }
        let france = try dbQueue.read { db in
            try Country.fetchOne(db, id: "FR")
        }
        XCTAssertEqual(france?.name, "France")
    }

    func testNonMutatingMethods() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            let country = Country(isoCode: "DE", name: "Germany", population: 1)
            try country.save(db)
            try country.update(db)
            let fetched = try country.insertAndFetch(db, onConflict: .replace, as: Country.self)
            XCTAssertEqual(fetched.name, "Germany")
            let population = try country.saveAndFetch(db, selection: [Column("population")]) { try Int.fetchOne($0) }
            XCTAssertEqual(population, 1)
            let renamed = Country(isoCode: "DE", name: "Deutschland", population: 2)
            try renamed.upsert(db)
            XCTAssertEqual(try Country.find(db, id: "DE").name, "Deutschland")
            let upserted = try Country(isoCode: "DE", name: "x", population: 3).upsertAndFetch(
                db, updating: .noColumnUnlessSpecified,
                doUpdate: { excluded in [Column("population").set(to: excluded["population"])] })
            XCTAssertEqual(upserted.name, "Deutschland")
            XCTAssertEqual(upserted.population, 3)
            XCTAssertTrue(try renamed.exists(db))
            XCTAssertTrue(try renamed.delete(db))
            XCTAssertFalse(try renamed.exists(db))
        }
    }

    func testClassDidInsert() throws {
        let dbQueue = try makeDatabase()
        try dbQueue.write { db in
            let author = Author(name: "Herman")
            try author.insert(db)
            XCTAssertEqual(author.id, 1)
            author.name = "Melville"
            try author.save(db)
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT name FROM author WHERE id = 1"), "Melville")
        }
    }
}
