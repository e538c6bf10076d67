/// A position in SQL source text.
///
/// `offset` is a zero-based UTF-8 byte offset; `line` and `column` are one-based, with `column` counted in
/// UTF-8 bytes from the start of the line.
public struct SourceLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Zero-based UTF-8 byte offset from the start of the source.
    public var offset: Int
    /// One-based line number.
    public var line: Int
    /// One-based column (UTF-8 bytes) within the line.
    public var column: Int

    /// Creates a location from its components.
    public init(offset: Int, line: Int, column: Int) {
        self.offset = offset
        self.line = line
        self.column = column
    }

    /// The location of the very first byte of a source text.
    public static let start = SourceLocation(offset: 0, line: 1, column: 1)

    /// `line:column`.
    public var description: String { "\(line):\(column)" }

    /// Orders locations by byte offset.
    public static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool { lhs.offset < rhs.offset }
}

/// A half-open range `[start, end)` of SQL source text.
package struct SourceRange: Sendable, Hashable, CustomStringConvertible {
    /// The first byte of the range.
    package var start: SourceLocation
    /// The location just past the last byte of the range.
    package var end: SourceLocation

    /// Creates a range from its bounds.
    package init(start: SourceLocation, end: SourceLocation) {
        self.start = start
        self.end = end
    }

    /// The UTF-8 byte offsets covered by the range.
    package var offsets: Range<Int> { start.offset..<max(start.offset, end.offset) }

    /// `line:column-line:column`.
    package var description: String { "\(start)-\(end)" }

    /// The smallest range covering both `self` and `other`.
    package func union(_ other: SourceRange) -> SourceRange {
        SourceRange(start: min(start, other.start), end: max(end, other.end))
    }
}
