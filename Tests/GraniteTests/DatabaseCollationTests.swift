import Foundation
import Granite
import XCTest

/// Orders texts by UTF-8 length, then as `String.compare`.
private let byLength = DatabaseCollation("localized_standard") { lhs, rhs in
    let (x, y) = (lhs.utf8.count, rhs.utf8.count)
    if x == y { return lhs.compare(rhs) }
    return x < y ? .orderedAscending : .orderedDescending
}

final class DatabaseCollationTests: XCTestCase {
    private func makeStrings(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE strings (id INTEGER PRIMARY KEY, name TEXT);
                INSERT INTO strings VALUES (1, '1'), (2, '2'), (3, '10'), (4, 'a'), (5, 'à'), (6, 'A'), (7, 'Z'),
                    (8, 'z'), (9, ''), (10, NULL), (11, x'42FF');
                """)
    }

    func testStandardCollations() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            try makeStrings(db)
            func ids(_ collation: DatabaseCollation) throws -> [Int] {
                try Int.fetchAll(db, sql: "SELECT id FROM strings ORDER BY name COLLATE \(collation.name), id")
            }
            XCTAssertEqual(DatabaseCollation.unicodeCompare.name, "swiftCompare")
            XCTAssertEqual(try ids(.unicodeCompare), [10, 9, 1, 3, 2, 6, 7, 4, 8, 5, 11])
            XCTAssertEqual(try ids(.caseInsensitiveCompare), [10, 9, 1, 3, 2, 4, 6, 5, 7, 8, 11])
            XCTAssertEqual(try ids(.localizedStandardCompare).prefix(5), [10, 9, 1, 2, 3])
            XCTAssertEqual(try ids(.localizedCompare).count, 11)
            XCTAssertEqual(try ids(.localizedCaseInsensitiveCompare).count, 11)
        }
    }

    func testCollationDeclaredByColumn() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            db.add(collation: byLength)
            try db.execute(sql: "CREATE TABLE strings (id INTEGER PRIMARY KEY, name TEXT COLLATE LOCALIZED_STANDARD)")
            for (id, name) in ["a", "aa", "aaa", "b", "bb", "bbb", "c", "cc", "ccc"].enumerated() {
                try db.execute(sql: "INSERT INTO strings VALUES (?, ?)", arguments: [id + 1, name])
            }
            XCTAssertEqual(
                try Int.fetchAll(db, sql: "SELECT id FROM strings ORDER BY NAME"), [1, 4, 7, 2, 5, 8, 3, 6, 9])
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT max(name) FROM strings"), "ccc")
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM strings WHERE name < 'zz'"), 6)
        }
    }

    func testCollatingInQueryInterface() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            try makeStrings(db)
            let request = Table("strings")
                .select(Column("id"), as: Int.self)
                .filter(Column("name").collating(.caseInsensitiveCompare) == "A")
                .order(Column("id"))
            XCTAssertEqual(
                try request.makePreparedRequest(db).statement.sql,
                "SELECT \"id\" FROM \"strings\" WHERE \"name\" = ? COLLATE swiftCaseInsensitiveCompare ORDER BY \"id\"")
            XCTAssertEqual(try request.fetchAll(db), [4, 6])
            let ordered = Table("strings").select(Column("id"), as: Int.self)
                .filter([4, 6, 7, 8].contains(Column("id")))
                .order(Column("name").collating(.unicodeCompare).desc)
            XCTAssertEqual(try ordered.fetchAll(db), [8, 4, 7, 6])
        }
    }

    func testGroupingUnderCollation() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            try makeStrings(db)
            XCTAssertEqual(
                try Int.fetchOne(
                    db,
                    sql: "SELECT count(DISTINCT name COLLATE swiftCaseInsensitiveCompare) FROM strings"
                        + " WHERE id IN (4, 6, 7, 8)"),
                2)
            XCTAssertEqual(
                try Int.fetchAll(
                    db,
                    sql: "SELECT count(*) FROM strings WHERE id IN (4, 6, 7, 8)"
                        + " GROUP BY name COLLATE swiftCaseInsensitiveCompare"),
                [2, 2])
        }
    }

    func testIdentityAndRemoval() throws {
        XCTAssertEqual(byLength.id, DatabaseCollation("LOCALIZED_standard") { _, _ in .orderedSame }.id)
        XCTAssertNotEqual(byLength.id, DatabaseCollation.localizedCompare.id)
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            db.add(collation: byLength)
            try db.execute(sql: "CREATE TABLE t(name TEXT); INSERT INTO t VALUES ('bb'), ('a'), ('ccc')")
            XCTAssertEqual(
                try String.fetchAll(db, sql: "SELECT name FROM t ORDER BY name COLLATE localized_standard DESC"),
                ["ccc", "bb", "a"])
            db.remove(collation: byLength)
            XCTAssertThrowsError(try db.execute(sql: "SELECT name FROM t ORDER BY name COLLATE localized_standard")) {
                error in
                let error = error as? DatabaseError
                XCTAssertEqual(error?.resultCode, .SQLITE_ERROR)
                XCTAssertEqual(error?.message, "no such collation sequence: localized_standard")
            }
        }
    }

    func testIndexUnderApplicationCollationIsRefused() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.inDatabase { db in
            db.add(collation: byLength)
            try db.execute(sql: "CREATE TABLE t(name TEXT COLLATE localized_standard)")
            XCTAssertThrowsError(try db.execute(sql: "CREATE INDEX t_name ON t(name)")) { error in
                let error = error as? DatabaseError
                XCTAssertEqual(error?.resultCode, .SQLITE_ERROR)
                XCTAssertEqual(
                    error?.message,
                    "cannot index with collation localized_standard:"
                        + " an index can only use the BINARY, NOCASE and RTRIM collations")
            }
        }
    }
}

final class DatabaseReindexTests: XCTestCase {
    func testReindexCollation() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t(name TEXT COLLATE NOCASE); CREATE INDEX t_name ON t(name)")
            try db.execute(sql: "INSERT INTO t VALUES ('b'), ('A')")
            try db.reindex(collation: .nocase)
            try db.reindex(collation: .localizedCompare)
            XCTAssertEqual(try String.fetchAll(db, sql: "SELECT name FROM t ORDER BY name"), ["A", "b"])
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT name FROM t WHERE name = 'B'"), "b")
            XCTAssertThrowsError(try db.reindex(collation: Database.CollationName(rawValue: "missing"))) { error in
                let error = error as? DatabaseError
                XCTAssertEqual(error?.resultCode, .SQLITE_ERROR)
                XCTAssertEqual(error?.message, "unable to identify the object to be reindexed")
                XCTAssertEqual(error?.sql, "REINDEX missing")
            }
        }
    }
}
