import GraniteSQL
import GraniteStorage
import XCTest

/// Functions an application registers on a connection: lookup by name and argument count, precedence over
/// built-ins, removal, aggregates, errors, and where non-deterministic functions are refused.
final class UserFunctionTests: XCTestCase {
    private func connection() throws -> SQLConnection {
        try SQLConnection(engine: try StorageEngine.inMemory())
    }

    private func scalar(
        _ name: String, _ count: Int?, deterministic: Bool = true, _ body: @escaping @Sendable ([Value]) throws -> Value
    ) -> SQLCustomFunction {
        SQLCustomFunction(name: name, argumentCount: count, isDeterministic: deterministic, kind: .scalar(body))
    }

    private func rows(_ db: SQLConnection, _ sql: String) throws -> [[Value]] {
        try db.query(sql).rows
    }

    private func assertError(
        _ expression: @autoclosure () throws -> Any, _ message: String, file: StaticString = #filePath,
        line: UInt = #line
    ) {
        XCTAssertThrowsError(try expression(), file: file, line: line) { error in
            XCTAssertEqual("\(error)", message, file: file, line: line)
        }
    }

    func testScalarFunctionWithFixedArgumentCount() throws {
        let db = try connection()
        db.addFunction(
            scalar("succ", 1) { args in
                guard case .integer(let i) = args[0] else { return .null }
                return .integer(i + 1)
            })
        XCTAssertEqual(try rows(db, "SELECT succ(1), SUCC(41), succ('x')"), [[.integer(2), .integer(42), .null]])
        assertError(try rows(db, "SELECT succ(1, 2)"), "wrong number of arguments to function succ()")
        assertError(try rows(db, "SELECT succ()"), "wrong number of arguments to function succ()")
    }

    func testVariadicFunctionAndExactCountPrecedence() throws {
        let db = try connection()
        db.addFunction(scalar("f", nil) { .integer(Int64($0.count)) })
        db.addFunction(scalar("f", 2) { _ in .text("two") })
        XCTAssertEqual(
            try rows(db, "SELECT f(), f(1), f(1, 2), f(1, 2, 3)"),
            [[.integer(0), .integer(1), .text("two"), .integer(3)]])
    }

    func testFunctionReadsColumnsOfEachRow() throws {
        let db = try connection()
        db.addFunction(
            scalar("twice", 1) { args in
                guard case .integer(let i) = args[0] else { return .null }
                return .integer(i * 2)
            })
        try db.execute("CREATE TABLE t(a); INSERT INTO t VALUES (1), (2), (NULL)")
        XCTAssertEqual(
            try rows(db, "SELECT twice(a) FROM t WHERE twice(a) > 2 OR a IS NULL ORDER BY a"),
            [[.null], [.integer(4)]])
    }

    func testUserFunctionOverridesBuiltInOfSameArgumentCount() throws {
        let db = try connection()
        db.addFunction(scalar("length", 1) { _ in .integer(-1) })
        XCTAssertEqual(try rows(db, "SELECT length('abc')"), [[.integer(-1)]])
        db.removeFunction(named: "length", argumentCount: 1)
        XCTAssertEqual(try rows(db, "SELECT length('abc')"), [[.integer(3)]])
    }

    func testRemovedFunctionIsUnknownAgainEvenToPreparedStatements() throws {
        let db = try connection()
        db.addFunction(scalar("one", 0) { _ in .integer(1) })
        let statement = try db.prepare("SELECT one()")
        XCTAssertEqual(try statement.all(), [[.integer(1)]])
        db.removeFunction(named: "one", argumentCount: 0)
        assertError(try statement.all(), "no such function: one")
        assertError(try rows(db, "SELECT one()"), "no such function: one")
    }

    func testErrorThrownByFunctionFailsTheStatement() throws {
        struct Failure: Error {}
        let db = try connection()
        db.addFunction(scalar("fail", 1) { _ in throw SQLUserFunctionError(resultCode: 19, message: "custom") })
        try db.execute("CREATE TABLE t(a); INSERT INTO t VALUES (1)")
        XCTAssertThrowsError(try rows(db, "SELECT fail(a) FROM t")) { error in
            let failure = error as? SQLUserFunctionError
            XCTAssertEqual(failure?.resultCode, 19)
            XCTAssertEqual(failure?.message, "custom")
        }
    }

