import Granite
import XCTest

/// The SQL of requests that join to-one associations, as GRDB writes it, and the rows they fetch.
final class AssociationJoinSQLTests: XCTestCase {
    private typealias Book = AssocBook
    private typealias Author = AssocAuthor
    private typealias Country = AssocCountry
    private typealias Person = AssocPerson

    private func sql(_ db: Database, _ request: some FetchRequest) throws -> String {
        try AssociationFixtures.sql(db, request)
    }

    func testBelongsToIncludingAndJoining() throws {
        try AssociationFixtures.makeLibrary().read { db in
            let required = Book.including(required: Book.author)
            XCTAssertEqual(
                try sql(db, required),
                #"SELECT "book".*, "author".* FROM "book" JOIN "author" ON "author"."id" = "book"."authorId""#)
            XCTAssertEqual(try required.fetchCount(db), 3)

            let optional = Book.including(optional: Book.author)
            XCTAssertEqual(
                try sql(db, optional),
                #"SELECT "book".*, "author".* FROM "book" LEFT JOIN "author" ON "author"."id" = "book"."authorId""#)
            XCTAssertEqual(try optional.fetchCount(db), 4)

            XCTAssertEqual(
                try sql(db, Book.joining(required: Book.author)),
                #"SELECT "book".* FROM "book" JOIN "author" ON "author"."id" = "book"."authorId""#)
            XCTAssertEqual(
                try sql(db, Book.joining(optional: Book.author)),
                #"SELECT "book".* FROM "book" LEFT JOIN "author" ON "author"."id" = "book"."authorId""#)

            // The association's filter goes to the ON clause.
            let hugoBooks = Book.joining(required: Book.author.filter(Column("name") == "Victor Hugo"))
            XCTAssertEqual(
                try sql(db, hugoBooks),
                #"SELECT "book".* FROM "book" "#
                    + #"JOIN "author" ON ("author"."id" = "book"."authorId") AND ("author"."name" = ?)"#
            )
            XCTAssertEqual(
                try hugoBooks.order(Column("year")).fetchAll(db).map(\.title),
                ["Notre-Dame de Paris", "Les Misérables"])
        }
    }

    func testTableAssociationsAndTableRequests() throws {
        try AssociationFixtures.makeLibrary().read { db in
            let bookTable = Table("book")
            let author = bookTable.belongsTo(Table("author"))
            XCTAssertEqual(
                try sql(db, bookTable.including(required: author)),
                #"SELECT "book".*, "author".* FROM "book" JOIN "author" ON "author"."id" = "book"."authorId""#)
            let rows = try bookTable.including(required: author).order(Column("id")).fetchAll(db)
            XCTAssertEqual(rows.count, 3)
            XCTAssertEqual(rows[0]["title"], "Les Misérables")
            XCTAssertEqual(rows[0].scopes["author"]?["name"], "Victor Hugo")
            XCTAssertEqual(Array(rows[0].scopes.names), ["author"])
        }
    }

    func testRequestClausesAreQualifiedAndOrderingsFollowJoins() throws {
        try AssociationFixtures.makeLibrary().read { db in
            let request =
                Book
                .including(required: Book.author.order(Column("name").desc))
                .filter(Column("year") > 1840)
                .order(Column("title"))
            XCTAssertEqual(
                try sql(db, request),
                #"SELECT "book".*, "author".* FROM "book" JOIN "author" ON "author"."id" = "book"."authorId" "#
                    + #"WHERE "book"."year" > ? ORDER BY "book"."title", "author"."name" DESC"#)
            XCTAssertEqual(try request.fetchAll(db).map(\.title), ["Les Misérables", "Moby-Dick"])

            // Reversing the request reverses the orderings of the joined tables too.
            XCTAssertEqual(
                try sql(db, request.reversed()),
                #"SELECT "book".*, "author".* FROM "book" JOIN "author" ON "author"."id" = "book"."authorId" "#
                    + #"WHERE "book"."year" > ? ORDER BY "book"."title" DESC, "author"."name" ASC"#)
            // Unordering the request unorders the joined tables.
            XCTAssertEqual(
                try sql(db, request.unordered()),
                #"SELECT "book".*, "author".* FROM "book" JOIN "author" ON "author"."id" = "book"."authorId" "#
                    + #"WHERE "book"."year" > ?"#)

            // A join can multiply rows: fetchOne always limits.
            let prepared = try request.makePreparedRequest(db, forSingleResult: true)
            XCTAssertTrue(prepared.statement.sql.hasSuffix(" LIMIT 1"))
            XCTAssertEqual(try request.fetchOne(db)?.title, "Les Misérables")
        }
    }

    func testChainedAndParallelAssociations() throws {
        try AssociationFixtures.makeLibrary().read { db in
            let chain = Book.including(required: Book.author.including(optional: Author.country))
            XCTAssertEqual(
                try sql(db, chain),
                #"SELECT "book".*, "author".*, "country".* FROM "book" "#
                    + #"JOIN "author" ON "author"."id" = "book"."authorId" "#
                    + #"LEFT JOIN "country" ON "country"."code" = "author"."countryCode""#)
            let rows = try Row.fetchAll(db, chain.order(Column("id")))
            XCTAssertEqual(
                rows.map { $0.scopes["author"]?.scopes["country"]?["name"] as String? },
                ["France", "France", "United States"])
            XCTAssertEqual(rows[0].scopesTree["country"]?["code"], "FR")

            // A required join behind an optional one is not implemented, as in GRDB.
            let invalid = Book.including(optional: Book.author.including(required: Author.country))
            XCTAssertThrowsError(try invalid.fetchAll(db)) { error in
                XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_MISUSE)
                XCTAssertEqual(
                    (error as? DatabaseError)?.message,
                    "Not implemented: chaining a required association behind an optional association")
            }

            // A table joined twice gets numbered aliases.
            let grandParents = Person.including(
                optional: Person.parent.including(optional: Person.parent.forKey("grandParent")))
            XCTAssertEqual(
                try sql(db, grandParents),
                #"SELECT "person1".*, "person2".*, "person3".* FROM "person" "person1" "#
                    + #"LEFT JOIN "person" "person2" ON "person2"."id" = "person1"."parentId" "#
                    + #"LEFT JOIN "person" "person3" ON "person3"."id" = "person2"."parentId""#)
            let cid = try XCTUnwrap(Row.fetchOne(db, grandParents.filter(Column("name") == "Cid")))
            XCTAssertEqual(cid.scopes["parent"]?["name"], "Bob")
            XCTAssertEqual(cid.scopes["parent"]?.scopes["grandParent"]?["name"], "Ada")

            // Parallel associations, one of them a has-many joined under its singular key.
            let parallel = Author.including(optional: Author.country).joining(required: Author.books)
            XCTAssertEqual(
                try sql(db, parallel),
                #"SELECT "author".*, "country".* FROM "author" "#
                    + #"LEFT JOIN "country" ON "country"."code" = "author"."countryCode" "#
                    + #"JOIN "book" ON "book"."authorId" = "author"."id""#)
            XCTAssertEqual(
                try sql(db, Author.including(required: Author.books)),
                #"SELECT "author".*, "book".* FROM "author" JOIN "book" ON "book"."authorId" = "author"."id""#)
            let row = try XCTUnwrap(Row.fetchOne(db, Author.including(required: Author.books).order(sql: "book.id")))
            XCTAssertEqual(row.scopes["book"]?["title"], "Les Misérables")
        }
    }

    func testTableAliasesInFiltersAndOrderings() throws {
        try AssociationFixtures.makeLibrary().read { db in
            let authorAlias = TableAlias()
            let request =
                Book
                .joining(required: Book.author.aliased(authorAlias))
                .filter(authorAlias[Column("name")] != "Herman Melville")
                .order(authorAlias[Column("name")], Column("year"))
            XCTAssertEqual(
                try sql(db, request),
                #"SELECT "book".* FROM "book" JOIN "author" ON "author"."id" = "book"."authorId" "#
                    + #"WHERE "author"."name" <> ? ORDER BY "author"."name", "book"."year""#)
            XCTAssertEqual(try request.fetchAll(db).map(\.title), ["Notre-Dame de Paris", "Les Misérables"])

            // A named alias renames the joined table.
            let a = TableAlias(name: "a")
            let named = Book.including(optional: Book.author.aliased(a)).filter(!a.exists)
            XCTAssertEqual(
                try sql(db, named),
                #"SELECT "book".*, "a".* FROM "book" LEFT JOIN "author" "a" ON "a"."id" = "book"."authorId" "#
                    + #"WHERE "a"."id" IS NULL"#)
            XCTAssertEqual(try named.fetchAll(db).map(\.title), ["Beowulf"])

            // A user alias named after a table: the anonymous table is renumbered.
            let person = TableAlias(name: "person")
            XCTAssertEqual(
                try sql(db, Person.including(required: Person.parent.aliased(person))),
                #"SELECT "person1".*, "person".* FROM "person" "person1" "#
                    + #"JOIN "person" ON "person"."id" = "person1"."parentId""#)
        }
    }

    func testMergingTheSameAssociation() throws {
        try AssociationFixtures.makeLibrary().read { db in
            // The same key twice is one join: required wins, filters add up, and it moves to the end.
            let request =
                Book
                .joining(optional: Book.author.filter(Column("name") != "Anonymous"))
                .including(optional: AssocBook.author.forKey("translator"))
                .including(required: Book.author)
            XCTAssertEqual(
                try sql(db, request),
                #"SELECT "book".*, "author1".*, "author2".* FROM "book" "#
                    + #"LEFT JOIN "author" "author1" ON "author1"."id" = "book"."authorId" "#
                    + #"JOIN "author" "author2" ON ("author2"."id" = "book"."authorId") AND ("author2"."name" <> ?)"#)
        }
    }

    func testRequestForRecord() throws {
        try AssociationFixtures.makeLibrary().read { db in
            let book = try XCTUnwrap(Book.fetchOne(db, key: 3))
            let authorRequest = book.request(for: Book.author)
            XCTAssertEqual(try sql(db, authorRequest), #"SELECT * FROM "author" WHERE "id" = ?"#)
            XCTAssertEqual(try authorRequest.fetchOne(db)?.name, "Herman Melville")

            let hugo = try XCTUnwrap(Author.fetchOne(db, key: 1))
            let books = hugo.request(for: Author.books).order(Column("year"))
            XCTAssertEqual(try sql(db, books), #"SELECT * FROM "book" WHERE "authorId" = ? ORDER BY "year""#)
            XCTAssertEqual(try books.fetchAll(db).map(\.year), [1831, 1862])

            let beowulf = try XCTUnwrap(Book.fetchOne(db, key: 4))
            XCTAssertEqual(try sql(db, beowulf.request(for: Book.author)), #"SELECT * FROM "author" WHERE ?"#)
            XCTAssertNil(try beowulf.request(for: Book.author).fetchOne(db))

            let aliased = book.request(for: Book.author).aliased(TableAlias(name: "custom"))
            XCTAssertEqual(try sql(db, aliased), #"SELECT "custom".* FROM "author" "custom" WHERE "custom"."id" = ?"#)
        }
    }

    func testDeleteAndUpdateThroughJoins() throws {
        let dbQueue = try AssociationFixtures.makeLibrary()
        try dbQueue.write { db in
            let melvilleBooks = Book.joining(required: Book.author.filter(Column("name") == "Herman Melville"))
            XCTAssertEqual(try melvilleBooks.updateAll(db, Column("year").set(to: 1852)), 1)
            XCTAssertEqual(try Book.fetchOne(db, key: 3)?.year, 1852)
            XCTAssertEqual(try melvilleBooks.deleteAll(db), 1)
            XCTAssertEqual(try Book.fetchCount(db), 3)
        }
    }
}
