import GraniteSQL
import XCTest

final class ExpressionTests: XCTestCase {
    func testLiterals() {
        assertExpression("1", "1")
        assertExpression("0x10", "16")
        assertExpression("0xFFFFFFFFFFFFFFFF", "0xFFFFFFFFFFFFFFFF")
        assertExpression("1.5", "1.5")
        assertExpression(".5e1", "5.0")
        assertExpression("1e3", "1000.0")
        assertExpression("9223372036854775807", "9223372036854775807")
        assertExpression("9223372036854775808", "9.223372036854776e+18")
        assertExpression("-9223372036854775808", "0x8000000000000000")
        assertExpression("'it''s'", "'it''s'")
        assertExpression("x'0aFf'", "X'0AFF'")
        assertExpression("X''", "X''")
        assertExpression("null", "NULL")
        assertExpression("True", "TRUE")
        assertExpression("false", "FALSE")
        assertExpression("current_timestamp", "CURRENT_TIMESTAMP")
        assertExpression("CURRENT_DATE", "CURRENT_DATE")
        assertExpression("current_time", "CURRENT_TIME")
    }

    func testLiteralValues() throws {
        XCTAssertEqual(try Parser.parseExpression("0x7fffffffffffffff").kind, .literal(.integer(Int64.max)))
        XCTAssertEqual(try Parser.parseExpression("x'00ff'").kind, .literal(.blob([0, 255])))
        XCTAssertEqual(try Parser.parseExpression("'a''b'").kind, .literal(.string("a'b")))
        XCTAssertEqual(try Parser.parseExpression("2.5e-1").kind, .literal(.real(0.25)))
    }

    func testIdentifiers() {
        assertExpression("col", "col")
        assertExpression("t.col", "t.col")
        assertExpression("main.t.col", "main.t.col")
        assertExpression("\"weird name\"", "\"weird name\"")
        assertExpression("`back`", "back")
        assertExpression("[select]", "\"select\"")
        assertExpression("\"a\"\"b\"", "\"a\"\"b\"")
        assertExpression("\"from\".\"to\"", "\"from\".to")
    }

    func testParameters() throws {
        assertExpression("?", "?")
        assertExpression("?12", "?12")
        assertExpression(":name", ":name")
        assertExpression("$x + @y", "($x + @y)")
        let statement = try Parser.parseStatement("SELECT ?, :a, ?5, :a, ?, @b")
        XCTAssertEqual(statement.parameters.count, 7)
        XCTAssertEqual(statement.parameters.names, [nil, ":a", nil, nil, nil, nil, "@b"])
        XCTAssertEqual(statement.parameters.index(of: ":a"), 2)
        XCTAssertEqual(statement.parameters.index(of: "@b"), 7)
        guard case .select(let select) = statement.kind, case .select(let clause) = select.first else {
            return XCTFail("not a select")
        }
        let indices = clause.columns.compactMap { column -> Int? in
            if case .expression(let expression, _) = column, case .parameter(let parameter) = expression.kind {
                return parameter.index
            }
            return nil
        }
        XCTAssertEqual(indices, [1, 2, 5, 2, 6, 7])
    }

    func testArithmeticPrecedence() {
        assertExpression("a + b * c", "(a + (b * c))")
        assertExpression("a * b + c", "((a * b) + c)")
        assertExpression("a - b - c", "((a - b) - c)")
        assertExpression("a / b % c", "((a / b) % c)")
        assertExpression("a || b * c", "((a || b) * c)")
        assertExpression("a + b || c", "(a + (b || c))")
        assertExpression("a -> 'x' ->> 'y'", "((a -> 'x') ->> 'y')")
        assertExpression("a & b | c << d >> e", "((((a & b) | c) << d) >> e)")
        assertExpression("a + b & c", "((a + b) & c)")
        assertExpression("a < b + c", "(a < (b + c))")
        assertExpression("a < b & c", "(a < (b & c))")
        assertExpression("(a + b) * c", "((a + b) * c)")
    }

    func testUnaryAndCollate() {
        assertExpression("-a", "(-a)")
        assertExpression("- - a", "(-(-a))")
        assertExpression("~a + +b", "((~a) + (+b))")
        assertExpression("-a * b", "((-a) * b)")
        assertExpression("-a COLLATE nocase", "((-a) COLLATE nocase)")
        assertExpression("a || b COLLATE binary", "(a || (b COLLATE binary))")
        assertExpression("a COLLATE x COLLATE y", "((a COLLATE x) COLLATE y)")
    }

