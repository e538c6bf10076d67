import Granite
import GraniteTestSupport
import XCTest

final class BitwiseOperatorTests: XCTestCase {
    private func makeDatabase() throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE item (id INTEGER PRIMARY KEY, flags INTEGER NOT NULL);
                    INSERT INTO item VALUES (1, 5), (2, 6), (3, 12);
                    """)
        }
        return dbQueue
    }

    private func sql(_ db: Database, _ request: some FetchRequest) throws -> String {
        try request.makePreparedRequest(db, forSingleResult: false).statement.sql
    }

    private let items = Table("item")

    func testAndOr() throws {
        try makeDatabase().read { db in
            let withBit2 = items.filter(Column("flags") & 4 != 0).select(Column("id"), as: Int.self)
            XCTAssertEqual(try sql(db, withBit2), #"SELECT "id" FROM "item" WHERE ("flags" & ?) <> ?"#)
            XCTAssertEqual(try withBit2.fetchAll(db), [1, 2, 3])

            let masked = items.select(Column("flags") & Column("id"), as: Int.self).order(Column("id"))
            XCTAssertEqual(try sql(db, masked), #"SELECT "flags" & "id" FROM "item" ORDER BY "id""#)
            XCTAssertEqual(try masked.fetchAll(db), [1, 2, 0])

            let literalFirst = items.select(3 & Column("flags"), as: Int.self).order(Column("id"))
            XCTAssertEqual(try sql(db, literalFirst), #"SELECT ? & "flags" FROM "item" ORDER BY "id""#)
            XCTAssertEqual(try literalFirst.fetchAll(db), [1, 2, 0])

            let ored = items.select(Column("flags") | 1 | Column("id"), as: Int.self).order(Column("id"))
            XCTAssertEqual(try sql(db, ored), #"SELECT "flags" | ? | "id" FROM "item" ORDER BY "id""#)
            XCTAssertEqual(try ored.fetchAll(db), [5, 7, 15])
        }
    }

    func testJoinedOperators() throws {
        try makeDatabase().read { db in
            let emptyAnd = items.select([any SQLSpecificExpressible]().joined(operator: .bitwiseAnd), as: Int.self)
            XCTAssertEqual(try sql(db, emptyAnd), #"SELECT ? FROM "item""#)
            XCTAssertEqual(try emptyAnd.fetchOne(db), -1)

            let emptyOr = items.select([any SQLSpecificExpressible]().joined(operator: .bitwiseOr), as: Int.self)
            XCTAssertEqual(try emptyOr.fetchOne(db), 0)

            let nested = items.select(
                [Column("flags") & 7, Column("id")]
                    .joined(operator: .bitwiseAnd), as: Int.self
            ).order(Column("id"))
            XCTAssertEqual(try sql(db, nested), #"SELECT "flags" & ? & "id" FROM "item" ORDER BY "id""#)
            XCTAssertEqual(try nested.fetchAll(db), [1, 2, 0])

            let ored = items.select([Column("flags"), Column("id")].joined(operator: .bitwiseOr), as: Int.self)
                .order(Column("id"))
            XCTAssertEqual(try ored.fetchAll(db), [5, 6, 15])
        }
    }

    func testShiftsAndNot() throws {
        try makeDatabase().read { db in
            let left = items.select(Column("flags") << 2, as: Int.self).order(Column("id"))
            XCTAssertEqual(try sql(db, left), #"SELECT "flags" << ? FROM "item" ORDER BY "id""#)
            XCTAssertEqual(try left.fetchAll(db), [20, 24, 48])

            let right = items.select(Column("flags") >> Column("id"), as: Int.self).order(Column("id"))
            XCTAssertEqual(try sql(db, right), #"SELECT "flags" >> "id" FROM "item" ORDER BY "id""#)
            XCTAssertEqual(try right.fetchAll(db), [2, 1, 1])

            let chained = items.select((Column("flags") << Column("id")) << 1, as: Int.self).order(Column("id"))
            XCTAssertEqual(try sql(db, chained), #"SELECT ("flags" << "id") << ? FROM "item" ORDER BY "id""#)
            XCTAssertEqual(try chained.fetchAll(db), [20, 48, 192])

            let literalFirst = items.select(1 << Column("id"), as: Int.self).order(Column("id"))
            XCTAssertEqual(try literalFirst.fetchAll(db), [2, 4, 8])

            let not = items.select(~Column("flags"), as: Int.self).order(Column("id"))
            XCTAssertEqual(try sql(db, not), #"SELECT ~"flags" FROM "item" ORDER BY "id""#)
            XCTAssertEqual(try not.fetchAll(db), [-6, -7, -13])

            let nestedNot = items.filter(~(~Column("flags") + 1) == 4).select(Column("id"), as: Int.self)
            XCTAssertEqual(try sql(db, nestedNot), #"SELECT "id" FROM "item" WHERE (~((~"flags") + ?)) = ?"#)
            XCTAssertEqual(try nestedNot.fetchAll(db), [1])
        }
    }

    func testAssignments() throws {
        let dbQueue = try makeDatabase()
        let recorder = SQLRecorder()
        recorder.record(dbQueue)
        try dbQueue.write { db in
            try items.updateAll(db, Column("flags") |= 1)
            XCTAssertEqual(recorder.last, #"UPDATE "item" SET "flags" = "flags" | 1"#)
            XCTAssertEqual(try Int.fetchAll(db, sql: "SELECT flags FROM item ORDER BY id"), [5, 7, 13])

            try items.updateAll(db, Column("flags") &= 6)
            XCTAssertEqual(recorder.last, #"UPDATE "item" SET "flags" = "flags" & 6"#)
            XCTAssertEqual(try Int.fetchAll(db, sql: "SELECT flags FROM item ORDER BY id"), [4, 6, 4])

            try items.updateAll(db, Column("flags") <<= 1)
            XCTAssertEqual(recorder.last, #"UPDATE "item" SET "flags" = "flags" << 1"#)
            XCTAssertEqual(try Int.fetchAll(db, sql: "SELECT flags FROM item ORDER BY id"), [8, 12, 8])

            try items.updateAll(db, Column("flags") >>= 2)
            XCTAssertEqual(recorder.last, #"UPDATE "item" SET "flags" = "flags" >> 2"#)
            XCTAssertEqual(try Int.fetchAll(db, sql: "SELECT flags FROM item ORDER BY id"), [2, 3, 2])
        }
    }

    func testDetachedColumn() throws {
        try makeDatabase().read { db in
            let request = items.select((Column("flags") & 4).forKey("bit2"), Column("id"))
                .order(Column("bit2").detached.desc, Column("id"))
            XCTAssertEqual(
                try sql(db, request), #"SELECT "flags" & ? AS "bit2", "id" FROM "item" ORDER BY "bit2" DESC, "id""#)
            XCTAssertEqual(try request.fetchAll(db).map { $0["id"] as Int }, [1, 2, 3])
        }
    }
}
