/// An error thrown when SQL text cannot be tokenized or parsed.
///
/// `message` follows SQLite's wording where one exists (for example `near "FORM": syntax error` or
/// `incomplete input`). `description` adds the location and quotes the offending source line with a caret
/// under the error position.
public struct SQLSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Boxed fields: keeps the error one word wide, which keeps `throws(SQLSyntaxError)` call sites cheap on the
    /// stack of the recursive-descent parser.
    private final class Storage: Sendable {
        let message: String
        let location: SourceLocation
        let sourceLine: String

        init(message: String, location: SourceLocation, sourceLine: String) {
            self.message = message
            self.location = location
            self.sourceLine = sourceLine
        }
    }

    private var storage: Storage

    /// The human-readable message, naming the offending token.
    public var message: String {
        get { storage.message }
        set { storage = Storage(message: newValue, location: location, sourceLine: sourceLine) }
    }

    /// Where in the source the error was detected.
    public var location: SourceLocation {
        get { storage.location }
        set { storage = Storage(message: message, location: newValue, sourceLine: sourceLine) }
    }

    /// The full source line containing `location` (without its line terminator).
    public var sourceLine: String {
        get { storage.sourceLine }
        set { storage = Storage(message: message, location: location, sourceLine: newValue) }
    }

    /// Creates an error; `sourceLine` is the text of the line containing `location`.
    public init(message: String, location: SourceLocation, sourceLine: String) {
        self.storage = Storage(message: message, location: location, sourceLine: sourceLine)
    }

    /// Compares message, location and source line.
    public static func == (lhs: SQLSyntaxError, rhs: SQLSyntaxError) -> Bool {
        lhs.message == rhs.message && lhs.location == rhs.location && lhs.sourceLine == rhs.sourceLine
    }

    /// Creates an error, extracting the source line for `location` from the UTF-8 source bytes.
    init(_ message: String, at location: SourceLocation, in source: [UInt8]) {
        let offset = min(max(location.offset, 0), source.count)
        var lineStart = offset
        while lineStart > 0 && source[lineStart - 1] != 0x0A && source[lineStart - 1] != 0x0D { lineStart -= 1 }
        var lineEnd = offset
        while lineEnd < source.count && source[lineEnd] != 0x0A && source[lineEnd] != 0x0D { lineEnd += 1 }
        self.init(
            message: message, location: location,
            sourceLine: String(decoding: source[lineStart..<lineEnd], as: UTF8.self))
    }

    /// The message, the location, and the source line with a caret under the error position.
    public var description: String {
        let prefixBytes = sourceLine.utf8.prefix(max(location.column - 1, 0))
        let indent = String(String(decoding: prefixBytes, as: UTF8.self).map { $0 == "\t" ? "\t" : " " })
        return "\(message) (line \(location.line), column \(location.column))\n    \(sourceLine)\n    \(indent)^"
    }
}
