// The functions and collations an application registers on one connection (sqlite3_create_function_v2,
// sqlite3_create_collation_v2), and how the compiler finds them.

import GraniteStorage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A scalar or aggregate SQL function defined by the application.
///
/// Compiled calls hold the function object itself, so a statement keeps calling the function it was compiled
/// with; the connection recompiles its statements when its registry changes (as SQLite expires them).
package final class SQLCustomFunction: Sendable {
    /// What the function computes.
    package enum Kind: Sendable {
        /// A scalar function: one result per call, from the argument values.
        case scalar(@Sendable ([Value]) throws -> Value)
        /// An aggregate function: `makeState` gives the running state of one group (stepped with each row's
        /// arguments, then finished into the result).
        case aggregate(makeState: @Sendable () -> any SQLAggregateState)
    }

    /// The name, as registered (compared without regard to ASCII case).
    package let name: String
    /// The number of arguments, or `nil` for any number.
    package let argumentCount: Int?
    /// Whether the result depends only on the arguments (`SQLITE_DETERMINISTIC`): only such functions may be
    /// used in index expressions and partial index `WHERE` clauses.
    package let isDeterministic: Bool
    /// The implementation.
    package let kind: Kind

    /// Creates a function.
    package init(name: String, argumentCount: Int?, isDeterministic: Bool, kind: Kind) {
        self.name = name
        self.argumentCount = argumentCount
        self.isDeterministic = isDeterministic
        self.kind = kind
    }

    /// Whether the function is an aggregate.
    package var isAggregate: Bool {
        if case .aggregate = kind { return true }
        return false
    }
}

/// The running state of an application-defined aggregate over one group.
package protocol SQLAggregateState: AnyObject {
    /// Adds one row's argument values.
    func step(_ arguments: [Value]) throws
    /// The aggregate's result for the group.
    func finish() throws -> Value
}

/// A collating sequence defined by the application: a total order on texts.
///
/// Values compared under it that are equal are grouped together by `GROUP BY`, `DISTINCT` and `DISTINCT`
/// aggregates, which keep one representative text per class of equal texts (see ``representative(of:)``).
package final class SQLCustomCollation: @unchecked Sendable {
    /// The name, as registered (compared without regard to ASCII case).
    package let name: String
    /// Returns −1, 0 or 1 as the first text sorts before, the same as or after the second.
    package let compare: @Sendable (String, String) -> Int
    /// The representatives of the classes of equal texts met so far, in the collation's order. Unchecked
    /// sendability: a collation object belongs to the registry of one connection, whose statements run one at a
    /// time, and only those statements read or extend it.
    private var representatives: [String] = []

    /// Creates a collation.
    package init(name: String, compare: @escaping @Sendable (String, String) -> Int) {
        self.name = name
        self.compare = compare
    }

    /// The first text met that compares equal to `text` (`text` itself when there is none): the key form two
    /// texts share exactly when the collation finds them equal. Found by binary search with the collation.
    package func representative(of text: String) -> String {
        var low = 0
        var high = representatives.count
        while low < high {
            let middle = (low + high) / 2
            let order = compare(representatives[middle], text)
            if order == 0 { return representatives[middle] }
            if order < 0 { low = middle + 1 } else { high = middle }
        }
        representatives.insert(text, at: low)
        return text
    }
}

/// An error thrown by an application-defined function, with the result code and message the statement fails
/// with (GRDB reports a thrown `DatabaseError` with its own code and message, any other error as `SQLITE_ERROR`).
package struct SQLUserFunctionError: Error, Sendable, CustomStringConvertible {
    /// SQLite's (extended) result code.
    package var resultCode: Int32
    /// The message.
    package var message: String

    /// Creates an error.
    package init(resultCode: Int32, message: String) {
        self.resultCode = resultCode
        self.message = message
    }

    package var description: String { message }
}