    func testAggregateFunctionGetsFreshStatePerGroup() throws {
        final class Product: SQLAggregateState {
            var product: Int64 = 1
            var steps = 0
            func step(_ arguments: [Value]) throws {
                steps += 1
                if case .integer(let i) = arguments[0] { product *= i }
            }
            func finish() throws -> Value { steps == 0 ? .null : .integer(product) }
        }
        let db = try connection()
        db.addFunction(
            SQLCustomFunction(
                name: "product", argumentCount: 1, isDeterministic: true, kind: .aggregate { Product() }))
        try db.execute("CREATE TABLE t(g, v); INSERT INTO t VALUES ('a', 2), ('a', 3), ('b', 5), ('b', 7), ('b', 1)")
        XCTAssertEqual(
            try rows(db, "SELECT g, product(v) FROM t GROUP BY g ORDER BY g"),
            [[.text("a"), .integer(6)], [.text("b"), .integer(35)]])
        XCTAssertEqual(try rows(db, "SELECT product(v) FROM t"), [[.integer(210)]])
        XCTAssertEqual(try rows(db, "SELECT product(v) FROM t WHERE 0"), [[.null]])
        XCTAssertEqual(try rows(db, "SELECT product(DISTINCT v) FROM t WHERE g = 'b' OR v = 5"), [[.integer(35)]])
        XCTAssertEqual(try rows(db, "SELECT g FROM t GROUP BY g HAVING product(v) > 10"), [[.text("b")]])
        assertError(try rows(db, "SELECT 1 FROM t WHERE product(v) > 1"), "misuse of aggregate function product()")
    }

    func testAggregateWithSeveralArguments() throws {
        final class Join: SQLAggregateState {
            var parts: [String] = []
            func step(_ arguments: [Value]) throws {
                parts.append(
                    arguments.map { value -> String in
                        if case .integer(let i) = value { return String(i) }
                        if case .text(let s) = value { return s }
                        return "?"
                    }.joined(separator: ":"))
            }
            func finish() throws -> Value { .text(parts.joined(separator: ",")) }
        }
        let db = try connection()
        db.addFunction(
            SQLCustomFunction(name: "joinAll", argumentCount: nil, isDeterministic: true, kind: .aggregate { Join() }))
        try db.execute("CREATE TABLE t(a, b, c); INSERT INTO t VALUES (1, 'x', 2), (3, 'y', 4)")
        XCTAssertEqual(try rows(db, "SELECT joinAll(a, b, c) FROM t"), [[.text("1:x:2,3:y:4")]])
        XCTAssertEqual(try rows(db, "SELECT joinAll() FROM t"), [[.text(",")]])
    }

    func testNonDeterministicFunctionsAreRefusedInIndexes() throws {
        let db = try connection()
        db.addFunction(scalar("pure", 1) { $0[0] })
        db.addFunction(scalar("impure", 1, deterministic: false) { $0[0] })
        try db.execute("CREATE TABLE t(a)")
        try db.execute("CREATE INDEX i1 ON t(pure(a))")
        try db.execute("CREATE INDEX i2 ON t(a) WHERE pure(a) > 0")
        assertError(
            try db.execute("CREATE INDEX i3 ON t(impure(a))"),
            "non-deterministic functions prohibited in index expressions")
        assertError(
            try db.execute("CREATE INDEX i4 ON t(a) WHERE impure(a) > 0"),
            "non-deterministic functions prohibited in partial index WHERE clauses")
        // As with random(), SQLite accepts a non-deterministic function in a CHECK constraint.
        try db.execute("CREATE TABLE c(a CHECK (impure(a) > 0))")
        try db.execute("INSERT INTO c VALUES (1)")
        XCTAssertThrowsError(try db.execute("INSERT INTO c VALUES (0)"))
    }

    func testIndexOnDeterministicFunctionIsMaintained() throws {
        let db = try connection()
        db.addFunction(
            scalar("neg", 1) { args in
                guard case .integer(let i) = args[0] else { return .null }
                return .integer(-i)
            })
        try db.execute("CREATE TABLE t(a); CREATE INDEX i ON t(neg(a)); INSERT INTO t VALUES (1), (2), (3)")
        XCTAssertEqual(try rows(db, "SELECT a FROM t WHERE neg(a) = -2"), [[.integer(2)]])
        XCTAssertEqual(try rows(db, "SELECT a FROM t ORDER BY neg(a)"), [[.integer(3)], [.integer(2)], [.integer(1)]])
    }

    func testNonDeterministicFunctionIsCalledForEveryRow() throws {
        final class Counter: @unchecked Sendable { var value: Int64 = 0 }
        let counter = Counter()
        let db = try connection()
        db.addFunction(
            scalar("next", 0, deterministic: false) { _ in
                counter.value += 1
                return .integer(counter.value)
            })
        try db.execute("CREATE TABLE t(a); INSERT INTO t VALUES (1), (2), (3)")
        XCTAssertEqual(try rows(db, "SELECT next() FROM t"), [[.integer(1)], [.integer(2)], [.integer(3)]])
    }

    func testAggregateInIndexIsMisuse() throws {
        final class Nothing: SQLAggregateState {
            func step(_ arguments: [Value]) throws {}
            func finish() throws -> Value { .null }
        }
        let db = try connection()
        db.addFunction(
            SQLCustomFunction(name: "agg", argumentCount: 1, isDeterministic: true, kind: .aggregate { Nothing() }))
        try db.execute("CREATE TABLE t(a)")
        assertError(try db.execute("CREATE INDEX i ON t(agg(a))"), "misuse of aggregate function agg()")
    }
}
