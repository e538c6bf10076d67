/// An error raised by the schema catalog, worded like SQLite's messages (for example `no such table: t` or
/// `table t already exists`).
public struct SchemaError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The message.
    public var message: String

    /// Creates an error with `message`.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
