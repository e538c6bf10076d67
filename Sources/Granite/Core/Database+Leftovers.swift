import Foundation
import GraniteSQL

extension Database {
    /// The connection's description for debugging: `<Database: label>`.
    public var debugDescription: String { "<Database: \(description)>" }

    /// The largest number of arguments one statement accepts (`?NNN` goes up to this number, as in SQLite's
    /// default `SQLITE_LIMIT_VARIABLE_NUMBER`). Split longer lists, such as the keys of a `deleteAll(keys:)`.
    public var maximumStatementArgumentCount: Int { Parser.maximumParameterNumber }

    /// The SQLite version whose SQL dialect and behaviour Granite follows, in SQLite's number format
    /// (3.40.0 is 3040000). Granite links no SQLite library: code that checks for SQLite features by version
    /// sees the features of that version.
    public static var sqliteLibVersionNumber: CInt { 3_040_000 }

    /// Posted to suspend the databases opened with ``Configuration/observesSuspensionNotifications``. Granite
    /// holds no file lock between accesses, so its databases need no suspension: the notification changes
    /// nothing.
    public static let suspendNotification = Notification.Name("GRDB.Database.Suspend")

    /// Posted to resume the databases suspended by ``suspendNotification`` (nothing to resume in Granite).
    public static let resumeNotification = Notification.Name("GRDB.Database.Resume")
}

extension Database: CustomDebugStringConvertible {}
