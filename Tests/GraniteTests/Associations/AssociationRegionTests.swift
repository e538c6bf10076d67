import Foundation
import Granite
import XCTest

/// The database region of a request with `including(all:)` holds the tables its prefetches read, so that an
/// observation of the request hears changes to them even before any origin row makes a prefetch run.
final class AssociationRegionTests: XCTestCase {
    private typealias Book = AssocBook
    private typealias Author = AssocAuthor

    private struct AuthorInfo: Decodable, FetchableRecord, Sendable {
        var author: AssocAuthor
        var books: [AssocBook]
    }

    func testRegionIncludesPrefetchedTables() throws {
        try AssociationFixtures.makeLibrary().read { db in
            let request = Author.including(all: Author.books)
            let region = try request.databaseRegion(db)
            XCTAssertTrue(region.isModified(byEventsOfKind: .insert(tableName: "book")), "\(region)")
            XCTAssertTrue(region.isModified(byEventsOfKind: .delete(tableName: "author")), "\(region)")
            XCTAssertFalse(region.isModified(byEventsOfKind: .insert(tableName: "country")), "\(region)")

            // Nested prefetches too.
            let nested = AssocCountry.including(all: AssocCountry.authors.including(all: Author.books))
            let nestedRegion = try nested.databaseRegion(db)
            XCTAssertTrue(nestedRegion.isModified(byEventsOfKind: .insert(tableName: "author")), "\(nestedRegion)")
            XCTAssertTrue(nestedRegion.isModified(byEventsOfKind: .insert(tableName: "book")), "\(nestedRegion)")

            // A provably empty request reads nothing, prefetches included.
            XCTAssertTrue(try request.none().databaseRegion(db).isEmpty)
        }
    }

    /// A change to `book` notifies an observation of authors with their books, with and without authors.
    func testObservationHearsPrefetchedTable() throws {
        let dbQueue = try AssociationFixtures.makeLibrary()
        try dbQueue.write { db in
            try db.execute(sql: "DELETE FROM book; DELETE FROM author")
        }
        let received = Received()
        let queue = DispatchQueue(label: "AssociationRegionTests")
        let observation = ValueObservation.tracking { db in
            try AuthorInfo.fetchAll(db, Author.including(all: Author.books).order(Column("id")))
        }
        let cancellable = observation.start(
            in: dbQueue, scheduling: .async(onQueue: queue), onError: { XCTFail("\($0)") },
            onChange: { received.append($0.map { $0.books.count }) })
        XCTAssertEqual(received.wait(for: 1), [[]])

        // No author: the prefetch never ran, yet its table is observed.
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO book VALUES (10, NULL, 'Orphan', 2000)") }
        XCTAssertEqual(received.wait(for: 2), [[], []])

        try dbQueue.write { db in try db.execute(sql: "INSERT INTO author VALUES (1, 'Victor Hugo', NULL)") }
        XCTAssertEqual(received.wait(for: 3), [[], [], [0]])
        try dbQueue.write { db in try db.execute(sql: "UPDATE book SET authorId = 1") }
        XCTAssertEqual(received.wait(for: 4), [[], [], [0], [1]])
        cancellable.cancel()
    }
}

/// The values an observation delivered, waited for without timing assertions: a wait ends when the count is
/// reached (or after a long bound that only a failing test reaches).
private final class Received: @unchecked Sendable {
    private let condition = NSCondition()
    private var values: [[Int]] = []

    func append(_ value: [Int]) {
        condition.lock()
        values.append(value)
        condition.broadcast()
        condition.unlock()
    }

    func wait(for count: Int) -> [[Int]] {
        condition.lock()
        defer { condition.unlock() }
        let limit = Date().addingTimeInterval(60)
        while values.count < count && condition.wait(until: limit) {}
        return values
    }
}
