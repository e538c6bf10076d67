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
        let received = ObservationInbox<[Int]>()
        let queue = DispatchQueue(label: "AssociationRegionTests")
        let observation = ValueObservation.tracking { db in
            try AuthorInfo.fetchAll(db, Author.including(all: Author.books).order(Column("id")))
        }
        let cancellable = observation.start(
            in: dbQueue, scheduling: .async(onQueue: queue), onError: { XCTFail("\($0)") },
            onChange: { received.receive($0.map { $0.books.count }) })
        XCTAssertEqual(received.wait(for: 1, timeout: 60), [[]])

        // No author: the prefetch never ran, yet its table is observed.
        try dbQueue.write { db in try db.execute(sql: "INSERT INTO book VALUES (10, NULL, 'Orphan', 2000)") }
        XCTAssertEqual(received.wait(for: 2, timeout: 60), [[], []])

        try dbQueue.write { db in try db.execute(sql: "INSERT INTO author VALUES (1, 'Victor Hugo', NULL)") }
        XCTAssertEqual(received.wait(for: 3, timeout: 60), [[], [], [0]])
        try dbQueue.write { db in try db.execute(sql: "UPDATE book SET authorId = 1") }
        XCTAssertEqual(received.wait(for: 4, timeout: 60), [[], [], [0], [1]])
        cancellable.cancel()
    }
}