/// The functions and collations registered on one connection.
///
/// The compiler finds them through ``current``, the registry of the connection whose ``SQLFunctionScope`` is
/// bound (see `SQLConnection.withFunctionRegistry`): functions and collations are looked up by name deep inside
/// schema and query compilation, and reaching them through a per-thread slot spares every resolver and scope a
/// parameter that almost all connections leave empty.
package struct SQLFunctionRegistry: Sendable {
    /// The registry of the connection compiling the current statement, if it has registrations.
    package static var current: SQLFunctionRegistry? { BoundFunctionScope.current?.registry }

    /// The functions, by ASCII-lowercased name.
    private var functions: [String: [SQLCustomFunction]] = [:]
    /// The collations, by ASCII-lowercased name.
    private var collations: [String: SQLCustomCollation] = [:]
    /// Collations removed or replaced: compiled statements may still hold them unretained (``SQLCollation``),
    /// so they live as long as the registry.
    private var retiredCollations: [SQLCustomCollation] = []

    /// Creates an empty registry.
    package init() {}

    /// Whether nothing is registered.
    package var isEmpty: Bool { functions.isEmpty && collations.isEmpty }

    /// Registers `function`, replacing a function of the same name and argument count.
    package mutating func add(_ function: SQLCustomFunction) {
        let key = SQLFormat.asciiLowercased(function.name)
        var list = functions[key] ?? []
        list.removeAll { $0.argumentCount == function.argumentCount }
        list.append(function)
        functions[key] = list
    }

    /// Unregisters the function named `name` that takes `argumentCount` arguments (`nil`: any number).
    package mutating func removeFunction(named name: String, argumentCount: Int?) {
        let key = SQLFormat.asciiLowercased(name)
        guard var list = functions[key] else { return }
        list.removeAll { $0.argumentCount == argumentCount }
        functions[key] = list.isEmpty ? nil : list
    }

    /// Registers `collation`, replacing a collation of the same name.
    package mutating func add(_ collation: SQLCustomCollation) {
        if let replaced = collations.updateValue(collation, forKey: SQLFormat.asciiLowercased(collation.name)) {
            retiredCollations.append(replaced)
        }
    }

    /// Unregisters the collation named `name`.
    package mutating func removeCollation(named name: String) {
        if let removed = collations.removeValue(forKey: SQLFormat.asciiLowercased(name)) {
            retiredCollations.append(removed)
        }
    }

    /// The function a call of `name` with `argumentCount` arguments binds to, as SQLite chooses: one taking
    /// exactly that many arguments, else one taking any number. Such a function hides a built-in of the name.
    package func function(named name: String, argumentCount: Int) -> SQLCustomFunction? {
        guard let list = functions[SQLFormat.asciiLowercased(name)] else { return nil }
        return list.first { $0.argumentCount == argumentCount } ?? list.first { $0.argumentCount == nil }
    }

    /// Whether some function named `name` is registered (whatever its argument count).
    package func hasFunction(named name: String) -> Bool {
        functions[SQLFormat.asciiLowercased(name)] != nil
    }

    /// The collation named `name`, if registered.
    package func collation(named name: String) -> SQLCustomCollation? {
        collations[SQLFormat.asciiLowercased(name)]
    }
}

/// A connection's registry as the task-local binding holds it: a reference, so that functions added while it is
/// bound (inside a database access) are seen at once.
///
/// Unchecked sendability: a scope belongs to one connection, which one thread uses at a time; ``isBound``
/// records whether this scope is the innermost binding of that thread, so that a connection's statements only
/// pay for a binding when another connection's scope (or none) is bound.
package final class SQLFunctionScope: @unchecked Sendable {
    /// The registrations.
    @exclusivity(unchecked) var registry = SQLFunctionRegistry() {
        didSet { hasRegistrations = !registry.isEmpty }
    }
    /// Whether ``registry`` is not empty, kept apart so that statement starts test one flag rather than
    /// copying the registry.
    @exclusivity(unchecked) private(set) var hasRegistrations = false
    /// Whether this scope is the innermost task-local binding.
    @exclusivity(unchecked) var isBound = false

    init() {}

    /// Whether statements must bind the scope before they compile: it has registrations and is not bound.
    var needsBinding: Bool {
        @inline(__always) get { !isBound && hasRegistrations }
    }

    /// Runs `body` with this scope bound, unless it already is or has nothing to bind.
    @inline(__always)
    func bind<R>(_ body: () throws -> R) rethrows -> R {
        if !needsBinding { return try body() }
        return try bindNow(body)
    }

    /// Runs `body` with this scope bound (see ``needsBinding``).
    func bindNow<R>(_ body: () throws -> R) rethrows -> R {
        let outer = BoundFunctionScope.current
        outer?.isBound = false
        isBound = true
        BoundFunctionScope.current = self
        defer {
            BoundFunctionScope.current = outer
            isBound = false
            outer?.isBound = true
        }
        return try body()
    }
}

/// The scope bound on the current thread, in a thread-specific slot.
///
/// Statements compile and run synchronously inside the binding, on the thread that made it, so a per-thread
/// slot is enough; it costs a few dozen instructions per binding where a task-local costs about a thousand. The
/// slot holds the scope unretained: the binding's caller (the connection) keeps it alive while it is bound.
private enum BoundFunctionScope {
    static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "pthread_key_create failed (\(status))")
        return key
    }()

    static var current: SQLFunctionScope? {
        get {
            guard let pointer = pthread_getspecific(key) else { return nil }
            return Unmanaged<SQLFunctionScope>.fromOpaque(pointer).takeUnretainedValue()
        }
        set {
            _ = pthread_setspecific(key, newValue.map { Unmanaged.passUnretained($0).toOpaque() })
        }
    }
}
