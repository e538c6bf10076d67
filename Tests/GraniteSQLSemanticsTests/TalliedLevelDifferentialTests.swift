import CSQLiteOracle
import GraniteStorage
import GraniteTestSupport
import XCTest

@testable import GraniteSQL

/// Aggregate queries whose join counts its last level's rows instead of visiting them
/// (`SelectProgram.talliesLastLevel`): which queries the compiler tallies, and their results against SQLite's,
/// tallied or not, over LEFT and inner joins with and without conditions on the counted level, NULL and mismatched
/// join keys, authors without books, grouping, HAVING and ORDER BY on the counts.
final class TalliedLevelDifferentialTests: XCTestCase {
    static let schema = [
        "CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT)",
        "CREATE TABLE book(id INTEGER PRIMARY KEY, authorId INTEGER, title TEXT NOT NULL DEFAULT 't', x)",
        "CREATE INDEX book_author ON book(authorId)",
        "CREATE INDEX book_x ON book(x)",
        "CREATE TABLE tag(id INTEGER PRIMARY KEY, bookId, label TEXT)",
        "CREATE INDEX tag_book ON tag(bookId)",
        "CREATE TABLE note(authorId, body TEXT)",
    ]

    /// Whether `sql`'s program tallies its last level.
    private func tallies(_ db: SQLConnection, _ sql: String) throws -> Bool {
        let prepared = try db.prepare(sql)
        guard case .select(let select) = prepared.statement.kind else {
            XCTFail("not a SELECT: \(sql)")
            return false
        }
        return try prepared.selectProgram(select).talliesLastLevel
    }

    func testCompilerTalliesCountsOfTheLastLevelOnly() throws {
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        for statement in Self.schema { try db.execute(statement) }
        let tallied = [
            // GRDB's `Author.annotated(with: Author.books.count)`.
            "SELECT author.*, COUNT(DISTINCT book.id) AS bookCount FROM author LEFT JOIN book "
                + "ON book.authorId = author.id GROUP BY author.id",
            // GRDB's `Author.having(Author.books.isEmpty)`.
            "SELECT author.* FROM author LEFT JOIN book ON book.authorId = author.id GROUP BY author.id "
                + "HAVING COUNT(DISTINCT book.id) = 0",
            "SELECT count(*) FROM book WHERE authorId = 3",
            // CROSS JOIN keeps the tables in their order: the book is the last level.
            "SELECT count(*), count(book.title), count(book.rowid) FROM author CROSS JOIN book "
                + "ON book.authorId = author.id",
            "SELECT author.name, count(*) FROM author CROSS JOIN book WHERE book.authorId = author.id "
                + "GROUP BY author.name ORDER BY 2 DESC",
            // A count of an earlier level's column adds the last level's rows when it is not NULL.
            "SELECT count(book.x), count(*) FROM book CROSS JOIN author ON author.id = book.authorId",
            // The planner makes the author the last level here: the books are read in the order of `x`.
            "SELECT count(*) FROM author JOIN book ON book.authorId = author.id GROUP BY book.x",
            "SELECT count(note.rowid) FROM author LEFT JOIN note ON note.authorId = author.id",
        ]
        for sql in tallied {
            XCTAssertTrue(try tallies(db, sql), sql)
        }
        let visited = [
            // A column that may be NULL, another aggregate, DISTINCT that the join may need, a FILTER.
            "SELECT count(book.x) FROM author CROSS JOIN book ON book.authorId = author.id",
            "SELECT count(*), sum(book.x) FROM author JOIN book ON book.authorId = author.id",
            "SELECT count(DISTINCT book.x) FROM author JOIN book ON book.authorId = author.id",
            "SELECT count(*) FILTER (WHERE book.x > 1) FROM author JOIN book ON book.authorId = author.id",
            // The last level read after the join: a bare column, a group key, ORDER BY, a subquery.
            "SELECT book.title, count(*) FROM author JOIN book ON book.authorId = author.id GROUP BY author.id",
            "SELECT count(*) FROM author JOIN book ON book.authorId = author.id GROUP BY book.title, author.name",
            "SELECT author.id, count(*) FROM author JOIN book ON book.authorId = author.id GROUP BY author.id "
                + "ORDER BY max(book.x)",
            "SELECT (SELECT author.id), count(*) FROM author JOIN book ON book.authorId = author.id GROUP BY 1",
            // `count(*)` of a whole table counts its tree; min() reads its first row; no aggregate.
            "SELECT count(*) FROM book",
            "SELECT min(x) FROM book",
            "SELECT author.id FROM author JOIN book ON book.authorId = author.id GROUP BY author.id",
            "SELECT count(*) OVER () FROM book",
        ]
        for sql in visited {
            XCTAssertFalse(try tallies(db, sql), sql)
        }
    }

    struct Workload {
        var src: ValueSource

        /// A join key: mostly small integers, sometimes NULL, an equal REAL or numeric TEXT.
        mutating func key() -> Value { src.joinKey(oddTexts: false) }

        mutating func text() -> Value { src.smallText() }

