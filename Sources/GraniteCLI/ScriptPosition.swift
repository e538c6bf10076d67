// Where a session's input is: the line being read, and the statement collected so far with the line and column it
// started at (for error positions). Only the current statement's bytes are kept.

/// A complete statement taken from the input, with where it was.
struct PendingStatement {
    /// The statement's text, from just after the previous statement (so it may start with blanks and comments).
    var text: String
    /// The input line and column (1-based, in bytes) where `text` starts.
    var line: Int
    var column: Int
    /// The bytes of `line` before `text` (the end of the previous statement), for showing the whole line.
    var firstLinePrefix: ArraySlice<UInt8>
    /// The line of the statement's first byte that is not blank or a comment (the line sqlite3 names).
    var contentLine: Int
}

/// The reading position in one input: line numbers, the scanner, and the bytes of the unfinished statement.
struct ScriptPosition {
    private var scanner = SQLScanner()
    /// The number of lines started so far: the current line's number.
    private(set) var lineNumber = 0
    /// The unfinished statement's bytes from earlier lines.
    private var pending: [UInt8] = []
    /// Where in the current line the unfinished statement's bytes start.
    private var pendingStartIndex = 0
    private var pendingLine = 1
    private var pendingColumn = 1
    private var pendingPrefix: ArraySlice<UInt8> = []
    private var contentLine = 1

    /// Whether part of a statement (more than blanks and complete comments) has been read.
    var isCollecting: Bool { !scanner.isBlank }

    /// Begins `line`; when no statement is being collected, the next one starts on it.
    mutating func startLine(_ line: ArraySlice<UInt8>) {
        lineNumber += 1
        pendingStartIndex = line.startIndex
        if !isCollecting {
            pending.removeAll(keepingCapacity: true)
            pendingLine = lineNumber
            pendingColumn = 1
            pendingPrefix = []
        }
    }

    /// Scans `line` from `start` on: the index of the `;` that ends the current statement, or nil when the line
    /// ends first. (One call per statement rather than one per byte: the session keeps this position in a class
    /// property, and each access to it is checked for exclusivity.)
    mutating func scanToStatementEnd(_ line: ArraySlice<UInt8>, from start: Int) -> Int? {
        var index = start
        while index < line.endIndex {
            if scan(line, at: index) { return index }
            index += 1
        }
        return nil
    }

    /// Scans the byte at `index` of the current line; true when it ends a statement.
    private mutating func scan(_ line: ArraySlice<UInt8>, at index: Int) -> Bool {
        let hadContent = scanner.hasContent
        let ended = scanner.scan(line[index])
        if !hadContent && (scanner.hasContent || ended) { contentLine = lineNumber }
        return ended
    }

    /// The statement ending with the `;` at `index` of the current line; the next statement starts after it.
    mutating func takeStatement(endingAt index: Int, of line: ArraySlice<UInt8>) -> PendingStatement {
        pending.append(contentsOf: line[pendingStartIndex...index])
        let statement = PendingStatement(
            text: String(decoding: pending, as: UTF8.self), line: pendingLine, column: pendingColumn,
            firstLinePrefix: pendingPrefix, contentLine: contentLine)
        pending.removeAll(keepingCapacity: true)
        pendingStartIndex = index + 1
        pendingLine = lineNumber
        pendingColumn = index + 1 - line.startIndex + 1
        pendingPrefix = line[...index]
        contentLine = lineNumber
        return statement
    }

    /// Ends the current line: its bytes after the last statement join the unfinished one.
    mutating func endLine(_ line: ArraySlice<UInt8>) {
        pending.append(contentsOf: line[pendingStartIndex...])
    }

    /// The unfinished statement at the end of input.
    mutating func takeRest() -> PendingStatement {
        defer { discardStatement() }
        return PendingStatement(
            text: String(decoding: pending, as: UTF8.self), line: pendingLine, column: pendingColumn,
            firstLinePrefix: pendingPrefix, contentLine: contentLine)
    }

    /// Forgets the unfinished statement.
    mutating func discardStatement() {
        pending.removeAll(keepingCapacity: true)
        scanner = SQLScanner()
    }
}
