// One run of `granite sql` (or of a script `granite import` loads): input lines go through a statement scanner,
// and each statement runs as soon as its `;` arrives. Nothing of the input is kept once its statement ran, so a
// script of any length runs in constant memory.

import Foundation
import GraniteSQL
import GraniteStorage

/// Where the input of a session comes from, which decides how errors are worded and whether they stop it.
enum SQLInputKind {
    /// Typed at the prompt: an error is reported and the session goes on; syntax error lines count from the
    /// statement's first line.
    case interactive
    /// The SQL argument of `granite sql`: errors are `granite: error: …`, with lines of the whole argument.
    case argument
    /// A piped script, a `.read` file or an imported dump: errors name the line of the statement, worded as the
    /// sqlite3 shell words them (`Parse error near line 3: no such table: t`).
    case script
}

/// Runs SQL input on a connection, statement by statement, printing result rows.
final class SQLSession {
    /// The open database; `.open` replaces both.
    private(set) var engine: StorageEngine
    private(set) var connection: SQLConnection
    /// The output mode (`.mode`, `.headers`).
    var format: ResultFormat
    /// Whether modes with a column-name row print it (`.headers on|off`); kept across `.mode` changes.
    var showsHeader: Bool
    /// How the current input's errors are worded and whether they stop it (`.read` switches it for its file).
    var inputKind = SQLInputKind.script
    /// Set by `.quit` / `.exit`.
    var quitRequested = false
    /// The input being read: where its current statement is (`.read` saves it and starts a new one).
    var input = ScriptPosition()
    /// Called after each statement ran (for `granite import`'s progress line).
    var afterStatement: (() -> Void)?
    /// When set, `BEGIN` and `COMMIT` statements of the input are skipped and `ROLLBACK` is refused: the caller
    /// runs the whole input in its own transaction (`granite import`).
    var ownsTransaction = false
    /// Where error messages go: standard error (tests collect them).
    var reportError: (String) -> Void = printError

    init(engine: StorageEngine, format: ResultFormat) throws {
        self.engine = engine
        self.connection = try SQLConnection(engine: engine)
        self.format = format
        switch format {
        case .csv(let header, _), .list(let header), .quote(let header): showsHeader = header
        case .table, .json, .line, .box, .markdown: showsHeader = false
        }
    }

    /// Switches to another database (`.open`), closing the current one.
    func replaceDatabase(with newEngine: StorageEngine) throws {
        let newConnection = try SQLConnection(engine: newEngine)
        try? engine.close()
        engine = newEngine
        connection = newConnection
    }

    // MARK: Input

    /// Runs a whole script given as one string; false after an error.
    func runScript(_ script: String) -> Bool {
        var remaining = Array(script.utf8)[...]
        return runLines {
            guard !remaining.isEmpty else { return nil }
            let end = remaining.firstIndex(of: 0x0A).map { $0 + 1 } ?? remaining.endIndex
            defer { remaining = remaining[end...] }
            return remaining[..<end]
        }
    }

    /// Runs the lines `reader` reads; false after an error (a read error included).
    func runLines(from reader: LineReader) -> Bool {
        var readError: (any Error)?
        let succeeded = runLines {
            do {
                return try reader.nextLine()
            } catch {
                readError = error
                return nil
            }
        }
        if let readError {
            reportError("granite: error: \(errorMessage(readError))")
            return false
        }
        return succeeded
    }

    /// Runs input lines (with their terminators) until `nextLine` returns nil; false after an error (the first
    /// error stops the run unless the input is interactive).
    func runLines(_ nextLine: () -> ArraySlice<UInt8>?) -> Bool {
        var succeeded = true
        while !quitRequested, let line = nextLine() {
            if !feed(line) {
                succeeded = false
                if inputKind != .interactive { return false }
            }
        }
        if quitRequested { return succeeded }
        return finish() && succeeded
    }

    /// Abandons the statement being collected (Ctrl-C at the prompt).
    func discardPending() {
        input.discardStatement()
    }

    /// Whether part of a statement has been entered.
    var isCollecting: Bool { input.isCollecting }

    /// Takes one input line; runs any statement it completes, or the dot command it holds. False on an error.
    func feed(_ line: ArraySlice<UInt8>) -> Bool {
        input.startLine(line)
        if !input.isCollecting, let command = Self.dotCommand(in: line) {
            return report(at: input.lineNumber) { try runDotCommand(command) }
        }
        var ok = true
        var start = line.startIndex
        while let end = input.scanToStatementEnd(line, from: start) {
            let statement = input.takeStatement(endingAt: end, of: line)
            if ok || inputKind == .interactive {
                ok = run(statement) && ok
            }
            if (!ok && inputKind != .interactive) || quitRequested { return ok }
            start = end + 1
        }
        input.endLine(line)
        return ok
    }

