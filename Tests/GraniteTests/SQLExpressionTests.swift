import Granite
import XCTest

private struct Reader: TableRecord {
    static let databaseTableName = "readers"
}

final class SQLExpressionTests: XCTestCase {
    private let id = Column("id")
    private let nameColumn = Column("name")
    private let age = Column("age")

    /// The SQL and arguments of `Reader.filter(predicate)`.
    private func whereClause(_ predicate: some SQLSpecificExpressible) throws -> (String, String) {
        let dbQueue = try DatabaseQueue()
        return try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE readers (id INTEGER PRIMARY KEY, name TEXT, age INT)")
            let statement = try Reader.filter(predicate).makePreparedRequest(db).statement
            let prefix = "SELECT * FROM \"readers\" WHERE "
            XCTAssertTrue(statement.sql.hasPrefix(prefix), statement.sql)
            _ = try Row.fetchAll(statement)  // the engine accepts the SQL
            return (String(statement.sql.dropFirst(prefix.count)), statement.arguments.description)
        }
    }

    private func assertWhere(
        _ predicate: some SQLSpecificExpressible, _ sql: String, _ arguments: [DatabaseValue] = [],
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let (actualSQL, actualArguments) = try whereClause(predicate)
        XCTAssertEqual(actualSQL, sql, file: file, line: line)
        XCTAssertEqual(actualArguments, StatementArguments(arguments).description, file: file, line: line)
    }

    func testComparisons() throws {
        try assertWhere(age == 10, "\"age\" = ?", [10])
        try assertWhere(10 == age, "? = \"age\"", [10])
        try assertWhere(age != 10, "\"age\" <> ?", [10])
        try assertWhere(age < 10, "\"age\" < ?", [10])
        try assertWhere(age <= 10, "\"age\" <= ?", [10])
        try assertWhere(age > 10, "\"age\" > ?", [10])
        try assertWhere(10 >= age, "? >= \"age\"", [10])
        try assertWhere(nameColumn == nameColumn, "\"name\" = \"name\"")
        try assertWhere(nameColumn === "B", "\"name\" IS ?", ["B"])
        try assertWhere(nameColumn !== "B", "\"name\" IS NOT ?", ["B"])
        try assertWhere(nameColumn == "O'Brien", "\"name\" = ?", ["O'Brien"])
        // Column is not Equatable, as in GRDB: where any expressible is expected (a check closure), comparing
        // two columns still builds SQL instead of a Swift Bool.
        let comparison: any SQLExpressible = age != id
        XCTAssertTrue(comparison is SQLExpression)
        try assertWhere(comparison.sqlExpression, "\"age\" <> \"id\"")
    }

    func testNil() throws {
        try assertWhere(age == nil, "\"age\" IS NULL")
        try assertWhere(age != nil, "\"age\" IS NOT NULL")
        try assertWhere(nil == age, "\"age\" IS NULL")
        let missing: Int? = nil
        try assertWhere(age == missing, "\"age\" IS NULL")
        try assertWhere(age == Optional(3), "\"age\" = ?", [3])
    }

    func testLogicalOperators() throws {
        try assertWhere(
            (age != nil || nameColumn != nil) && id != nil,
            "((\"age\" IS NOT NULL) OR (\"name\" IS NOT NULL)) AND (\"id\" IS NOT NULL)")
        try assertWhere(
            age != nil || (nameColumn != nil && id != nil),
            "(\"age\" IS NOT NULL) OR ((\"name\" IS NOT NULL) AND (\"id\" IS NOT NULL))")
        try assertWhere(
            age > 1 && nameColumn > "a" && id > 2, "(\"age\" > ?) AND (\"name\" > ?) AND (\"id\" > ?)", [1, "a", 2])
        try assertWhere(
            !(age > 18) && !(nameColumn > "foo"), "(NOT (\"age\" > ?)) AND (NOT (\"name\" > ?))", [18, "foo"])
        try assertWhere(!age, "NOT \"age\"")
        try assertWhere(!(!age), "NOT (NOT \"age\")")
        try assertWhere(!(age == 1), "\"age\" <> ?", [1])
        try assertWhere(!(age == nil), "\"age\" IS NOT NULL")
        try assertWhere(true && age, "? AND \"age\"", [true])
    }

    func testInAndBetween() throws {
        try assertWhere([1, 2, 3].contains(id), "\"id\" IN (?, ?, ?)", [1, 2, 3])
        try assertWhere(![1, 2, 3].contains(id), "\"id\" NOT IN (?, ?, ?)", [1, 2, 3])
        try assertWhere([1].contains(id), "\"id\" = ?", [1])
        try assertWhere([Int]().contains(id), "?", [false])
        try assertWhere((1...10).contains(id), "\"id\" BETWEEN ? AND ?", [1, 10])
        try assertWhere(!(1...10).contains(id), "\"id\" NOT BETWEEN ? AND ?", [1, 10])
        try assertWhere((1..<10).contains(id), "(\"id\" >= ?) AND (\"id\" < ?)", [1, 10])
        try assertWhere(("A"..."z").contains(nameColumn), "\"name\" BETWEEN ? AND ?", ["A", "z"])
    }

    func testLikeAndCollation() throws {
        try assertWhere(nameColumn.like("%foo"), "\"name\" LIKE ?", ["%foo"])
        try assertWhere(!nameColumn.like("%foo"), "\"name\" NOT LIKE ?", ["%foo"])
        try assertWhere(nameColumn.like("%foo\\%", escape: "\\"), "\"name\" LIKE ? ESCAPE ?", ["%foo\\%", "\\"])
        try assertWhere(nameColumn.collating(.nocase) == "fOo", "\"name\" = ? COLLATE NOCASE", ["fOo"])
        try assertWhere(
            ["arthur", "barbara"].contains(nameColumn.collating(.nocase)), "(\"name\" COLLATE NOCASE) IN (?, ?)",
            ["arthur", "barbara"])
    }

    func testArithmetic() throws {
        try assertWhere(age + 1 > 2, "(\"age\" + ?) > ?", [1, 2])
        try assertWhere(age - 1 > 2, "(\"age\" - ?) > ?", [1, 2])
        try assertWhere(age * 2 / 3 > 2, "((\"age\" * ?) / ?) > ?", [2, 3, 2])
        try assertWhere(-age > 2, "(-\"age\") > ?", [2])
        try assertWhere(age + id + 1 > 0, "((\"age\" + \"id\") + ?) > ?", [1, 0])
        try assertWhere((age ?? 0) > 1, "IFNULL(\"age\", ?) > ?", [0, 1])
    }

    func testFunctions() throws {
        try assertWhere(length(nameColumn) > 2, "LENGTH(\"name\") > ?", [2])
        try assertWhere(abs(age) > 2, "ABS(\"age\") > ?", [2])
        try assertWhere(coalesce([age, id]) > 2, "COALESCE(\"age\", \"id\") > ?", [2])
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE readers (id INTEGER PRIMARY KEY, name TEXT, age INT)")
            func selection(_ selectable: any SQLSelectable) throws -> String {
                try Reader.select(selectable).makePreparedRequest(db).statement.sql
            }
            XCTAssertEqual(try selection(count(age)), "SELECT COUNT(\"age\") FROM \"readers\"")
            XCTAssertEqual(try selection(count(distinct: age)), "SELECT COUNT(DISTINCT \"age\") FROM \"readers\"")
            XCTAssertEqual(try selection(min(age)), "SELECT MIN(\"age\") FROM \"readers\"")
            XCTAssertEqual(try selection(max(age)), "SELECT MAX(\"age\") FROM \"readers\"")
            XCTAssertEqual(try selection(sum(age)), "SELECT SUM(\"age\") FROM \"readers\"")
            XCTAssertEqual(try selection(total(age)), "SELECT TOTAL(\"age\") FROM \"readers\"")
            XCTAssertEqual(try selection(average(age)), "SELECT AVG(\"age\") FROM \"readers\"")
            XCTAssertEqual(try selection(max(age, id, 3)), "SELECT MAX(\"age\", \"id\", ?) FROM \"readers\"")
            XCTAssertEqual(
                try selection(nameColumn.lowercased), "SELECT swiftLowercaseString(\"name\") FROM \"readers\"")
            XCTAssertEqual(
                try selection(nameColumn.uppercased), "SELECT swiftUppercaseString(\"name\") FROM \"readers\"")
            XCTAssertEqual(
                try selection(nameColumn.capitalized), "SELECT swiftCapitalizedString(\"name\") FROM \"readers\"")
            XCTAssertEqual(
                try selection(max(age).forKey("maxAge")), "SELECT MAX(\"age\") AS \"maxAge\" FROM \"readers\"")

            try db.execute(sql: "INSERT INTO readers (name, age) VALUES ('a', 10), ('b', 20), ('c', NULL)")
            XCTAssertEqual(try Reader.select(count(age), as: Int.self).fetchOne(db), 2)
            XCTAssertEqual(try Reader.select(sum(age), as: Int.self).fetchOne(db), 30)
            XCTAssertEqual(try Reader.select(average(age), as: Double.self).fetchOne(db), 15)
            XCTAssertEqual(try Reader.select(total(age), as: Double.self).fetchOne(db), 30)
            XCTAssertEqual(try Reader.select(max(age), as: Int.self).fetchOne(db), 20)
            XCTAssertEqual(try Reader.select(min(age), as: Int.self).fetchOne(db), 10)
            XCTAssertEqual(try Reader.filter(age == nil).select(nameColumn, as: String.self).fetchAll(db), ["c"])
            XCTAssertEqual(try Reader.select(age ?? -1, as: Int.self).order(id).fetchAll(db), [10, 20, -1])
            try db.execute(sql: "UPDATE readers SET name = 'élan VITAL' WHERE id = 1")
            XCTAssertEqual(try Reader.select(nameColumn.uppercased, as: String.self).fetchOne(db), "ÉLAN VITAL")
            XCTAssertEqual(try Reader.select(nameColumn.lowercased, as: String.self).fetchOne(db), "élan vital")
            XCTAssertEqual(try Reader.select(nameColumn.capitalized, as: String.self).fetchOne(db), "Élan Vital")
        }
    }

    func testJoinedExpressions() throws {
        try assertWhere([age > 1, id < 3].joined(operator: .and), "(\"age\" > ?) AND (\"id\" < ?)", [1, 3])
        let mixed: [any SQLSpecificExpressible] = [age == nil, nameColumn.like("a%")]
        try assertWhere(mixed.joined(operator: .or), "(\"age\" IS NULL) OR (\"name\" LIKE ?)", ["a%"])
        try assertWhere([SQLExpression]().joined(operator: .and), "?", [true])
        try assertWhere([age, id].joined(operator: .add) > 2, "(\"age\" + \"id\") > ?", [2])
        try assertWhere(
            [nameColumn, nameColumn].joined(operator: .concat) == "aa", "(\"name\" || \"name\") = ?", ["aa"])
    }

    func testRawRepresentableColumns() throws {
        enum Columns: String, ColumnExpression {
            case id, name
        }
        XCTAssertEqual(Columns.name.name, "name")
        try assertWhere(Columns.name == "Arthur" && Columns.id > 1, "(\"name\" = ?) AND (\"id\" > ?)", ["Arthur", 1])
        try assertWhere(Column.rowID == 1, "\"rowid\" = ?", [1])
    }

    func testSQLLiteralInterpolatesExpressions() throws {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE readers (id INTEGER PRIMARY KEY, name TEXT, age INT)")
            try db.execute(sql: "INSERT INTO readers (name, age) VALUES ('a', 10), ('b', 20)")
            let literal: SQL = "SELECT \(nameColumn) FROM \(Reader.self) WHERE \(age + 5) > \(20)"
            let (sql, arguments) = try literal.build(db)
            XCTAssertEqual(sql, "SELECT \"name\" FROM \"readers\" WHERE \"age\" + ? > ?")
            XCTAssertEqual(arguments.description, StatementArguments([5, 20]).description)
            XCTAssertEqual(try String.fetchAll(db, literal: literal), ["b"])
            // Literals are expressions too.
            let request = Reader.filter(literal: "\(age) > \(15)").filter(nameColumn != nil)
            XCTAssertEqual(
                try request.makePreparedRequest(db).statement.sql,
                "SELECT * FROM \"readers\" WHERE (\"age\" > ?) AND (\"name\" IS NOT NULL)")
            XCTAssertEqual(try request.fetchCount(db), 1)
            // Orderings and requests
            let ordered: SQL = "SELECT \(nameColumn) FROM readers ORDER BY \(age.desc)"
            XCTAssertEqual(try ordered.build(db).sql, "SELECT \"name\" FROM readers ORDER BY \"age\" DESC")
            XCTAssertEqual(try String.fetchAll(db, literal: ordered), ["b", "a"])
            let adults = Reader.filter(age > 15)
            let counted: SQL = "SELECT COUNT(*) FROM (\(adults))"
            XCTAssertEqual(
                try counted.build(db).sql, "SELECT COUNT(*) FROM (SELECT * FROM \"readers\" WHERE \"age\" > ?)")
            XCTAssertEqual(try Int.fetchOne(db, literal: counted), 1)
        }
    }
}
