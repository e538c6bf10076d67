import Granite
import XCTest

final class SQLDateFunctionTests: XCTestCase {
    private func makeDatabase() throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE event (id INTEGER PRIMARY KEY, date TEXT, stamp INTEGER);
                    INSERT INTO event VALUES (1, '2024-03-15 10:30:45', 86400), (2, 'not a date', 0);
                    """)
        }
        return dbQueue
    }

    private let events = Table("event")

    private func dateTimeValue(_ db: Database, _ expression: SQLExpression) throws -> String? {
        try String.fetchOne(db, events.select(expression).filter(Column("id") == 1))
    }

    func testDateTimeSQL() throws {
        try makeDatabase().read { db in
            let request = events.select(dateTime(Column("date"), .startOfMonth, .day(1)), as: String.self)
            let statement = try request.makePreparedRequest(db, forSingleResult: false).statement
            XCTAssertEqual(statement.sql, #"SELECT DATETIME("date", ?, ?) FROM "event""#)
            XCTAssertEqual(statement.arguments, ["start of month", "1 days"])
            XCTAssertEqual(try Row.fetchAll(db, request).map { $0[0] as String? }, ["2024-03-02 00:00:00", nil])

            let julian = events.select(julianDay(Column("date")), as: Double.self).filter(Column("id") == 1)
            XCTAssertEqual(
                try julian.makePreparedRequest(db, forSingleResult: false).statement.sql,
                #"SELECT JULIANDAY("date") FROM "event" WHERE "id" = ?"#)
            let value = try XCTUnwrap(julian.fetchOne(db))
            XCTAssertEqual(value, 2_460_384.938020833, accuracy: 1e-6)
        }
    }

    func testModifierStrings() throws {
        let cases: [(SQLDateModifier, String)] = [
            (.second(1.5), "1.5 seconds"), (.second(-2), "-2.0 seconds"), (.minute(10), "10 minutes"),
            (.hour(-3), "-3 hours"), (.day(2), "2 days"), (.month(1), "1 months"), (.year(-1), "-1 years"),
            (.startOfDay, "start of day"), (.startOfMonth, "start of month"), (.startOfYear, "start of year"),
            (.weekday(0), "weekday 0"), (.unixEpoch, "unixepoch"), (.localTime, "localtime"), (.utc, "utc"),
        ]
        try makeDatabase().read { db in
            for (modifier, text) in cases {
                let statement = try events.select(dateTime(Column("date"), modifier))
                    .makePreparedRequest(db, forSingleResult: false).statement
                XCTAssertEqual(statement.arguments, [text], "\(modifier)")
            }
        }
    }

    func testModifiersApply() throws {
        try makeDatabase().read { db in
            let date = Column("date")
            XCTAssertEqual(try dateTimeValue(db, dateTime(date, .second(1.5))), "2024-03-15 10:30:46")
            XCTAssertEqual(try dateTimeValue(db, dateTime(date, .minute(-31))), "2024-03-15 09:59:45")
            XCTAssertEqual(try dateTimeValue(db, dateTime(date, .hour(14))), "2024-03-16 00:30:45")
            XCTAssertEqual(try dateTimeValue(db, dateTime(date, .day(-15))), "2024-02-29 10:30:45")
            XCTAssertEqual(try dateTimeValue(db, dateTime(date, .month(11))), "2025-02-15 10:30:45")
            XCTAssertEqual(try dateTimeValue(db, dateTime(date, .year(-1))), "2023-03-15 10:30:45")
            XCTAssertEqual(try dateTimeValue(db, dateTime(date, .startOfDay)), "2024-03-15 00:00:00")
            XCTAssertEqual(try dateTimeValue(db, dateTime(date, .startOfYear)), "2024-01-01 00:00:00")
            // 2024-03-15 is a Friday: the next Sunday is the 17th.
            XCTAssertEqual(try dateTimeValue(db, dateTime(date, .startOfDay, .weekday(0))), "2024-03-17 00:00:00")
            XCTAssertEqual(try dateTimeValue(db, dateTime(Column("stamp"), .unixEpoch)), "1970-01-02 00:00:00")
            XCTAssertEqual(try dateTimeValue(db, dateTime(date, .utc, .localTime)) != nil, true)
        }
    }

    func testJulianDayWithModifiersInFilters() throws {
        try makeDatabase().read { db in
            let request = events
                .filter(julianDay(Column("date"), .day(1)) - julianDay(Column("date")) == 1)
                .select(Column("id"), as: Int.self)
            XCTAssertEqual(
                try request.makePreparedRequest(db, forSingleResult: false).statement.sql,
                #"SELECT "id" FROM "event" WHERE (JULIANDAY("date", ?) - JULIANDAY("date")) = ?"#)
            XCTAssertEqual(try request.fetchAll(db), [1])
        }
    }

    func testAggregateFilterSQL() throws {
        try makeDatabase().read { db in
            let bonus = Column("id") > 1
            let expectations: [(SQLExpression, String)] = [
                (average(Column("stamp"), filter: bonus), #"AVG("stamp") FILTER (WHERE "id" > ?)"#),
                (max(Column("stamp"), filter: bonus), #"MAX("stamp") FILTER (WHERE "id" > ?)"#),
                (min(Column("stamp"), filter: bonus), #"MIN("stamp") FILTER (WHERE "id" > ?)"#),
                (sum(Column("stamp"), filter: bonus), #"SUM("stamp") FILTER (WHERE "id" > ?)"#),
                (total(Column("stamp"), filter: bonus), #"TOTAL("stamp") FILTER (WHERE "id" > ?)"#),
            ]
            for (expression, expected) in expectations {
                let statement = try events.select(expression).makePreparedRequest(db, forSingleResult: true).statement
                // An aggregate returns a single row: no LIMIT 1.
                XCTAssertEqual(statement.sql, "SELECT \(expected) FROM \"event\"")
            }
            // Only the second event (stamp 0) passes the filter.
            XCTAssertEqual(try Double.fetchOne(db, events.select(average(Column("stamp"), filter: bonus))), 0)
            XCTAssertEqual(try Int.fetchOne(db, events.select(max(Column("stamp"), filter: bonus))), 0)
            XCTAssertEqual(try Int.fetchOne(db, events.select(min(Column("id"), filter: bonus))), 2)
            XCTAssertEqual(try Int.fetchOne(db, events.select(sum(Column("stamp"), filter: Column("id") < 2))), 86400)
            XCTAssertEqual(try Int.fetchOne(db, events.select(sum(Column("stamp"), filter: Column("id") > 5))), nil)
            XCTAssertEqual(try Double.fetchOne(db, events.select(total(Column("stamp"), filter: Column("id") > 5))), 0)

            let compared = events.select(Column("id"), as: Int.self).group(Column("id"))
                .having(sum(Column("stamp"), filter: bonus) >= 0)
            XCTAssertEqual(
                try compared.makePreparedRequest(db, forSingleResult: false).statement.sql,
                #"SELECT "id" FROM "event" GROUP BY "id" HAVING (SUM("stamp") FILTER (WHERE "id" > ?)) >= ?"#)
            XCTAssertEqual(try compared.fetchAll(db), [2])
        }
    }
}
