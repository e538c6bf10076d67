import Granite

// A small library: countries, authors, books, and people who have a parent. The SQL of the schema declares
// the foreign keys the associations infer; tables without foreign keys test explicit `ForeignKey`s.

struct AssocCountry: Codable, FetchableRecord, PersistableRecord, Hashable {
    static let databaseTableName = "country"
    static let authors = hasMany(AssocAuthor.self)
    var code: String
    var name: String
}

struct AssocAuthor: Codable, FetchableRecord, PersistableRecord, Hashable {
    static let databaseTableName = "author"
    static let books = hasMany(AssocBook.self)
    static let country = belongsTo(AssocCountry.self)
    var id: Int64
    var name: String
    var countryCode: String?
}

struct AssocBook: Codable, FetchableRecord, PersistableRecord, Hashable {
    static let databaseTableName = "book"
    static let author = belongsTo(AssocAuthor.self)
    var id: Int64
    var authorId: Int64?
    var title: String
    var year: Int
}

/// People and their parent: a table joined to itself.
struct AssocPerson: Codable, FetchableRecord, PersistableRecord, Hashable {
    static let databaseTableName = "person"
    static let parent = belongsTo(AssocPerson.self, key: "parent")
    static let children = hasMany(AssocPerson.self, key: "children")
    var id: Int64
    var parentId: Int64?
    var name: String
}

enum AssociationFixtures {
    static func makeLibrary() throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE country (code TEXT PRIMARY KEY, name TEXT NOT NULL);
                    CREATE TABLE author (
                        id INTEGER PRIMARY KEY, name TEXT NOT NULL, countryCode TEXT REFERENCES country(code));
                    CREATE TABLE book (
                        id INTEGER PRIMARY KEY, authorId INTEGER REFERENCES author(id), title TEXT NOT NULL,
                        year INTEGER NOT NULL);
                    CREATE INDEX book_authorId ON book(authorId);
                    CREATE TABLE person (id INTEGER PRIMARY KEY, parentId INTEGER REFERENCES person(id), name TEXT);
                    INSERT INTO country VALUES ('FR', 'France'), ('US', 'United States');
                    INSERT INTO author VALUES (1, 'Victor Hugo', 'FR'), (2, 'Herman Melville', 'US'),
                        (3, 'Anonymous', NULL);
                    INSERT INTO book VALUES (1, 1, 'Les Misérables', 1862), (2, 1, 'Notre-Dame de Paris', 1831),
                        (3, 2, 'Moby-Dick', 1851), (4, NULL, 'Beowulf', 1000);
                    INSERT INTO person VALUES (1, NULL, 'Ada'), (2, 1, 'Bob'), (3, 2, 'Cid');
                    """)
        }
        return dbQueue
    }

    static func sql(_ db: Database, _ request: some FetchRequest) throws -> String {
        try request.makePreparedRequest(db, forSingleResult: false).statement.sql
    }
}
