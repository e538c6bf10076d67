import CSQLiteOracle
import GraniteSQL
import GraniteStorage
import GraniteTestSupport
import XCTest

/// `count(DISTINCT t.id)` counted without a set of seen values when the join cannot repeat a row of `t` within a
/// group (every other table grouped by its rowid): the counts must equal SQLite's, and so must those of the
/// queries that look alike but can repeat rows (a table not grouped by its rowid, a self-join, several levels),
/// which keep the set. Join keys mix NULLs, integers, equal REALs and numeric TEXT, with LEFT JOIN misses.
final class ImpliedDistinctDifferentialTests: XCTestCase {
    static let schema = [
        "CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT)",
        "CREATE TABLE book(id INTEGER PRIMARY KEY, authorId INTEGER, title TEXT, x)",
        "CREATE INDEX book_author ON book(authorId)",
        "CREATE INDEX book_x ON book(x)",
        "CREATE TABLE tag(id INTEGER PRIMARY KEY, bookId, label TEXT)",
        "CREATE INDEX tag_book ON tag(bookId)",
        // A table without an INTEGER PRIMARY KEY: counted and grouped by its bare rowid.
        "CREATE TABLE note(authorId, body TEXT)",
        "CREATE TABLE keyed(k TEXT PRIMARY KEY, authorId INTEGER) WITHOUT ROWID",
    ]

    struct Workload {
        var src: ValueSource

        /// A join key: mostly small integers, sometimes NULL, an equal REAL or numeric TEXT.
        mutating func key() -> Value { src.joinKey(oddTexts: true) }

        mutating func text() -> Value { src.smallText() }

        mutating func insert() -> (sql: String, args: [Value]) {
            switch src.int(0...5) {
            case 0: return ("INSERT OR REPLACE INTO author VALUES (?, ?)", [.integer(Int64(src.int(1...10))), text()])
            case 1, 2:
                return (
                    "INSERT OR REPLACE INTO book VALUES (?, ?, ?, ?)",
                    [.integer(Int64(src.int(1...40))), key(), text(), key()]
                )
            case 3:
                return (
                    "INSERT OR REPLACE INTO tag VALUES (?, ?, ?)", [.integer(Int64(src.int(1...40))), key(), text()]
                )
            case 4: return ("INSERT INTO note VALUES (?, ?)", [key(), text()])
            default:
                return ("INSERT OR REPLACE INTO keyed VALUES (?, ?)", [.text(src.pick(["k", "l", "m", "n"])), key()])
            }
        }

        /// A `count(DISTINCT …)` call over `column`, sometimes with a `FILTER`, and another aggregate beside it.
        mutating func counts(_ column: String, filterOn text: String) -> String {
            var call = "count(DISTINCT \(column))"
            if src.int(0...3) == 0 { call += " FILTER (WHERE \(text) > 'a')" }
            let other = src.pick([
                "", ", count(*)", ", count(\(column))", ", sum(DISTINCT \(column))", ", max(\(column))",
            ])
            return call + other
        }

        mutating func join() -> String { src.pick(["LEFT JOIN", "JOIN", "LEFT JOIN"]) }

        mutating func query() -> String {
            let on = src.pick(["book.authorId = author.id", "book.x = author.id", "+book.authorId = author.id"])
            let whereClause = src.pick([
                "", " WHERE author.id > 2", " WHERE book.title IS NOT 'b'", " WHERE author.id IN (1, 1, 3)",
            ])
            switch src.int(0...11) {
            case 0, 1:
                // The association request: every other table grouped by its rowid.
                let id = src.pick(["book.id", "book.rowid"])
                let group = src.pick(["author.id", "author.rowid", "author.id, author.name", "author.name, author.id"])
                return "SELECT author.*, \(counts(id, filterOn: "book.title")) FROM author \(join()) book ON \(on)"
                    + "\(whereClause) GROUP BY \(group)"
            case 2:
                // Grouped by a column that is not the author's rowid: the set is kept.
                return "SELECT author.name, \(counts("book.id", filterOn: "book.title")) FROM author \(join()) book "
                    + "ON \(on)\(whereClause) GROUP BY author.name"
            case 3:
                // Three levels: the tags repeat their book unless grouped by the tag's rowid too.
                let group = src.pick([
                    "author.id", "author.id, tag.id", "tag.id, author.id", "author.id, tag.bookId",
                ])
                return "SELECT author.id, \(counts("book.id", filterOn: "book.title")) FROM author \(join()) book "
                    + "ON \(on) \(join()) tag ON tag.bookId = book.id GROUP BY \(group)"
            case 4:
                // The last level counted, the middle one a LEFT JOIN grouped by its (possibly NULL) rowid.
                return "SELECT author.id, book.id, \(counts("tag.id", filterOn: "tag.label")) FROM author "
                    + "LEFT JOIN book ON \(on) LEFT JOIN tag ON tag.bookId = book.id GROUP BY author.id, book.id"
            case 5:
                // A self-join, grouped by one side's rowid.
                let group = src.pick(["b1.id", "b1.authorId", "b1.title"])
                return "SELECT \(group), \(counts("b2.id", filterOn: "b2.title")) FROM book b1 \(join()) book b2 "
                    + "ON b2.authorId = b1.authorId GROUP BY \(group)"
            case 6:
                // One table, with and without GROUP BY.
                let group = src.pick(["", " GROUP BY id", " GROUP BY authorId", " GROUP BY title"])
                return "SELECT \(counts(src.pick(["id", "rowid"]), filterOn: "title")) FROM book\(group)"
            case 7:
                // No GROUP BY over a join: the author is not fixed, a book may not repeat but may be counted once.
                return "SELECT \(counts("book.id", filterOn: "book.title")) FROM author \(join()) book ON \(on)"
            case 8:
                // A table with a bare rowid.
                return "SELECT author.id, \(counts("note.rowid", filterOn: "note.body")) FROM author \(join()) note "
                    + "ON note.authorId = author.id GROUP BY author.id"
            case 9:
                // A WITHOUT ROWID table on the other side: not a rowid table, the set is kept.
                return "SELECT keyed.k, \(counts("book.id", filterOn: "book.title")) FROM keyed \(join()) book "
                    + "ON book.authorId = keyed.authorId GROUP BY keyed.k"
            case 10:
                // A FROM subquery as the other level: no rowid, the set is kept.
                return "SELECT a.id, \(counts("book.id", filterOn: "book.title")) FROM (SELECT id FROM author "
                    + "UNION ALL SELECT id FROM author) a \(join()) book ON book.authorId = a.id GROUP BY a.id"
            default:
                // The books counted by an IN list that names an author twice.
                return "SELECT author.id, \(counts("book.id", filterOn: "book.title")) FROM author \(join()) book "
                    + "ON book.authorId IN (author.id, author.id, 2) GROUP BY author.id"
            }
        }
    }

    func testImpliedDistinctCountsMatchSQLite() throws {
        let seed = testSeed()
        var workload = Workload(src: ValueSource(seed: seed))
        let outcome = try RandomQueryRounds(schema: Self.schema, rounds: 3 * stressFactor).run(
            writeCount: { workload.src.int(10...120) }, write: { workload.insert() }, query: { workload.query() })
        print("implied distinct: \(outcome.rowsCompared) rows compared, seed \(seed)")
        XCTAssertGreaterThan(outcome.rowsCompared, 0)
        if !outcome.failures.isEmpty {
            XCTFail(
                "count(DISTINCT) differs from SQLite (GRANITE_SEED=\(seed)):\n"
                    + outcome.failures.joined(separator: "\n"))
        }
    }
}
