import Granite
import XCTest

/// Decoding joined records, association keys, and the errors of foreign key inference.
final class AssociationDecodingTests: XCTestCase {
    private typealias Book = AssocBook
    private typealias Author = AssocAuthor
    private typealias Country = AssocCountry

    private struct BookInfo: Decodable, FetchableRecord {
        var book: AssocBook
        var author: AssocAuthor?
    }

    private struct FullBookInfo: Decodable, FetchableRecord {
        struct AuthorInfo: Decodable {
            var author: AssocAuthor
            var country: AssocCountry?
        }
        var book: AssocBook
        var authorInfo: AuthorInfo
    }

    func testDecodingNestedRecords() throws {
        try AssociationFixtures.makeLibrary().read { db in
            let infos = try Book.including(optional: Book.author).order(Column("id")).asRequest(of: BookInfo.self)
                .fetchAll(db)
            XCTAssertEqual(infos.map(\.book.title), ["Les Misérables", "Notre-Dame de Paris", "Moby-Dick", "Beowulf"])
            XCTAssertEqual(infos.map(\.author?.name), ["Victor Hugo", "Victor Hugo", "Herman Melville", nil])

            // Custom keys: the scope of the author is named after the coding key of the nested record, and the
            // country is decoded from a scope nested in it.
            let request =
                Book
                .including(required: Book.author.forKey("authorInfo").including(optional: Author.country))
                .order(Column("year").desc)
            let full = try FullBookInfo.fetchAll(db, request)
            XCTAssertEqual(full.map(\.authorInfo.author.name), ["Victor Hugo", "Herman Melville", "Victor Hugo"])
            XCTAssertEqual(full.map(\.authorInfo.country?.code), ["FR", "US", "FR"])

            // Records decoded from the scopes of rows.
            let row = try XCTUnwrap(Row.fetchOne(db, Book.including(required: Book.author).filter(Column("id") == 3)))
            let author: AssocAuthor = row["author"]
            XCTAssertEqual(author.name, "Herman Melville")
            XCTAssertEqual(try Book(row: row).title, "Moby-Dick")
            XCTAssertEqual(row.count, 4, "the base row only holds the columns of the book")
        }
    }

