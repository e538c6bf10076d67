import Foundation

/// The source of ``Database/transactionDate``: asked for the date once per transaction, on first use, and at
/// each request outside of a transaction.
///
/// ```swift
/// var config = Configuration()
/// config.transactionClock = .custom { _ in Date(timeIntervalSince1970: 0) }   // in tests
/// ```
public protocol TransactionClock: Sendable {
    /// The current date, for the transaction of `db`.
    ///
    /// - Parameter db: The connection that asks.
    /// - Throws: Any error; ``Database/transactionDate`` throws it (for the whole transaction, when asked for
    ///   in one).
    func now(_ db: Database) throws -> Date
}

extension TransactionClock where Self == DefaultTransactionClock {
    /// The clock of the system: `Date()`.
    public static var `default`: Self { DefaultTransactionClock() }
}

extension TransactionClock where Self == CustomTransactionClock {
    /// A clock that returns what `now` returns.
    ///
    /// - Parameter now: The function called for each date; what it throws is thrown by
    ///   ``Database/transactionDate``.
    public static func custom(_ now: @escaping @Sendable (Database) throws -> Date) -> Self {
        CustomTransactionClock(now)
    }
}

/// The default ``TransactionClock``: the current date of the system.
public struct DefaultTransactionClock: TransactionClock {
    /// The current date of the system, `Date()`.
    public func now(_ db: Database) throws -> Date { Date() }
}

/// A ``TransactionClock`` that calls a function: see ``TransactionClock/custom(_:)``.
public struct CustomTransactionClock: TransactionClock {
    private let nowFunction: @Sendable (Database) throws -> Date

    /// A clock that returns what `now` returns.
    ///
    /// - Parameter now: The function called for each date.
    public init(_ now: @escaping @Sendable (Database) throws -> Date) {
        nowFunction = now
    }

    /// What the function given at creation returns for `db`, or throws.
    public func now(_ db: Database) throws -> Date { try nowFunction(db) }
}
