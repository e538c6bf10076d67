import Granite
import XCTest

/// Eager loading of to-many associations with `including(all:)`: one more query per association, rows
/// grouped by origin row, decoded as arrays and sets.
final class AssociationPrefetchTests: XCTestCase {
    private typealias Book = AssocBook
    private typealias Author = AssocAuthor
    private typealias Country = AssocCountry

    private struct AuthorInfo: Decodable, FetchableRecord {
        var author: AssocAuthor
        var books: [AssocBook]
    }

    private struct CountryInfo: Decodable, FetchableRecord {
        struct AuthorInfo: Decodable {
            var author: AssocAuthor
            var books: Set<AssocBook>
        }
        var country: AssocCountry
        var authors: [AuthorInfo]
    }

    /// The statements a block runs.
    private func statements(_ db: Database, _ block: () throws -> Void) rethrows -> [String] {
        var statements: [String] = []
        db.trace { event in
            // Schema introspection is not part of the queries of the requests.
            let sql = event.description
            if !sql.contains("sqlite_temp_master") && !sql.hasPrefix("PRAGMA") { statements.append(sql) }
        }
        defer { db.trace(nil) }
        try block()
        return statements
    }

    func testPrefetchQueryAndDecoding() throws {
        try AssociationFixtures.makeLibrary().read { db in
            let request = Author.including(all: Author.books.order(Column("year"))).order(Column("id"))
            var infos: [AuthorInfo] = []
            let sql = try statements(db) { infos = try AuthorInfo.fetchAll(db, request) }
            XCTAssertEqual(
                sql,
                [
                    #"SELECT * FROM "author" ORDER BY "id""#,
                    #"SELECT *, "authorId" AS "grdb_authorId" FROM "book" "#
                        + #"WHERE "authorId" IN (?, ?, ?) ORDER BY "year""#,
                ])
            XCTAssertEqual(infos.map(\.author.name), ["Victor Hugo", "Herman Melville", "Anonymous"])
            XCTAssertEqual(infos.map { $0.books.map(\.year) }, [[1831, 1862], [1851], []])

            // Rows carry the prefetched rows, with the grouping column.
            let row = try XCTUnwrap(Row.fetchOne(db, request))
            let books = try XCTUnwrap(row.prefetchedRows["books"])
            XCTAssertEqual(books.map { $0["title"] as String }, ["Notre-Dame de Paris", "Les Misérables"])
            XCTAssertEqual(books.map { $0["grdb_authorId"] as Int64 }, [1, 1])

            // No origin row, no prefetch query.
            let none = try statements(db) { _ = try request.filter(Column("id") < 0).fetchAll(db) }
            XCTAssertEqual(none.count, 1)

            // Cursors can not carry prefetched rows.
            XCTAssertThrowsError(try request.fetchCursor(db)) { error in
                XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_MISUSE)
            }
        }
    }

    func testNestedPrefetchesAndSets() throws {
        try AssociationFixtures.makeLibrary().read { db in
            let request =
                Country
                .including(all: Country.authors.including(all: Author.books))
                .order(Column("code"))
            var infos: [CountryInfo] = []
            let sql = try statements(db) { infos = try CountryInfo.fetchAll(db, request) }
            XCTAssertEqual(
                sql,
                [
                    #"SELECT * FROM "country" ORDER BY "code""#,
                    #"SELECT *, "countryCode" AS "grdb_countryCode" FROM "author" WHERE "countryCode" IN (?, ?)"#,
                    #"SELECT *, "authorId" AS "grdb_authorId" FROM "book" WHERE "authorId" IN (?, ?)"#,
                ])
            XCTAssertEqual(infos.map(\.country.code), ["FR", "US"])
            XCTAssertEqual(infos.map { $0.authors.map(\.author.name) }, [["Victor Hugo"], ["Herman Melville"]])
            XCTAssertEqual(Set(infos[0].authors[0].books.map(\.title)), ["Les Misérables", "Notre-Dame de Paris"])
        }
    }

    func testPrefetchBehindAJoin() throws {
        try AssociationFixtures.makeLibrary().read { db in
            let request =
                Book
                .including(required: Book.author.including(all: Author.books.forKey("otherBooks")))
                .filter(Column("id") == 3)
            var rows: [Row] = []
            let sql = try statements(db) { rows = try Row.fetchAll(db, request) }
            XCTAssertEqual(
                sql,
                [
                    #"SELECT "book".*, "author".* FROM "book" JOIN "author" ON "author"."id" = "book"."authorId" "#
                        + #"WHERE "book"."id" = ?"#,
                    // The prefetch query joins the author, the pivot from the book to the other books.
                    #"SELECT "book".*, "author"."id" AS "grdb_id" FROM "book" "#
                        + #"JOIN "author" ON ("author"."id" = "book"."authorId") AND ("author"."id" = ?)"#,
                ])
            let authorRow = try XCTUnwrap(rows.first?.scopes["author"])
            XCTAssertEqual(authorRow.prefetchedRows["otherBooks"]?.map { $0["title"] as String }, ["Moby-Dick"])
            XCTAssertEqual(rows.first?.prefetchedRows["otherBooks"]?.count, 1, "found by a search through scopes")
        }
    }

    func testCompositeKeysPrefetchThroughACommonTableExpression() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE edition (bookId INTEGER, number INTEGER, name TEXT, PRIMARY KEY (bookId, number));
                    CREATE TABLE printing (
                        id INTEGER PRIMARY KEY, bookId INTEGER, editionNumber INTEGER, copies INTEGER,
                        FOREIGN KEY (bookId, editionNumber) REFERENCES edition(bookId, number));
                    INSERT INTO edition VALUES (1, 1, 'First'), (1, 2, 'Second'), (2, 1, 'Other');
                    INSERT INTO printing VALUES (1, 1, 2, 500), (2, 1, 1, 1000), (3, 1, 1, 10);
                    """)
            let edition = Table("edition")
            let request =
                edition
                .including(all: edition.hasMany(Table("printing")).order(Column("copies")))
                .filter(Column("bookId") == 1)
                .order(Column("number"))
            var rows: [Row] = []
            let sql = try statements(db) { rows = try request.fetchAll(db) }
            XCTAssertEqual(
                sql,
                [
                    #"SELECT * FROM "edition" WHERE "bookId" = ? ORDER BY "number""#,
                    #"WITH "grdb_base" AS (SELECT "bookId", "number" FROM "edition" WHERE "bookId" = ?) "#
                        + #"SELECT *, "bookId" AS "grdb_bookId", "editionNumber" AS "grdb_editionNumber" "#
                        + #"FROM "printing" "#
                        + #"WHERE ("bookId", "editionNumber") IN "grdb_base" ORDER BY "copies""#,
                ])
            XCTAssertEqual(
                rows.map { $0.prefetchedRows["printings"]?.map { $0["copies"] as Int } }, [[10, 1000], [500]])
        }
    }
}

/// The plans of the queries associations generate: joins and prefetches use the keys and indexes of the
/// foreign keys.
final class AssociationQueryPlanTests: XCTestCase {
    private func plan(_ db: Database, _ request: some FetchRequest) throws -> [String] {
        let statement = try request.makePreparedRequest(db, forSingleResult: false).statement
        return try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + statement.sql, arguments: statement.arguments)
            .map { $0["detail"] as String }
    }

    func testJoinsAndPrefetchesUseKeysAndIndexes() throws {
        try AssociationFixtures.makeLibrary().read { db in
            // The joined author is found by primary key.
            let books = try plan(db, AssocBook.including(required: AssocBook.author))
            XCTAssertTrue(
                books.contains { $0.hasPrefix("SEARCH author USING INTEGER PRIMARY KEY") }, "\(books)")

            // The books of one author are found with the index on their foreign key.
            let authors = try plan(
                db, AssocAuthor.filter(Column("id") == 1).joining(required: AssocAuthor.books))
            XCTAssertTrue(
                authors.contains { $0.hasPrefix("SEARCH book USING") && $0.contains("INDEX book_authorId") },
                "\(authors)")
            XCTAssertFalse(authors.contains { $0.hasPrefix("SCAN") }, "\(authors)")

            // The prefetch query looks up the values of the fetched rows in that index.
            let prefetch = AssocBook.filter([Int64(1), 2, 3].contains(Column("authorId")))
                .annotated(with: Column("authorId").forKey("grdb_authorId"))
            let prefetchPlan = try plan(db, prefetch)
            XCTAssertTrue(
                prefetchPlan.contains { $0.hasPrefix("SEARCH book USING INDEX book_authorId (authorId=?)") },
                "\(prefetchPlan)")
        }
    }
}
