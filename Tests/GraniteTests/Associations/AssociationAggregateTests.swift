import Granite
import XCTest

/// Aggregates of to-many associations: `annotated(with:)`, `having(_:)`, their keys and operators, and
/// `annotated(withRequired:)` / `annotated(withOptional:)`.
final class AssociationAggregateTests: XCTestCase {
    private typealias Book = AssocBook
    private typealias Author = AssocAuthor

    private struct AuthorInfo: Decodable, FetchableRecord {
        var author: AssocAuthor
        var bookCount: Int
        var maxBookYear: Int?
    }

    private func sql(_ db: Database, _ request: some FetchRequest) throws -> String {
        try AssociationFixtures.sql(db, request)
    }

    private let authorJoin = #"FROM "author" LEFT JOIN "book" ON "book"."authorId" = "author"."id" "#

    func testCountAndMaxAnnotations() throws {
        try AssociationFixtures.makeLibrary().read { db in
            let request =
                Author
                .annotated(with: Author.books.count, Author.books.max(Column("year")))
                .order(Column("id"))
            XCTAssertEqual(
                try sql(db, request),
                #"SELECT "author".*, COUNT(DISTINCT "book"."id") AS "bookCount", MAX("book"."year") AS "maxBookYear" "#
                    + authorJoin + #"GROUP BY "author"."id" ORDER BY "author"."id""#)
            let infos = try AuthorInfo.fetchAll(db, request)
            XCTAssertEqual(infos.map(\.author.name), ["Victor Hugo", "Herman Melville", "Anonymous"])
            XCTAssertEqual(infos.map(\.bookCount), [2, 1, 0])
            XCTAssertEqual(infos.map(\.maxBookYear), [1862, 1851, nil])
        }
    }

    func testAggregateKeys() throws {
        try AssociationFixtures.makeLibrary().read { db in
            let request = Author.annotated(with: [
                Author.books.isEmpty, Author.books.min(Column("year")), Author.books.average(Column("year")),
                Author.books.sum(Column("year")), Author.books.total(Column("year")).forKey("yearTotal"),
                Author.books.min(Column("year") * 2),
            ]).filter(Column("id") == 1)
            let row = try XCTUnwrap(Row.fetchOne(db, request))
            // An aggregate of an expression has no key.
            XCTAssertEqual(
                Array(row.columnNames.prefix(8)),
                [
                    "id", "name", "countryCode", "hasNoBook", "minBookYear", "averageBookYear", "bookYearSum",
                    "yearTotal",
                ])
            XCTAssertEqual(row.count, 9)
            XCTAssertEqual(row[8], 1831 * 2)
            XCTAssertEqual(row["hasNoBook"], false)
            XCTAssertEqual(row["minBookYear"], 1831)
            XCTAssertEqual(row["averageBookYear"], 1846.5)
            XCTAssertEqual(row["bookYearSum"], 3693)
            XCTAssertEqual(row["yearTotal"], 3693.0)
        }
    }

    func testHavingAndOperators() throws {
        try AssociationFixtures.makeLibrary().read { db in
            let lonely = Author.having(Author.books.isEmpty)
            XCTAssertEqual(
                try sql(db, lonely),
                #"SELECT "author".* "# + authorJoin + #"GROUP BY "author"."id" HAVING COUNT(DISTINCT "book"."id") = 0"#)
            XCTAssertEqual(try lonely.fetchAll(db).map(\.name), ["Anonymous"])

            let published = Author.having(!Author.books.isEmpty).order(Column("id"))
            XCTAssertEqual(
                try sql(db, published),
                #"SELECT "author".* "# + authorJoin
                    + #"GROUP BY "author"."id" HAVING COUNT(DISTINCT "book"."id") > 0 ORDER BY "author"."id""#)
            XCTAssertEqual(try published.fetchAll(db).map(\.name), ["Victor Hugo", "Herman Melville"])

            let prolific = Author.having(Author.books.count >= 2)
            XCTAssertEqual(try prolific.fetchAll(db).map(\.name), ["Victor Hugo"])

            // Two aggregates of the same association share one join.
            let span = (Author.books.max(Column("year")) - Author.books.min(Column("year"))).forKey("span")
            let spans = Author.annotated(with: span).having(Author.books.count > 0).order(Column("id"))
            XCTAssertEqual(
                try sql(db, spans),
                #"SELECT "author".*, MAX("book"."year") - MIN("book"."year") AS "span" "# + authorJoin
                    + #"GROUP BY "author"."id" HAVING COUNT(DISTINCT "book"."id") > ? ORDER BY "author"."id""#)
            XCTAssertEqual(try Row.fetchAll(db, spans).map { $0["span"] as Int }, [31, 0])

            // The filter of the association goes to the ON clause; `??` keeps the key.
            let recent = Author.annotated(with: Author.books.filter(Column("year") > 1850).max(Column("year")) ?? 0)
                .filter(Column("id") == 1)
            XCTAssertEqual(
                try sql(db, recent),
                #"SELECT "author".*, IFNULL(MAX("book"."year"), ?) AS "maxBookYear" FROM "author" "#
                    + #"LEFT JOIN "book" ON ("book"."authorId" = "author"."id") AND ("book"."year" > ?) "#
                    + #"WHERE "author"."id" = ? GROUP BY "author"."id""#)
            XCTAssertEqual(try Row.fetchOne(db, recent)?["maxBookYear"], 1862)
        }
    }

    func testAnnotatedWithToOneAssociations() throws {
        try AssociationFixtures.makeLibrary().read { db in
            let request =
                Book
                .annotated(withRequired: Book.author.select(Column("name").forKey("authorName")))
                .order(Column("id"))
            XCTAssertEqual(
                try sql(db, request),
                #"SELECT "book".*, "author"."name" AS "authorName" FROM "book" "#
                    + #"JOIN "author" ON "author"."id" = "book"."authorId" ORDER BY "book"."id""#)
            let rows = try Row.fetchAll(db, request)
            XCTAssertEqual(rows.map { $0["authorName"] as String }, ["Victor Hugo", "Victor Hugo", "Herman Melville"])
            XCTAssertTrue(rows[0].scopes.isEmpty)

            let optional = Book.annotated(withOptional: Book.author.select(Column("name").forKey("authorName")))
            XCTAssertEqual(
                try sql(db, optional),
                #"SELECT "book".*, "author"."name" AS "authorName" FROM "book" "#
                    + #"LEFT JOIN "author" ON "author"."id" = "book"."authorId""#)
            XCTAssertEqual(try Row.fetchAll(db, optional).count, 4)
        }
    }
}