        mutating func insert() -> (sql: String, args: [Value]) {
            switch src.int(0...4) {
            case 0: return ("INSERT OR REPLACE INTO author VALUES (?, ?)", [.integer(Int64(src.int(1...10))), text()])
            case 1, 2:
                let title: Value = src.pick([.text("a"), .text("b"), .integer(3)])
                return (
                    "INSERT OR REPLACE INTO book VALUES (?, ?, ?, ?)",
                    [.integer(Int64(src.int(1...40))), key(), title, key()]
                )
            case 3:
                return (
                    "INSERT OR REPLACE INTO tag VALUES (?, ?, ?)", [.integer(Int64(src.int(1...40))), key(), text()]
                )
            default: return ("INSERT INTO note VALUES (?, ?)", [key(), text()])
            }
        }

        /// One to three counts of the last level `t`, sometimes beside an aggregate that is not one.
        mutating func counts(_ t: String, rowid: String, joined: Bool = true) -> String {
            var calls: [String] = []
            for _ in 0..<src.int(1...3) {
                calls.append(
                    src.pick([
                        "count(*)", "count(\(t).\(rowid))", "count(\(t).rowid)", "count(DISTINCT \(t).\(rowid))",
                        "count(*)", "count(\(t).\(rowid))",
                    ]))
            }
            if t == "book", src.int(0...5) == 0 { calls.append(src.pick(["count(book.title)", "count(book.x)"])) }
            if joined, src.int(0...5) == 0 {
                calls.append(
                    src.pick(["sum(author.id)", "max(author.name)", "count(author.name)", "count(author.id)"]))
            }
            return calls.joined(separator: ", ")
        }

        mutating func join() -> String { src.pick(["LEFT JOIN", "JOIN", "LEFT JOIN"]) }

        mutating func query() -> String {
            let on = src.pick([
                "book.authorId = author.id", "book.x = author.id", "book.authorId = author.id AND book.x > 2",
                "book.authorId IN (author.id, 2)", "+book.authorId = author.id", "book.authorId > author.id",
            ])
            let whereClause = src.pick([
                "", "", " WHERE author.id > 2", " WHERE book.title IS NOT 'b'", " WHERE book.id IS NULL",
                " WHERE author.name = 'a'", " WHERE book.x IS NOT NULL OR author.id = 1",
            ])
            let having = src.pick(["", "", " HAVING count(*) > 1", " HAVING count(book.id) = 0"])
            let order = src.pick(["", "", " ORDER BY 2 DESC, 1", " ORDER BY 1 DESC"])
            switch src.int(0...7) {
            case 0, 1, 2:
                // The group's own keys as the outputs: another bare column of a group of several authors would
                // come from a row SQLite and Granite may choose differently.
                let group = src.pick(["author.id", "author.rowid", "author.name", "author.id, author.name"])
                return "SELECT \(group.components(separatedBy: ", ")[0]), \(counts("book", rowid: "id")) FROM author "
                    + "\(join()) book ON \(on)\(whereClause) GROUP BY \(group)\(having)\(order)"
            case 3:
                return "SELECT \(counts("book", rowid: "id")) FROM author \(join()) book ON \(on)\(whereClause)"
            case 4:
                // The counted level is the third: the middle one's rows (NULL when it misses) are grouped on.
                return "SELECT author.id, book.id, \(counts("tag", rowid: "id")) FROM author \(join()) book "
                    + "ON \(on) \(join()) tag ON tag.bookId = book.id GROUP BY author.id, book.id\(order)"
            case 5:
                // A table without an INTEGER PRIMARY KEY.
                return "SELECT author.id, \(counts("note", rowid: "rowid")) FROM author \(join()) note "
                    + "ON note.authorId = author.id GROUP BY author.id"
                    + src.pick(["", " HAVING count(*) > 1", " HAVING count(note.rowid) = 0"])
            case 6:
                // One table, searched through an index or scanned.
                let condition = src.pick([
                    "authorId = 3", "authorId IN (1, 2, 2)", "x > 2", "x BETWEEN 2 AND 5", "authorId = '3'",
                    "title = 'a'", "authorId IS NULL",
                ])
                let group = src.pick(["", " GROUP BY 1=1"])
                return "SELECT \(counts("book", rowid: "id", joined: false)) FROM book WHERE \(condition)\(group)"
            default:
                // A comma join whose conditions are all in WHERE.
                return "SELECT author.name, \(counts("book", rowid: "id")) FROM author, book "
                    + "WHERE \(on) GROUP BY author.name\(order)"
            }
        }
    }

    func testTalliedCountsMatchSQLite() throws {
        let seed = testSeed()
        var workload = Workload(src: ValueSource(seed: seed))
        var talliedQueries = 0
        let rounds = RandomQueryRounds(schema: Self.schema, rounds: 3 * stressFactor)
        let outcome = try rounds.run(
            writeCount: { workload.src.int(10...120) }, write: { workload.insert() }, query: { workload.query() },
            inspect: { db, sql in if try self.tallies(db, sql) { talliedQueries += 1 } })
        print("tallied level: \(outcome.rowsCompared) rows compared, \(talliedQueries) queries tallied, seed \(seed)")
        XCTAssertGreaterThan(outcome.rowsCompared, 0)
        // Most generated queries qualify; the others check the visited path beside them.
        XCTAssertGreaterThan(talliedQueries, rounds.rounds * rounds.queriesPerRound / 3)
        if !outcome.failures.isEmpty {
            XCTFail(
                "tallied counts differ from SQLite (GRANITE_SEED=\(seed)):\n"
                    + outcome.failures.joined(separator: "\n"))
        }
    }
}
