// The association workloads, compiled twice from this one file: into RecordWorkloadsGranite (`import Granite`)
// and, through a symbolic link, into RecordWorkloadsGRDB (`import GRDB`).
import Foundation

#if GRANITE
    import Granite
#else
    import GRDB
#endif

/// An author of the association workloads.
public struct BenchAuthor: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "author"
    static let books = hasMany(BenchBook.self)

    var id: Int64
    var name: String

    public init(row: Row) throws {
        id = row["id"]
        name = row["name"]
    }

    init(id: Int64, name: String) {
        self.id = id
        self.name = name
    }

    public func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["name"] = name
    }
}

/// A book of the association workloads.
public struct BenchBook: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "book"
    static let author = belongsTo(BenchAuthor.self)

    var id: Int64
    var authorId: Int64
    var title: String
    var year: Int

    public init(row: Row) throws {
        id = row["id"]
        authorId = row["authorId"]
        title = row["title"]
        year = row["year"]
    }

    init(id: Int64, authorId: Int64, title: String, year: Int) {
        self.id = id
        self.authorId = authorId
        self.title = title
        self.year = year
    }

    public func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["authorId"] = authorId
        container["title"] = title
        container["year"] = year
    }
}

/// An author and the books prefetched with `including(all:)`.
struct BenchAuthorWithBooks: FetchableRecord {
    var author: BenchAuthor
    var books: [BenchBook]

    init(row: Row) throws {
        author = try BenchAuthor(row: row)
        books = row["books"]
    }
}

/// A book and its author joined with `including(required:)`.
struct BenchBookWithAuthor: FetchableRecord {
    var book: BenchBook
    var author: BenchAuthor

    init(row: Row) throws {
        book = try BenchBook(row: row)
        author = row["author"]
    }
}

/// An author and the number of its books, from `annotated(with: books.count)`.
struct BenchAuthorWithBookCount: FetchableRecord {
    var author: BenchAuthor
    var bookCount: Int

    init(row: Row) throws {
        author = try BenchAuthor(row: row)
        bookCount = row["bookCount"]
    }
}

/// Authors with ten books each, and the association requests of the workloads.
public final class AssociationHarness {
    let dbQueue: DatabaseQueue
    /// The books of each author.
    public static let booksPerAuthor = 10

    /// Creates the database at `path` (WAL, synchronous NORMAL) with `authorCount` authors and their books.
    public init(path: String, authorCount: Int) throws {
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        dbQueue = try DatabaseQueue(path: path, configuration: configuration)
        try dbQueue.write { db in
            try db.create(table: "author") { t in
                t.column("id", .integer).primaryKey()
                t.column("name", .text).notNull()
            }
            try db.create(table: "book") { t in
                t.column("id", .integer).primaryKey()
                t.column("authorId", .integer).notNull().indexed().references("author")
                t.column("title", .text).notNull()
                t.column("year", .integer).notNull()
            }
            for a in 1...authorCount {
                try BenchAuthor(id: Int64(a), name: "Author \(a)").insert(db)
                for b in 0..<Self.booksPerAuthor {
                    let id = Int64((a - 1) * Self.booksPerAuthor + b + 1)
                    try BenchBook(id: id, authorId: Int64(a), title: "Book \(id)", year: 1900 + (a * 7 + b) % 120)
                        .insert(db)
                }
            }
        }
    }

    /// `Author.including(all: Author.books).fetchAll`.
    public func includingAllBooks() throws -> RecordResult {
        let infos = try dbQueue.read { db in
            try BenchAuthorWithBooks.fetchAll(db, BenchAuthor.including(all: BenchAuthor.books))
        }
        var checksum: UInt64 = 0
        for info in infos {
            checksum = checksum &* 31 &+ UInt64(info.author.id)
            for book in info.books { checksum = checksum &* 31 &+ UInt64(book.id) &+ UInt64(book.year) }
        }
        return RecordResult(count: infos.count, checksum: checksum)
    }

    /// `Book.including(required: Book.author).fetchAll`.
    public func includingRequiredAuthor() throws -> RecordResult {
        let infos = try dbQueue.read { db in
            try BenchBookWithAuthor.fetchAll(db, BenchBook.including(required: BenchBook.author))
        }
        var checksum: UInt64 = 0
        for info in infos {
            checksum = checksum &* 31 &+ UInt64(info.book.id) &+ UInt64(info.author.id)
            checksum = checksum &+ UInt64(info.author.name.utf8.count)
        }
        return RecordResult(count: infos.count, checksum: checksum)
    }

    /// `Author.annotated(with: Author.books.count).fetchAll`.
    public func annotatedWithBookCount() throws -> RecordResult {
        let infos = try dbQueue.read { db in
            try BenchAuthorWithBookCount.fetchAll(db, BenchAuthor.annotated(with: BenchAuthor.books.count))
        }
        var checksum: UInt64 = 0
        for info in infos { checksum = checksum &* 31 &+ UInt64(info.author.id) &+ UInt64(info.bookCount) }
        return RecordResult(count: infos.count, checksum: checksum)
    }

    /// Closes the database.
    public func close() throws {
        try dbQueue.close()
    }
}