    func testSelectedColumnsOfAssociations() throws {
        try AssociationFixtures.makeLibrary().read { db in
            let request =
                Book
                .select(Column("title"))
                .including(required: Book.author.select(Column("name"), Column("id").forKey("authorNumber")))
                .order(Column("id"))
            XCTAssertEqual(
                try AssociationFixtures.sql(db, request),
                #"SELECT "book"."title", "author"."name", "author"."id" AS "authorNumber" FROM "book" "#
                    + #"JOIN "author" ON "author"."id" = "book"."authorId" ORDER BY "book"."id""#)
            let row = try XCTUnwrap(Row.fetchOne(db, request))
            XCTAssertEqual(Array(row.columnNames), ["title"])
            XCTAssertEqual(row["title"], "Les Misérables")
            let authorRow = try XCTUnwrap(row.scopes["author"])
            XCTAssertEqual(Array(authorRow.columnNames), ["name", "authorNumber"])
            XCTAssertEqual(authorRow["authorNumber"], 1)

            let excluding = Book.including(required: Book.author.select(.allColumns(excluding: ["countryCode"])))
            XCTAssertEqual(
                try AssociationFixtures.sql(db, excluding),
                #"SELECT "book".*, "author"."id", "author"."name" FROM "book" "#
                    + #"JOIN "author" ON "author"."id" = "book"."authorId""#)
            XCTAssertEqual(try Row.fetchOne(db, excluding)?.scopes["author"]?.count, 2)
        }
    }

    func testAssociationKeys() throws {
        try AssociationFixtures.makeLibrary().read { db in
            // Keys are the inflected table names: singular for joins, whatever the declared cardinality.
            let authorsWithBook = try XCTUnwrap(Row.fetchOne(db, Author.including(required: Author.books)))
            XCTAssertEqual(Set(authorsWithBook.scopes.names), ["book"])
            // A key given to a to-many association is plural: joined, its singular form names the scope.
            let keyed = try XCTUnwrap(Row.fetchOne(db, Author.including(required: Author.books.forKey("novels"))))
            XCTAssertEqual(Set(keyed.scopes.names), ["novel"])
            // A key given to a to-one association is used as is.
            let writer = try XCTUnwrap(
                Row.fetchOne(db, Book.including(required: Book.belongsTo(Author.self, key: "writer"))))
            XCTAssertEqual(Set(writer.scopes.names), ["writer"])
            // Plural table names are singularized, irregular ones too.
            XCTAssertEqual("people".singularizedForTest, "person")
        }
    }

    func testForeignKeyErrors() throws {
        let dbQueue = try AssociationFixtures.makeLibrary()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE review (id INTEGER PRIMARY KEY, bookId INTEGER, text TEXT);
                    CREATE TABLE translation (
                        id INTEGER PRIMARY KEY,
                        originalId INTEGER REFERENCES book(id),
                        translatedId INTEGER REFERENCES book(id));
                    INSERT INTO review VALUES (1, 3, 'A whale of a tale');
                    INSERT INTO translation VALUES (1, 1, 2);
                    """)
            let review = Table("review")
            let missing = review.including(required: review.belongsTo(Book.self))
            XCTAssertThrowsError(try missing.fetchAll(db)) { error in
                let error = error as? DatabaseError
                XCTAssertEqual(error?.resultCode, .SQLITE_MISUSE)
                XCTAssertEqual(
                    error?.message,
                    "Could not infer foreign key from 'review' to 'book'. "
                        + "To fix this error, provide an explicit `ForeignKey` in the association definition.")
            }
            // Origin columns alone are matched with the primary key of the destination.
            let explicit = review.including(required: review.belongsTo(Book.self, using: ForeignKey(["bookId"])))
            XCTAssertEqual(
                try AssociationFixtures.sql(db, explicit),
                #"SELECT "review".*, "book".* FROM "review" JOIN "book" ON "book"."id" = "review"."bookId""#)
            XCTAssertEqual(try Row.fetchOne(db, explicit)?.scopes["book"]?["title"], "Moby-Dick")

            let translation = Table("translation")
            let ambiguous = translation.including(required: translation.belongsTo(Book.self))
            XCTAssertThrowsError(try ambiguous.fetchAll(db)) { error in
                XCTAssertEqual(
                    (error as? DatabaseError)?.message,
                    "Ambiguous foreign key from 'translation' to 'book'. "
                        + "To fix this error, provide an explicit `ForeignKey` in the association definition.")
            }
            // Origin columns pick one of the foreign keys of the schema.
            let original = translation.belongsTo(Book.self, key: "original", using: ForeignKey(["originalId"]))
            let translated = translation.belongsTo(Book.self, key: "translated", using: ForeignKey(["translatedId"]))
            let both = translation.including(required: original).including(required: translated)
            XCTAssertEqual(
                try AssociationFixtures.sql(db, both),
                #"SELECT "translation".*, "book1".*, "book2".* FROM "translation" "#
                    + #"JOIN "book" "book1" ON "book1"."id" = "translation"."originalId" "#
                    + #"JOIN "book" "book2" ON "book2"."id" = "translation"."translatedId""#)
            let row = try XCTUnwrap(Row.fetchOne(db, both))
            XCTAssertEqual(row.scopes["original"]?["title"], "Les Misérables")
            XCTAssertEqual(row.scopes["translated"]?["title"], "Notre-Dame de Paris")

            // A destination without foreign key from the origin can not be inferred, even when it does not
            // exist; an origin that does not exist is reported as such.
            let unknownDestination = translation.including(required: translation.belongsTo(Table("nowhere")))
            XCTAssertThrowsError(try unknownDestination.fetchAll(db)) { error in
                XCTAssertEqual(
                    (error as? DatabaseError)?.message,
                    "Could not infer foreign key from 'translation' to 'nowhere'. "
                        + "To fix this error, provide an explicit `ForeignKey` in the association definition.")
            }
            let nowhere = Table("nowhere")
            XCTAssertThrowsError(try nowhere.including(required: nowhere.belongsTo(Book.self)).fetchAll(db)) { error in
                XCTAssertEqual((error as? DatabaseError)?.message, "no such table: nowhere")
            }
        }
    }

    func testCompositeAndHiddenRowIDPrimaryKeys() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE edition (bookId INTEGER, number INTEGER, name TEXT, PRIMARY KEY (bookId, number));
                    CREATE TABLE printing (
                        id INTEGER PRIMARY KEY, bookId INTEGER, editionNumber INTEGER, copies INTEGER,
                        FOREIGN KEY (bookId, editionNumber) REFERENCES edition(bookId, number));
                    CREATE TABLE shelf (name TEXT);
                    CREATE TABLE slot (shelfId INTEGER, position INTEGER);
                    INSERT INTO edition VALUES (1, 1, 'First'), (1, 2, 'Second');
                    INSERT INTO printing VALUES (1, 1, 2, 500), (2, 1, 1, 1000), (3, 1, 1, 10);
                    INSERT INTO shelf(rowid, name) VALUES (7, 'Poetry');
                    INSERT INTO slot VALUES (7, 1), (8, 2);
                    """)
            let printing = Table("printing")
            let edition = Table("edition")
            let request = printing.including(required: printing.belongsTo(edition)).order(Column("id"))
            XCTAssertEqual(
                try AssociationFixtures.sql(db, request),
                #"SELECT "printing".*, "edition".* FROM "printing" JOIN "edition" "#
                    + #"ON ("edition"."bookId" = "printing"."bookId") "#
                    + #"AND ("edition"."number" = "printing"."editionNumber") "#
                    + #"ORDER BY "printing"."id""#)
            XCTAssertEqual(
                try Row.fetchAll(db, request).map { $0.scopes["edition"]?["name"] as String? },
                ["Second", "First", "First"])

            let printings = edition.hasMany(printing)
            let editions = edition.joining(required: printings.filter(Column("copies") >= 500)).order(Column("number"))
            XCTAssertEqual(
                try AssociationFixtures.sql(db, editions),
                #"SELECT "edition".* FROM "edition" JOIN "printing" "#
                    + #"ON ("printing"."bookId" = "edition"."bookId") "#
                    + #"AND ("printing"."editionNumber" = "edition"."number") "#
                    + #"AND ("printing"."copies" >= ?) ORDER BY "edition"."number""#)
            XCTAssertEqual(try editions.fetchAll(db).map { $0["name"] as String }, ["First", "Second"])

            // A table without primary key is joined on its hidden rowid.
            let slot = Table("slot")
            let shelf = slot.belongsTo(Table("shelf"), using: ForeignKey(["shelfId"]))
            let slots = slot.including(optional: shelf).order(Column("position"))
            XCTAssertEqual(
                try AssociationFixtures.sql(db, slots),
                #"SELECT "slot".*, "shelf".* FROM "slot" LEFT JOIN "shelf" ON "shelf"."rowid" = "slot"."shelfId" "#
                    + #"ORDER BY "slot"."position""#)
            XCTAssertEqual(
                try Row.fetchAll(db, slots).map { $0.scopes["shelf"]?["name"] as String? }, ["Poetry", nil])
        }
    }
}

extension String {
    /// The singular form the association keys use.
    fileprivate var singularizedForTest: String { Inflections.default.singularize(self) }
}