    func testLogicalPrecedence() {
        assertExpression("a OR b AND c", "(a OR (b AND c))")
        assertExpression("a AND b OR c", "((a AND b) OR c)")
        assertExpression("NOT a AND b", "((NOT a) AND b)")
        assertExpression("NOT a = b", "(NOT (a = b))")
        assertExpression("NOT NOT a", "(NOT (NOT a))")
        assertExpression("a = b AND c <> d", "((a = b) AND (c != d))")
        assertExpression("a == b = c", "((a = b) = c)")
        assertExpression("a < b = c < d", "((a < b) = (c < d))")
        assertExpression("a = b < c", "(a = (b < c))")
    }

    func testIsAndNull() {
        assertExpression("a IS NULL", "(a IS NULL)")
        assertExpression("a IS NOT NULL", "(a IS NOT NULL)")
        assertExpression("a IS DISTINCT FROM b", "(a IS NOT b)")
        assertExpression("a IS NOT DISTINCT FROM b", "(a IS b)")
        assertExpression("a ISNULL", "(a ISNULL)")
        assertExpression("a NOTNULL", "(a NOTNULL)")
        assertExpression("a NOT NULL", "(a NOTNULL)")
        assertExpression("a IS b + 1", "(a IS (b + 1))")
        assertExpression("a = 1 IS NULL", "((a = 1) IS NULL)")
    }

    func testInBetweenLike() {
        assertExpression("a IN (1, 2, 3)", "(a IN (1, 2, 3))")
        assertExpression("a NOT IN ()", "(a NOT IN ())")
        assertExpression("a IN (SELECT b FROM t)", "(a IN (SELECT b FROM t))")
        assertExpression("a IN t", "(a IN t)")
        assertExpression("a NOT IN main.t", "(a NOT IN main.t)")
        assertExpression("a BETWEEN 1 AND 2", "(a BETWEEN 1 AND 2)")
        assertExpression("a NOT BETWEEN b + 1 AND c * 2", "(a NOT BETWEEN (b + 1) AND (c * 2))")
        assertExpression("a BETWEEN 1 AND 2 AND c", "((a BETWEEN 1 AND 2) AND c)")
        assertExpression("a LIKE 'x%'", "(a LIKE 'x%')")
        assertExpression("a NOT LIKE 'x!%' ESCAPE '!'", "(a NOT LIKE 'x!%' ESCAPE '!')")
        assertExpression("a GLOB '*' OR b MATCH c", "((a GLOB '*') OR (b MATCH c))")
        assertExpression("a NOT REGEXP b", "(a NOT REGEXP b)")
        assertExpression("a LIKE b = c", "((a LIKE b) = c)")
    }

    func testFunctionsCastCase() {
        assertExpression("count(*)", "count(*)")
        assertExpression("COUNT(DISTINCT x)", "COUNT(DISTINCT x)")
        assertExpression("f()", "f()")
        assertExpression("max(a, b + 1)", "max(a, (b + 1))")
        assertExpression("replace(a, 'x', 'y')", "replace(a, 'x', 'y')")
        assertExpression("like(a, b)", "like(a, b)")
        assertExpression("cast(a AS integer)", "CAST(a AS integer)")
        assertExpression("CAST(a + 1 AS VARCHAR(10))", "CAST((a + 1) AS VARCHAR(10))")
        assertExpression("CAST(a AS decimal(10, -2))", "CAST(a AS decimal(10, -2))")
        assertExpression("CASE WHEN a THEN 1 ELSE 2 END", "CASE WHEN a THEN 1 ELSE 2 END")
        assertExpression("case x when 1 then 'a' when 2 then 'b' end", "CASE x WHEN 1 THEN 'a' WHEN 2 THEN 'b' END")
    }

    func testSubqueriesAndRows() {
        assertExpression("EXISTS (SELECT 1)", "EXISTS (SELECT 1)")
        assertExpression("NOT EXISTS (SELECT 1 FROM t)", "(NOT EXISTS (SELECT 1 FROM t))")
        assertExpression("(SELECT max(a) FROM t) + 1", "((SELECT max(a) FROM t) + 1)")
        assertExpression("(a, b) = (1, 2)", "((a, b) = (1, 2))")
        assertExpression("((a))", "a")
    }