    /// Runs what is left at the end of input (a final statement without `;`). False on an error.
    func finish() -> Bool {
        guard input.isCollecting else {
            input.discardStatement()
            return true
        }
        return run(input.takeRest())
    }

    /// The text of a dot command when `line` holds one (a `.` first, after any blanks).
    private static func dotCommand(in line: ArraySlice<UInt8>) -> String? {
        guard let first = line.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }), line[first] == UInt8(ascii: ".")
        else { return nil }
        return String(decoding: line[first...], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // MARK: Statements

    /// Runs one statement's text, reporting any error; false when it failed.
    private func run(_ statement: PendingStatement) -> Bool {
        do {
            try runStatements(statement)
            afterStatement?()
            return true
        } catch let failure as StatementFailure {
            reportError(failure.message(for: inputKind, line: statement.contentLine))
            return false
        } catch {
            reportError("granite: error: \(errorMessage(error))")
            return false
        }
    }

    /// Parses the text, then prepares and runs each statement in it, printing any rows.
    private func runStatements(_ pending: PendingStatement) throws {
        let statements: [Statement]
        do {
            statements = try Parser.parseScript(pending.text)
        } catch {
            throw StatementFailure(stage: .parse, error: relocated(error, in: pending))
        }
        for statement in statements {
            if ownsTransaction {
                switch statement.kind {
                case .begin, .commit: continue
                case .rollback(nil):
                    throw StatementFailure(
                        stage: .runtime, error: CLIError("the script rolls back: nothing was imported"))
                default: break
                }
            }
            let prepared: PreparedStatement
            do {
                prepared = try connection.prepare(parsed: statement)
            } catch {
                throw StatementFailure(stage: .parse, error: error)
            }
            let rows: [[Value]]
            do {
                rows = try prepared.all()
            } catch let error as SQLExecutionError where error.subject != nil {
                // An unknown name (a table, a column, a function…): SQLite finds it when it prepares.
                throw StatementFailure(stage: .parse, error: error)
            } catch {
                throw StatementFailure(stage: .runtime, error: error)
            }
            printResult(columns: prepared.columnNames, rows: rows)
        }
    }

    /// `error`, with its location moved from the statement's text to the input (for a statement typed at the
    /// prompt: to the lines of what was typed since the previous statement).
    private func relocated(_ error: SQLSyntaxError, in pending: PendingStatement) -> SQLSyntaxError {
        var error = error
        var location = error.location
        if location.line == 1 {
            location.column += pending.column - 1
            error.sourceLine = String(decoding: pending.firstLinePrefix, as: UTF8.self) + error.sourceLine
        }
        if inputKind != .interactive { location.line += pending.line - 1 }
        error.location = location
        return error
    }

    private func printResult(columns: [String], rows: [[Value]]) {
        guard !columns.isEmpty, !rows.isEmpty else { return }
        writeOutput(format.formatter.formatted(columns: columns, rows: rows))
    }

    /// Runs `body`, printing any error (with the input line in a script); false when it threw.
    func report(at line: Int, _ body: () throws -> Void) -> Bool {
        do {
            try body()
            return true
        } catch is ErrorAlreadyReported {
            return false
        } catch {
            if inputKind == .script {
                reportError("Error near line \(line): \(errorMessage(error))")
            } else {
                reportError("granite: error: \(errorMessage(error))")
            }
            return false
        }
    }
}

/// An error whose message is already on standard error (a `.read` file's statement).
struct ErrorAlreadyReported: Error {}

/// A statement that failed, and whether it failed before running (as sqlite3's "Parse error") or while running
/// ("Runtime error").
struct StatementFailure: Error {
    enum Stage { case parse, runtime }
    var stage: Stage
    var error: any Error

    /// The message for standard error.
    func message(for kind: SQLInputKind, line: Int) -> String {
        guard kind == .script else { return "granite: error: \(errorMessage(error))" }
        switch stage {
        case .parse:
            guard let syntax = error as? SQLSyntaxError else {
                return "Parse error near line \(line): \(errorMessage(error))"
            }
            let caretIndent = String(
                String(decoding: syntax.sourceLine.utf8.prefix(max(syntax.location.column - 1, 0)), as: UTF8.self)
                    .map { $0 == "\t" ? "\t" : " " })
            return
                "Parse error near line \(line): \(syntax.message)\n  \(syntax.sourceLine)\n  \(caretIndent)^--- error here"
        case .runtime:
            return "Runtime error near line \(line): \(errorMessage(error))\(Self.codeSuffix(error))"
        }
    }

    /// ` (N)`: SQLite's primary result code, which the sqlite3 shell prints after a runtime error's message.
    private static func codeSuffix(_ error: any Error) -> String {
        guard let error = error as? SQLExecutionError else { return "" }
        switch error.kind {
        case .error: return " (1)"
        case .locked: return " (6)"
        case .constraint: return " (19)"
        case .mismatch: return " (20)"
        case .misuse: return " (21)"
        case .full: return " (13)"
        }
    }
}
