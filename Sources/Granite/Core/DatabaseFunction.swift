import GraniteSQL
import GraniteStorage

/// An SQL function or aggregate written in Swift, which SQL statements of a connection can call once it is
/// registered with ``Database/add(function:)``.
///
/// ```swift
/// let succ = DatabaseFunction("succ", argumentCount: 1, pure: true) { dbValues in
///     Int.fromDatabaseValue(dbValues[0]).map { $0 + 1 }
/// }
/// try dbQueue.write { db in
///     db.add(function: succ)
///     try Int.fetchOne(db, sql: "SELECT succ(1)")  // 2
///     try Player.select(succ(Column("score"))).fetchAll(db)
/// }
/// ```
///
/// A function registered with the same name and argument count as a built-in SQL function is called instead
/// of it. Errors the function throws fail the statement: a ``DatabaseError`` with its own result code and
/// message, any other error with `SQLITE_ERROR` and the error's description.
public final class DatabaseFunction: Identifiable, Sendable {
    /// What identifies a function on a connection: its name and its number of arguments (a function that
    /// takes any number of arguments is distinct from every fixed-count function of the same name).
    public struct ID: Hashable, Sendable {
        /// The name, as given to the initializer.
        let name: String
        /// The number of arguments, or -1 for any number.
        let argumentCount: Int
    }

    /// The name SQL calls the function by (SQL compares it without regard to ASCII case).
    public var name: String { id.name }

    /// The identifier: the name and the number of arguments.
    public let id: ID

    /// Whether the result only depends on the arguments, so that the function may be used in index
    /// expressions.
    let isPure: Bool

    /// The implementation, in the engine's terms.
    let kind: SQLCustomFunction.Kind

    /// Creates an SQL function computed by `function`.
    ///
    /// - parameters:
    ///     - name: The name SQL calls the function by.
    ///     - argumentCount: The number of arguments SQL must pass, or nil (the default) for any number.
    ///       `function` receives exactly this many values.
    ///     - pure: Whether the result only depends on the arguments (false by default). Only pure functions
    ///       may be used in index expressions and partial index conditions.
    ///     - function: Computes the result from the argument values; nil gives NULL. Errors it throws fail the
    ///       statement that called it.
    public convenience init(
        _ name: String,
        argumentCount: Int? = nil,
        pure: Bool = false,
        function: @escaping @Sendable ([DatabaseValue]) throws -> (any DatabaseValueConvertible)?
    ) {
        self.init(
            name, argumentCount: argumentCount, pure: pure,
            kind: .scalar { values in
                do {
                    let result = try function(values.map(DatabaseValue.init))
                    return result?.databaseValue.engineValue ?? .null
                } catch {
                    throw DatabaseFunction.statementError(for: error)
                }
            })
    }

    /// Creates an SQL aggregate whose running state is a value of type `aggregate`: each group of rows gets a
    /// new value, stepped with the arguments of each row, then finalized into the result.
    ///
    /// - parameters:
    ///     - name: The name SQL calls the aggregate by.
    ///     - argumentCount: The number of arguments SQL must pass, or nil (the default) for any number.
    ///     - pure: Whether the result only depends on the arguments (false by default).
    ///     - aggregate: The type of the running state.
    public init<Aggregate: DatabaseAggregate>(
        _ name: String,
        argumentCount: Int? = nil,
        pure: Bool = false,
        aggregate: Aggregate.Type
    ) {
        id = ID(name: name, argumentCount: argumentCount ?? -1)
        isPure = pure
        kind = .aggregate { AggregateState<Aggregate>() }
    }

    private init(_ name: String, argumentCount: Int?, pure: Bool, kind: SQLCustomFunction.Kind) {
        id = ID(name: name, argumentCount: argumentCount ?? -1)
        isPure = pure
        self.kind = kind
    }

    /// An SQL expression that calls the function with `arguments`, for the query interface:
    /// `succ(Column("score"))` is the SQL `succ("score")`. An aggregate's call makes the request an
    /// aggregate one.
    public func callAsFunction(_ arguments: any SQLExpressible...) -> SQLExpression {
        let expressions = arguments.map(\.sqlExpression)
        if case .aggregate = kind { return .aggregate(name, expressions) }
        return .function(name, expressions)
    }

    /// The function as the engine registers it.
    var engineFunction: SQLCustomFunction {
        SQLCustomFunction(
            name: name, argumentCount: id.argumentCount < 0 ? nil : id.argumentCount, isDeterministic: isPure,
            kind: kind)
    }

    /// The error a statement fails with when the function throws `error`, as GRDB reports it to SQLite: a
    /// ``DatabaseError`` keeps its extended result code and message (without a message, SQLite's text for the
    /// code, `unknown error` for a code it does not know), any other error is `SQLITE_ERROR` with its
    /// description.
    static func statementError(for error: any Error) -> SQLUserFunctionError {
        if let error = error as? DatabaseError {
            let code = error.extendedResultCode
            return SQLUserFunctionError(
                resultCode: code.rawValue, message: error.message ?? code.errorString ?? "unknown error")
        }
        return SQLUserFunctionError(resultCode: ResultCode.SQLITE_ERROR.rawValue, message: "\(error)")
    }
}

/// The running state of an SQL aggregate written in Swift (see
/// ``DatabaseFunction/init(_:argumentCount:pure:aggregate:)``).
///
/// ```swift
/// struct MySum: DatabaseAggregate {
///     var sum = 0
///     mutating func step(_ dbValues: [DatabaseValue]) {
///         sum += Int.fromDatabaseValue(dbValues[0]) ?? 0
///     }
///     func finalize() -> (any DatabaseValueConvertible)? { sum }
/// }
/// db.add(function: DatabaseFunction("mySum", argumentCount: 1, aggregate: MySum.self))
/// ```
public protocol DatabaseAggregate: GRDBSendableMetatype {
    /// Creates the state of one aggregation (one group of rows).
    init()

    /// Adds one row: `dbValues` holds the values of the arguments the SQL call passes, in order. An error
    /// fails the statement.
    mutating func step(_ dbValues: [DatabaseValue]) throws

    /// The result of the aggregation; nil gives NULL. An error fails the statement.
    func finalize() throws -> (any DatabaseValueConvertible)?
}

/// A ``DatabaseAggregate`` value as the engine steps it.
private final class AggregateState<Aggregate: DatabaseAggregate>: SQLAggregateState {
    private var aggregate = Aggregate()

    func step(_ arguments: [Value]) throws {
        do {
            try aggregate.step(arguments.map(DatabaseValue.init))
        } catch {
            throw DatabaseFunction.statementError(for: error)
        }
    }

    func finish() throws -> Value {
        do {
            return try aggregate.finalize()?.databaseValue.engineValue ?? .null
        } catch {
            throw DatabaseFunction.statementError(for: error)
        }
    }
}