    func testSourceRanges() throws {
        let sql = "SELECT a + b\n  FROM t"
        let statement = try Parser.parseStatement(sql)
        XCTAssertEqual(statement.range.start, SourceLocation(offset: 0, line: 1, column: 1))
        XCTAssertEqual(statement.range.end, SourceLocation(offset: 21, line: 2, column: 9))
        XCTAssertEqual(statement.sourceText, sql)
        guard case .select(let select) = statement.kind, case .select(let clause) = select.first,
            case .expression(let expression, _) = clause.columns[0], case .binary(_, let lhs, let rhs) = expression.kind
        else { return XCTFail("unexpected shape") }
        XCTAssertEqual(expression.range.start.column, 8)
        XCTAssertEqual(expression.range.end.column, 13)
        XCTAssertEqual(lhs.range.offsets, 7..<8)
        XCTAssertEqual(rhs.range.offsets, 11..<12)
        let parenthesized = try Parser.parseExpression(" (1)")
        XCTAssertEqual(parenthesized.range.offsets, 1..<4)
    }

    func testNestingLimitBoundary() throws {
        let limit = Parser.maximumExpressionDepth
        // The SELECT and the result column expression count as one level each, each parenthesis as another.
        let atLimit =
            "SELECT " + String(repeating: "(", count: limit - 2) + "1" + String(repeating: ")", count: limit - 2)
        XCTAssertNoThrow(try Parser.parseStatement(atLimit))
        let overLimit =
            "SELECT " + String(repeating: "(", count: limit - 1) + "1" + String(repeating: ")", count: limit - 1)
        XCTAssertThrowsError(try Parser.parseStatement(overLimit)) { error in
            XCTAssertEqual(
                (error as? SQLSyntaxError)?.message, "expression tree is too large (maximum depth \(limit))")
        }
        let chain = "SELECT " + Array(repeating: "1", count: limit).joined(separator: " + ")
        XCTAssertNoThrow(try Parser.parseStatement(chain))
        let longChain = "SELECT " + Array(repeating: "1", count: limit + 2).joined(separator: " + ")
        XCTAssertThrowsError(try Parser.parseStatement(longChain))
    }

    func testCarriageReturnLines() {
        assertSyntaxError("SELECT 1\r\nFROM\rWHERE", "near \"WHERE\": syntax error", at: (3, 1))
        do {
            _ = try Parser.parseStatement("SELECT 1\rFROM ,")
        } catch {
            XCTAssertEqual(error.sourceLine, "FROM ,")
            XCTAssertEqual(error.location.column, 6)
        }
    }

    func testDeepNesting() throws {
        let ok = String(repeating: "(", count: 150) + "1" + String(repeating: ")", count: 150)
        XCTAssertNoThrow(try Parser.parseExpression(ok))
        let deep = String(repeating: "(", count: 100_000) + "1" + String(repeating: ")", count: 100_000)
        XCTAssertThrowsError(try Parser.parseExpression(deep)) { error in
            XCTAssertTrue((error as? SQLSyntaxError)?.message.hasPrefix("expression tree is too large") == true)
        }
        let chain = "SELECT " + Array(repeating: "1", count: 50_000).joined(separator: " + ")
        XCTAssertThrowsError(try Parser.parseStatement(chain))
        let nots = "SELECT " + String(repeating: "NOT ", count: 50_000) + "1"
        XCTAssertThrowsError(try Parser.parseStatement(nots))
        let minus = "SELECT " + String(repeating: "- ", count: 50_000) + "1"
        XCTAssertThrowsError(try Parser.parseStatement(minus))
        let subqueries = String(repeating: "SELECT (", count: 10_000) + "1" + String(repeating: ")", count: 10_000)
        XCTAssertThrowsError(try Parser.parseStatement(subqueries))
        let compound = Array(repeating: "SELECT 1", count: 1000).joined(separator: " UNION ")
        XCTAssertThrowsError(try Parser.parseStatement(compound))
        let inner = Array(repeating: "1", count: 120).joined(separator: " + ")
        var nested = inner
        for _ in 0..<10 { nested = "(SELECT \(nested)) + \(inner)" }
        XCTAssertThrowsError(try Parser.parseExpression(nested))
    }
}
