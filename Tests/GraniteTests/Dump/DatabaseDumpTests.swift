import Foundation
import Granite
import XCTest

/// `dumpRequest`, `dumpTables`, `dumpSchema` and `dumpContent`: what they print, in GRDB's layout.
final class DatabaseDumpTests: XCTestCase {
    private struct Author: Codable, FetchableRecord, PersistableRecord {
        static let books = hasMany(Book.self)
        var id: Int64
        var name: String
    }

    private struct Book: Codable, FetchableRecord, PersistableRecord {
        static let author = belongsTo(Author.self)
        var id: Int64
        var authorId: Int64?
        var title: String
    }

    /// Two authors, three books (one without author), an index, a view and a trigger.
    private func makeLibrary() throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE book(id INTEGER PRIMARY KEY, authorId INTEGER REFERENCES author(id), title TEXT NOT NULL);
                CREATE INDEX book_on_authorId ON book(authorId);
                CREATE VIEW title AS SELECT title FROM book ORDER BY id DESC;
                CREATE TRIGGER author_delete AFTER DELETE ON author BEGIN DELETE FROM book WHERE authorId = OLD.id; END;
                INSERT INTO author VALUES (2, 'Zola'), (1, 'Austen');
                INSERT INTO book VALUES (3, 1, 'Emma'), (1, 2, 'Nana'), (2, NULL, 'Beowulf');
                """)
        }
        return queue
    }

    private func output(_ body: (DumpOutput) throws -> Void) rethrows -> String {
        let output = DumpOutput()
        try body(output)
        return output.text
    }

    func testDumpRequest() throws {
        let queue = try makeLibrary()
        XCTAssertEqual(try output { try queue.dumpRequest(Book.orderByPrimaryKey(), to: $0) }, """
            1|2|Nana
            2||Beowulf
            3|1|Emma

            """)
        XCTAssertEqual(try output { try queue.dumpRequest(Book.including(required: Book.author).order(Column("title")), format: .quote(), to: $0) }, """
            3,1,'Emma',1,'Austen'
            1,2,'Nana',2,'Zola'

            """)
    }

    func testDumpRequestPrintsPrefetchedRowsAfterTheirKey() throws {
        let queue = try makeLibrary()
        let request = Author.orderByPrimaryKey().including(all: Author.books.orderByPrimaryKey())
        XCTAssertEqual(try output { try queue.dumpRequest(request, to: $0) }, """
            1|Austen
            2|Zola

            books
            1|2|Nana
            3|1|Emma

            """)
        XCTAssertEqual(try output { try queue.dumpRequest(request, format: .json(), to: $0) }, """
            [{"id":1,"name":"Austen"},
            {"id":2,"name":"Zola"}]

            books
            [{"id":1,"authorId":2,"title":"Nana"},
            {"id":3,"authorId":1,"title":"Emma"}]

            """)
    }

    func testDumpTables() throws {
        let queue = try makeLibrary()
        XCTAssertEqual(try output { try queue.dumpTables([], to: $0) }, "")
        XCTAssertEqual(try output { try queue.dumpTables(["author"], to: $0) }, "1|Austen\n2|Zola\n")
        XCTAssertEqual(try output { try queue.dumpTables(["author"], tableHeader: .always, to: $0) }, "author\n1|Austen\n2|Zola\n")
        XCTAssertEqual(try output { try queue.dumpTables(["author", "title"], format: .list(header: true), to: $0) }, """
            author
            id|name
            1|Austen
            2|Zola

            title
            title
            Emma
            Beowulf
            Nana

            """)
        XCTAssertEqual(try output { try queue.dumpTables(["title"], stableOrder: true, to: $0) }, "Beowulf\nEmma\nNana\n")
        XCTAssertThrowsError(try queue.dumpTables(["missing"], to: DumpOutput()))
    }

    func testDumpSchema() throws {
        XCTAssertEqual(try output { try DatabaseQueue().dumpSchema(to: $0) }, "sqlite_master\n")
        let queue = try makeLibrary()
        XCTAssertEqual(try output { try queue.dumpSchema(to: $0) }, """
            sqlite_master
            CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            CREATE TRIGGER author_delete AFTER DELETE ON author BEGIN DELETE FROM book WHERE authorId = OLD.id; END;
            CREATE TABLE book(id INTEGER PRIMARY KEY, authorId INTEGER REFERENCES author(id), title TEXT NOT NULL);
            CREATE INDEX book_on_authorId ON book(authorId);
            CREATE VIEW title AS SELECT title FROM book ORDER BY id DESC;

            """)
    }

    func testDumpContentLeavesOutInternalTables() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE Zebra(id INTEGER PRIMARY KEY AUTOINCREMENT, name);
                CREATE TABLE apple(name);
                CREATE TABLE grdb_internal(a);
                INSERT INTO Zebra(name) VALUES ('z');
                INSERT INTO grdb_internal VALUES (1);
                """)
        }
        XCTAssertEqual(try output { try queue.dumpContent(to: $0) }, """
            sqlite_master
            CREATE TABLE apple(name);
            CREATE TABLE Zebra(id INTEGER PRIMARY KEY AUTOINCREMENT, name);

            apple

            Zebra
            1|z

            """)
        XCTAssertEqual(try output { try queue.dumpContent(format: .json(), to: $0) }, """
            sqlite_master
            CREATE TABLE apple(name);
            CREATE TABLE Zebra(id INTEGER PRIMARY KEY AUTOINCREMENT, name);

            apple
            []

            Zebra
            [{"id":1,"name":"z"}]

            """)
    }

    func testDumpFromInsideAnAccess() throws {
        let queue = try makeLibrary()
        let text = try queue.write { db in
            try db.execute(sql: "INSERT INTO author VALUES (3, 'Hugo')")
            return try output { try queue.dumpSQL("SELECT name FROM author WHERE id = 3", to: $0) }
        }
        XCTAssertEqual(text, "Hugo\n")
    }
}
