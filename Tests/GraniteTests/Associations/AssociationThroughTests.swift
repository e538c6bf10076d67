import Granite
import XCTest

/// Associations through a pivot (`hasOne(_:through:using:)`, `hasMany(_:through:using:)`) and associations to
/// common table expressions (`association(to:on:)`).
final class AssociationThroughTests: XCTestCase {
    private typealias Book = AssocBook
    private typealias Author = AssocAuthor
    private typealias Country = AssocCountry

    private static let bookCountry = Book.hasOne(Country.self, through: Book.author, using: Author.country)
    private static let countryBooks = Country.hasMany(Book.self, through: Country.authors, using: Author.books)

    private struct CountryInfo: Decodable, FetchableRecord {
        var country: AssocCountry
        var books: [AssocBook]
    }

    private func sql(_ db: Database, _ request: some FetchRequest) throws -> String {
        try AssociationFixtures.sql(db, request)
    }

    func testHasOneThroughJoinsThePivotWithoutSelectingIt() throws {
        try AssociationFixtures.makeLibrary().read { db in
            let request = Book.including(optional: Self.bookCountry).order(Column("id"))
            XCTAssertEqual(
                try sql(db, request),
                #"SELECT "book".*, "country".* FROM "book" "#
                    + #"LEFT JOIN "author" ON "author"."id" = "book"."authorId" "#
                    + #"LEFT JOIN "country" ON "country"."code" = "author"."countryCode" ORDER BY "book"."id""#)
            let rows = try Row.fetchAll(db, request)
            XCTAssertEqual(
                rows.map { $0.scopesTree["country"]?["name"] as String? },
                ["France", "France", "United States", nil])

            let book = try XCTUnwrap(Book.fetchOne(db, key: 3))
            let country = book.request(for: Self.bookCountry)
            XCTAssertEqual(
                try sql(db, country),
                #"SELECT "country".* FROM "country" "#
                    + #"JOIN "author" ON ("author"."countryCode" = "country"."code") AND ("author"."id" = ?)"#)
            XCTAssertEqual(try country.fetchOne(db)?.name, "United States")
        }
    }

    func testHasManyThroughJoinsAndPrefetches() throws {
        try AssociationFixtures.makeLibrary().read { db in
            let joined = Country.joining(required: Self.countryBooks.filter(Column("year") > 1850)).distinct()
            XCTAssertEqual(
                try sql(db, joined),
                #"SELECT DISTINCT "country".* FROM "country" "#
                    + #"JOIN "author" ON "author"."countryCode" = "country"."code" "#
                    + #"JOIN "book" ON ("book"."authorId" = "author"."id") AND ("book"."year" > ?)"#)
            XCTAssertEqual(Set(try joined.fetchAll(db).map(\.code)), ["FR", "US"])

            var statements: [String] = []
            db.trace { event in
                let sql = event.description
                if !sql.contains("sqlite_temp_master") && !sql.hasPrefix("PRAGMA") { statements.append(sql) }
            }
            let infos = try CountryInfo.fetchAll(
                db, Country.including(all: Self.countryBooks.order(Column("year"))).order(Column("code")))
            db.trace(nil)
            XCTAssertEqual(
                statements,
                [
                    #"SELECT * FROM "country" ORDER BY "code""#,
                    #"SELECT "book".*, "author"."countryCode" AS "grdb_countryCode" FROM "book" "#
                        + #"JOIN "author" ON ("author"."id" = "book"."authorId") "#
                        + #"AND ("author"."countryCode" IN (?, ?)) "#
                        + #"ORDER BY "book"."year""#,
                ])
            XCTAssertEqual(infos.map { $0.books.map(\.year) }, [[1831, 1862], [1851]])

            let france = try XCTUnwrap(Country.fetchOne(db, key: "FR"))
            XCTAssertEqual(try france.request(for: Self.countryBooks).fetchCount(db), 2)

            // Aggregates go through the pivot too.
            let counts = Country.annotated(with: Self.countryBooks.count).order(Column("code"))
            XCTAssertEqual(
                try sql(db, counts),
                #"SELECT "country".*, COUNT(DISTINCT "book"."id") AS "bookCount" FROM "country" "#
                    + #"LEFT JOIN "author" ON "author"."countryCode" = "country"."code" "#
                    + #"LEFT JOIN "book" ON "book"."authorId" = "author"."id" "#
                    // A table whose primary key is not the rowid is grouped by rowid.
                    + #"GROUP BY "country"."rowid" ORDER BY "country"."code""#)
            XCTAssertEqual(try Row.fetchAll(db, counts).map { $0["bookCount"] as Int }, [2, 1])
        }
    }

    func testAssociationToCommonTableExpression() throws {
        try AssociationFixtures.makeLibrary().read { db in
            let oldest = CommonTableExpression(
                named: "oldestBook", request: Book.select(min(Column("year")).forKey("year")))
            let association = Book.association(to: oldest) { book, oldest in
                book[Column("year")] == oldest[Column("year")]
            }
            let request = Book.with(oldest).including(required: association)
            XCTAssertEqual(
                try sql(db, request),
                #"WITH "oldestBook" AS (SELECT MIN("year") AS "year" FROM "book") "#
                    + #"SELECT "book".*, "oldestBook".* FROM "book" "#
                    + #"JOIN "oldestBook" ON "book"."year" = "oldestBook"."year""#)
            let row = try XCTUnwrap(Row.fetchOne(db, request))
            XCTAssertEqual(row["title"], "Beowulf")
            XCTAssertEqual(row.scopes["oldestBook"]?["year"], 1000)

            // Without condition, every row of the expression is joined.
            let cross = Book.with(oldest).joining(required: Book.association(to: oldest)).filter(Column("id") == 1)
            XCTAssertEqual(
                try sql(db, cross),
                #"WITH "oldestBook" AS (SELECT MIN("year") AS "year" FROM "book") "#
                    + #"SELECT "book".* FROM "book" JOIN "oldestBook" WHERE "book"."id" = ?"#)
            XCTAssertEqual(try cross.fetchCount(db), 1)
        }
    }
    /// The columns of a recursive expression cannot be counted from its query alone, which reads the
    /// expression itself: GRDB's error asks for them, and with them the join decodes.
    func testAssociationToARecursiveCommonTableExpression() throws {
        try AssociationFixtures.makeLibrary().read { db in
            let counting = "SELECT 1 AS n UNION ALL SELECT n + 1 FROM counter WHERE n < 2"
            let uncounted = CommonTableExpression(recursive: true, named: "counter", sql: counting)
            let failing = Book.with(uncounted).including(
                required: Book.association(to: uncounted) { book, counter in book[Column("id")] == counter[Column("n")] })
            XCTAssertThrowsError(try Row.fetchAll(db, failing)) { error in
                guard let error = error as? DatabaseError else { return XCTFail("\(error)") }
                XCTAssertEqual(error.resultCode, .SQLITE_ERROR)
                XCTAssertEqual(
                    error.message,
                    #"Can't compute the number of columns in the "counter" common table expression: "#
                        + "no such table: counter. Check the syntax of the SQL definition, or provide the explicit "
                        + "list of selected columns with the `columns` parameter in the CommonTableExpression "
                        + "initializer.")
            }

            let counted = CommonTableExpression(recursive: true, named: "counter", columns: ["n"], sql: counting)
            let request = Book.with(counted)
                .including(required: Book.association(to: counted) { book, counter in book[Column("id")] == counter[Column("n")] })
                .order(Column("id"))
            XCTAssertEqual(
                try sql(db, request),
                #"WITH RECURSIVE "counter"("n") AS (\#(counting)) "#
                    + #"SELECT "book".*, "counter".* FROM "book" "#
                    + #"JOIN "counter" ON "book"."id" = "counter"."n" ORDER BY "book"."id""#)
            let rows = try Row.fetchAll(db, request)
            XCTAssertEqual(rows.map { $0["id"] as Int64 }, [1, 2])
            XCTAssertEqual(rows.map { $0.scopes["counter"]?["n"] as Int64? }, [1, 2])
        }
    }
}
