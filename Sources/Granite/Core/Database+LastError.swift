import Foundation

extension Database {
    /// A function that receives every error a connection reports: its result code and message.
    public typealias LogErrorFunction = @Sendable (_ resultCode: ResultCode, _ message: String) -> Void

    /// The process-wide error log, set with ``logError``.
    private static let errorLog = ErrorLogStorage()

    /// A function called with the result code and message of every error any connection of the process meets
    /// (a failed prepare, a failed step, a failed transaction or storage operation), as SQLite's error log
    /// (`SQLITE_CONFIG_LOG`) is. Nil, the default, logs nothing.
    ///
    /// ```swift
    /// Database.logError = { resultCode, message in
    ///     NSLog("%@", "database error \(resultCode): \(message)")
    /// }
    /// ```
    ///
    /// Set it before opening connections: like SQLite's log, it is meant to be configured once.
    nonisolated(unsafe) public static var logError: LogErrorFunction? {
        get { errorLog.function }
        set { errorLog.function = newValue }
    }

    /// The result code of the latest failed statement or operation of this connection; `SQLITE_OK` once a
    /// later statement starts (as `sqlite3_errcode`).
    public var lastErrorCode: ResultCode { lastError?.extendedResultCode ?? .SQLITE_OK }

    /// The message of the latest failed statement or operation of this connection; "not an error" when
    /// ``lastErrorCode`` is `SQLITE_OK` (as `sqlite3_errmsg`).
    public var lastErrorMessage: String? { lastError.map { $0.message ?? "" } ?? "not an error" }

    /// Remembers `error` as the connection's last error and hands it to ``logError``; returns it unchanged.
    /// Errors that are not ``DatabaseError`` (thrown by the application's closures) are returned untouched.
    func noteFailure(_ error: any Error) -> any Error {
        guard let databaseError = error as? DatabaseError else { return error }
        lastError = databaseError
        if let log = Self.errorLog.function {
            log(databaseError.extendedResultCode, databaseError.message ?? "")
        }
        return error
    }
}

/// The error log function, read by every connection's thread and set by the application.
private final class ErrorLogStorage: @unchecked Sendable {
    private let lock = NSLock()
    private var storedFunction: Database.LogErrorFunction?

    var function: Database.LogErrorFunction? {
        get { lock.withLock { storedFunction } }
        set { lock.withLock { storedFunction = newValue } }
    }
}
