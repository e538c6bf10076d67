import GraniteTestSupport
import XCTest

import struct GraniteStorage.SplitMix64

@testable import Granite

/// Random libraries (countries, authors, books, with missing links), fetched through associations and
/// compared with the same relations computed in Swift from the inserted values.
final class AssociationRandomizedTests: XCTestCase {
    private typealias Book = AssocBook
    private typealias Author = AssocAuthor
    private typealias Country = AssocCountry

    private struct Library {
        var countries: [AssocCountry] = []
        var authors: [AssocAuthor] = []
        var books: [AssocBook] = []
    }

    private struct BookInfo: Decodable, FetchableRecord {
        var book: AssocBook
        var author: AssocAuthor?
        var country: AssocCountry?
    }

    private struct AuthorInfo: Decodable, FetchableRecord {
        var author: AssocAuthor
        var books: [AssocBook]
        var bookCount: Int
    }

    private func makeLibrary(_ random: inout SplitMix64) -> Library {
        var library = Library()
        for index in 0..<random.int(0...4) {
            library.countries.append(AssocCountry(code: "C\(index)", name: "Country \(index)"))
        }
        for id in 1...Int64(random.int(1...30)) {
            let country = library.countries.isEmpty || random.chance(0.2) ? nil : random.pick(library.countries).code
            library.authors.append(AssocAuthor(id: id, name: "Author \(id)", countryCode: country))
        }
        for id in 1...Int64(random.int(1...80)) {
            let author = random.chance(0.15) ? nil : random.pick(library.authors).id
            library.books.append(
                AssocBook(id: id, authorId: author, title: "Book \(id)", year: random.int(1800...1810)))
        }
        return library
    }

    func testAssociationsAgreeWithTheModel() throws {
        var random = SplitMix64(seed: testSeed())
        for _ in 0..<(5 * stressFactor) {
            let library = makeLibrary(&random)
            let dbQueue = try AssociationFixtures.makeLibrary()
            try dbQueue.write { db in
                try db.execute(sql: "DELETE FROM book; DELETE FROM author; DELETE FROM country")
                for country in library.countries { try country.insert(db) }
                for author in library.authors { try author.insert(db) }
                for book in library.books { try book.insert(db) }
            }
            try dbQueue.read { db in
                try checkJoins(db, library)
                try checkPrefetchesAndAggregates(db, library)
            }
        }
    }

    private func checkJoins(_ db: Database, _ library: Library) throws {
        let authorsById = Dictionary(uniqueKeysWithValues: library.authors.map { ($0.id, $0) })
        let countriesByCode = Dictionary(uniqueKeysWithValues: library.countries.map { ($0.code, $0) })
        let bookCountry = Book.hasOne(Country.self, through: Book.author, using: Author.country)

        let infos = try BookInfo.fetchAll(
            db, Book.including(optional: Book.author).including(optional: bookCountry).order(Column("id")))
        XCTAssertEqual(infos.map(\.book), library.books)
        for info in infos {
            let author = info.book.authorId.flatMap { authorsById[$0] }
            XCTAssertEqual(info.author, author)
            XCTAssertEqual(info.country, author?.countryCode.flatMap { countriesByCode[$0] })
        }

        let required = try Book.including(required: Book.author.including(required: Author.country)).fetchCount(db)
        XCTAssertEqual(
            required, library.books.filter { $0.authorId.flatMap { authorsById[$0]?.countryCode } != nil }.count)
    }

    private func checkPrefetchesAndAggregates(_ db: Database, _ library: Library) throws {
        let booksByAuthor = Dictionary(grouping: library.books.filter { $0.authorId != nil }, by: { $0.authorId! })
        let request =
            Author
            .including(all: Author.books.order(Column("year"), Column("id")))
            .annotated(with: Author.books.count)
            .order(Column("id"))
        let infos = try AuthorInfo.fetchAll(db, request)
        XCTAssertEqual(infos.map(\.author), library.authors)
        for info in infos {
            let expected = (booksByAuthor[info.author.id] ?? []).sorted { ($0.year, $0.id) < ($1.year, $1.id) }
            XCTAssertEqual(info.books, expected)
            XCTAssertEqual(info.bookCount, expected.count)
        }

        let lonely = try Author.having(Author.books.isEmpty).fetchAll(db).map(\.id)
        XCTAssertEqual(Set(lonely), Set(library.authors.map(\.id).filter { booksByAuthor[$0] == nil }))

        let countryBooks = Country.hasMany(Book.self, through: Country.authors, using: Author.books)
        let rows = try Row.fetchAll(db, Country.including(all: countryBooks).order(Column("code")))
        XCTAssertEqual(rows.count, library.countries.count)
        for row in rows {
            let code: String = row["code"]
            let authors = Set(library.authors.filter { $0.countryCode == code }.map(\.id))
            let expected = Set(library.books.filter { $0.authorId.map(authors.contains) ?? false }.map(\.id))
            XCTAssertEqual(Set(row.prefetchedRows["books"]?.map { $0["id"] as Int64 } ?? []), expected)
        }
    }
}
