/// An error raised by the schema catalog, worded like SQLite's messages (for example `no such table: t` or
/// `table t already exists`).
package struct SchemaError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The message.
    package var message: String
    /// A close existing name for an unknown table, column or index (`did you mean …?`), if any.
    package var suggestion: String?
    /// What the error is about, when it names something unknown.
    package var subject: SQLErrorSubject?

    /// Creates an error with `message`.
    package init(_ message: String) {
        self.message = message
    }

    /// The message, followed by ` (did you mean 'name'?)` when there is a suggestion.
    package var description: String { NameSuggestions.describe(message, suggestion) }
}
