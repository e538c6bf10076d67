import Foundation

extension Database {
    /// The date of the current transaction, from ``Configuration/transactionClock``: inside a transaction, every
    /// request returns the same date (or throws the same error); outside of one, each request asks the clock
    /// again. Record timestamps use it, so that the rows of one transaction share their date.
    ///
    /// ```swift
    /// try dbQueue.write { db in
    ///     let date = try db.transactionDate   // the same until the transaction ends
    /// }
    /// ```
    ///
    /// Granite asks the clock on the first request of a transaction, where GRDB asks it as the transaction
    /// begins: a transaction that never asks does not call the clock.
    ///
    /// - Throws: What the clock throws.
    public var transactionDate: Date {
        get throws {
            guard isInsideTransaction else {
                transactionDateResult = nil
                return try configuration.transactionClock.now(self)
            }
            if let transactionDateResult { return try transactionDateResult.get() }
            let result = Result { try configuration.transactionClock.now(self) }
            transactionDateResult = result
            return try result.get()
        }
    }

    /// Forgets the transaction date once the transaction it belongs to has ended (called after each statement
    /// while a date is held, so that the next transaction asks the clock again).
    func forgetTransactionDateOutsideTransaction() {
        if !isInsideTransaction { transactionDateResult = nil }
    }
}
