// `granite sql FILE [SQL]`: runs SQL statements (from the argument, standard input, or an
// interactive prompt) on a database opened read-write, printing result rows.

import ArgumentParser
import Foundation
import GraniteSQL
import GraniteStorage

/// Runs SQL against a database file, like the `sqlite3` shell with `-bail`.
struct SQLCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sql",
        abstract: "Run SQL statements on a database file (created if missing).",
        discussion: """
            The statements come from the SQL argument or, when it is absent, from standard input \
            (separated by `;`). Each statement runs in its own transaction unless the script uses \
            BEGIN/COMMIT. The first error stops the run (statements before it stay committed) with a \
            message on standard error and a non-zero exit status. When standard input is a terminal \
            and no SQL is given, an interactive prompt starts. Dot commands (.tables, .schema, .mode, \
            .headers, .dump, .indexes, .help, .quit) work at the prompt and in piped input.
            """
    )

    @Argument(help: "The database file (created if missing); `:memory:` or none for an in-memory database.")
    var file: String?

    @Argument(help: "SQL statements to run; standard input is read when absent.")
    var sql: String?

    @Flag(name: .long, help: "Print results as CSV, like `sqlite3 -csv`.")
    var csv = false

    @Flag(name: .long, help: "Print results as a JSON array of objects, like `sqlite3 -json`.")
    var json = false

    @Flag(name: .long, help: "Print one `name = value` line per column, like `sqlite3 -line`.")
    var line = false

    @Flag(name: .long, help: "Print values separated by `|`, like `sqlite3 -list`.")
    var list = false

    @Flag(name: .long, help: "Print values as SQL literals, like `sqlite3 -quote`.")
    var quote = false

    @Flag(name: .long, help: "Print a grid drawn with box characters, like `sqlite3 -box`.")
    var box = false

    @Flag(name: .long, help: "Print a Markdown table, like `sqlite3 -markdown`.")
    var markdown = false

    @Flag(name: .long, help: "Print a header line with the column names in CSV, list and quote output.")
    var header = false

    @Option(
        name: .customLong("busy-timeout"),
        help: "Seconds to wait for another process's write lock before failing with 'database is locked'.")
    var busyTimeout = 5.0

    /// The modes chosen with flags, by name.
    private var chosenModes: [String] {
        [("csv", csv), ("json", json), ("line", line), ("list", list), ("quote", quote), ("box", box),
         ("markdown", markdown)].filter(\.1).map(\.0)
    }

    func validate() throws {
        if !(busyTimeout >= 0) { throw ValidationError("--busy-timeout must be a number of seconds, 0 or more") }
        let modes = chosenModes
        if modes.count > 1 {
            throw ValidationError(modes.map { "--" + $0 }.joined(separator: ", ") + " cannot be used together")
        }
    }

    var format: ResultFormat {
        switch chosenModes.first {
        case "csv": return .csv(header: header)
        case let mode?: return ResultFormat(mode: mode, header: header) ?? .table
        case nil: return .table
        }
    }

    func run() throws {
        try reportingErrors {
            let engine = try openForSQL(file, busyTimeout: busyTimeout)
            let session: SQLSession
            do {
                session = SQLSession(connection: try SQLConnection(engine: engine), format: format)
            } catch {
                try? engine.close()
                throw error
            }
            let succeeded: Bool
            if let sql {
                succeeded = session.runScript(sql)
            } else if isatty(STDIN_FILENO) != 0 {
                session.interactive = true
                session.runInteractive()
                succeeded = true
            } else {
                succeeded = session.runLines { readLine(strippingNewline: false) }
            }
            try engine.close()
            if !succeeded { throw ExitCode.failure }
        }
    }
}

/// Writes bytes to standard output, unbuffered (so results and prompts come out in order).
func writeOutput(_ bytes: [UInt8]) {
    guard !bytes.isEmpty else { return }
    FileHandle.standardOutput.write(Data(bytes))
}

/// Writes text to standard output.
func writeOutput(_ text: String) {
    writeOutput(Array(text.utf8))
}

/// One run of `granite sql`: feeds input lines through a statement scanner and executes what completes.
final class SQLSession {
    let connection: SQLConnection
    /// The output mode (`.mode`, `.headers`).
    var format: ResultFormat
    /// Whether modes with a column-name row print it (`.headers on|off`); kept across `.mode` changes.
    private var showsHeader: Bool
    /// At the prompt an error is reported and the session goes on; otherwise the first error stops it.
    var interactive = false
    /// Set by `.quit` / `.exit`.
    private(set) var quitRequested = false
    /// Every input line so far (for error positions).
    private var lines: [String] = []
    /// The text of the statement being collected.
    private var pending = ""
    /// The line (1-based) and column where `pending` starts.
    private var pendingLine = 1
    private var pendingColumn = 1

    init(connection: SQLConnection, format: ResultFormat) {
        self.connection = connection
        self.format = format
        switch format {
        case .csv(let header, _), .list(let header), .quote(let header): showsHeader = header
        case .table, .json, .line, .box, .markdown: showsHeader = false
        }
    }

    /// Runs a whole script given as one string; false after an error.
    func runScript(_ script: String) -> Bool {
        var remaining = Substring(script)
        return runLines {
            guard !remaining.isEmpty else { return nil }
            if let newline = remaining.firstIndex(where: { $0 == "\n" || $0 == "\r\n" }) {
                let line = String(remaining[...newline])
                remaining = remaining[remaining.index(after: newline)...]
                return line
            }
            defer { remaining = "" }
            return String(remaining)
        }
    }

    /// Runs input lines (with their terminators) until `nextLine` returns nil; false after an error.
    func runLines(_ nextLine: () -> String?) -> Bool {
        while !quitRequested, let line = nextLine() {
            if !feed(line) && !interactive { return false }
        }
        if quitRequested { return true }
        return finish()
    }

    /// The interactive loop: prompts, reads lines, runs what completes.
    func runInteractive() {
        writeOutput("Granite SQL shell. Enter \".help\" for usage hints.\n")
        if let editor = LineEditor.forTerminal() {
            runEditing(with: editor)
            return
        }
        while !quitRequested {
            writeOutput(prompt)
            guard let line = readLine(strippingNewline: false) else {
                writeOutput("\n")
                break
            }
            _ = feed(line)
        }
    }

    /// The prompt for the next line.
    var prompt: String {
        isCollecting ? "   ...> " : "granite> "
    }

    /// The interactive loop with line editing and history (saved when the loop ends).
    func runEditing(with editor: LineEditor) {
        defer { editor.saveHistory() }
        while !quitRequested {
            switch editor.readLine(prompt: prompt) {
            case .line(let line):
                _ = feed(line + "\n")
            case .interrupted:
                discardPending()
            case .endOfInput:
                return
            }
        }
    }

    /// Abandons the statement being collected (Ctrl-C at the prompt).
    func discardPending() {
        pending = ""
    }

    /// Whether part of a statement has been entered.
    var isCollecting: Bool {
        !SQLScanner.isBlank(pending)
    }

    /// Takes one input line; runs any statement it completes, or the dot command it holds. False on an error.
    func feed(_ rawLine: String) -> Bool {
        lines.append(String(rawLine.trimmingSuffix(while: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })))
        let lineNumber = lines.count
        if !isCollecting {
            let trimmed = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.hasPrefix(".") {
                pending = ""
                return report { try runDotCommand(trimmed) }
            }
            if pending.isEmpty || SQLScanner.isBlank(pending) {
                pending = ""
                pendingLine = lineNumber
                pendingColumn = 1
            }
        }
        pending += rawLine
        let split = SQLScanner.split(pending)
        var ok = true
        var consumedLines = 0
        var column = pendingColumn
        for chunk in split.complete {
            let startLine = pendingLine + consumedLines
            if ok {
                ok = report { try runStatement(chunk, line: startLine, column: column) }
                if !ok && !interactive { return false }
            }
            // Where the next chunk starts: after this one's text.
            let newlines = chunk.reduce(0) { $0 + ($1 == "\n" || $1 == "\r\n" || $1 == "\r" ? 1 : 0) }
            if newlines > 0, let last = chunk.utf8.lastIndex(where: { $0 == 0x0A || $0 == 0x0D }) {
                consumedLines += newlines
                column = chunk.utf8.distance(from: last, to: chunk.utf8.endIndex)
            } else {
                column += chunk.utf8.count
            }
            if quitRequested { break }
        }
        pending = split.rest
        pendingLine += consumedLines
        pendingColumn = column
        return ok
    }

    /// Runs what is left at the end of input (a final statement without `;`). False on an error.
    func finish() -> Bool {
        defer { pending = "" }
        guard isCollecting else { return true }
        return report { try runStatement(pending, line: pendingLine, column: pendingColumn) }
    }

    /// Runs `body`, printing any error as `granite: error: …`; false when it threw.
    private func report(_ body: () throws -> Void) -> Bool {
        do {
            try body()
            return true
        } catch {
            printError("granite: error: \(errorMessage(error))")
            return false
        }
    }

    // MARK: Statements

    /// Runs one statement's text (which starts at `line`/`column` of the input), printing any rows.
    private func runStatement(_ text: String, line: Int, column: Int) throws {
        let statements: [Statement]
        do {
            statements = try Parser.parseScript(text)
        } catch {
            throw relocated(error, line: line, column: column)
        }
        if statements.count == 1 {
            let result = try connection.query(text)
            printResult(columns: result.columns, rows: result.rows)
        } else {
            for statement in statements {
                let result = try connection.query(statement.sourceText)
                printResult(columns: result.columns, rows: result.rows)
            }
        }
    }

    /// `error`, with its location moved from the statement's text to the whole input.
    private func relocated(_ error: SQLSyntaxError, line: Int, column: Int) -> SQLSyntaxError {
        var error = error
        var location = error.location
        if location.line == 1 { location.column += column - 1 }
        location.line += line - 1
        error.location = location
        if location.line >= 1 && location.line <= lines.count {
            error.sourceLine = lines[location.line - 1]
        }
        return error
    }

    private func printResult(columns: [String], rows: [[Value]]) {
        guard !columns.isEmpty, !rows.isEmpty else { return }
        writeOutput(format.formatter.formatted(columns: columns, rows: rows))
    }

    // MARK: Dot commands

    static let help = """
        .dump [TABLE...]   Write the database (or TABLEs) as SQL, as `granite dump` does
        .headers on|off    Print the column names in csv, list and quote modes
        .help              Show this message
        .indexes [TABLE]   List the indexes (of TABLE)
        .mode MODE         Set the output mode: box, column, csv, json, line, list, markdown, quote
        .quit / .exit      Leave the shell
        .schema [NAME]     Show the CREATE statements (of the table, index or view NAME)
        .tables            List the tables and views

        """

    private func runDotCommand(_ line: String) throws {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        let arguments = Array(words.dropFirst())
        let catalog = connection.catalog
        switch (words.first ?? "", arguments.count) {
        case (".quit", 0), (".exit", 0):
            quitRequested = true
        case (".help", _):
            writeOutput(Self.help)
        case (".mode", 1):
            guard let mode = ResultFormat(mode: arguments[0], header: showsHeader) else {
                throw CLIError("unknown mode \"\(arguments[0])\"; modes: \(ResultFormat.modeNames.joined(separator: ", "))")
            }
            format = mode
        case (".headers", 1), (".header", 1):
            switch arguments[0].lowercased() {
            case "on", "yes", "true", "1": showsHeader = true
            case "off", "no", "false", "0": showsHeader = false
            default: throw CLIError("\".headers\" takes on or off, not \"\(arguments[0])\"")
            }
            format = format.withHeader(showsHeader)
        case (".dump", _):
            var writer = SQLDumpWriter(connection: connection, includesSchema: true, includesRows: true)
            try writer.dump(selecting: arguments.map(Self.unquoted))
        case (".tables", 0):
            let names = (catalog.tables.map(\.name) + catalog.views.map(\.name)).sorted()
            writeOutput(names.map { $0 + "\n" }.joined())
        case (".schema", 0...1):
            var out = ""
            var objects: [String?] = []
            if let name = arguments.first.map(Self.unquoted) {
                if let table = catalog.table(named: name) {
                    objects = [table.sql] + catalog.indexes(on: table.name).map(\.sql)
                } else if let index = catalog.index(named: name) {
                    objects = [index.sql]
                } else if let view = catalog.view(named: name) {
                    objects = [view.sql]
                }
            } else {
                objects = catalog.tables.map(\.sql) + catalog.indexes.map(\.sql) + catalog.views.map(\.sql)
            }
            for case let sql? in objects { out += sql + ";\n" }
            writeOutput(out)
        case (".indexes", 0...1), (".indices", 0...1):
            let table = arguments.first.map(Self.unquoted)
            let indexes = table.map { catalog.indexes(on: $0) } ?? catalog.indexes
            writeOutput(indexes.map(\.name).sorted().map { $0 + "\n" }.joined())
        default:
            throw CLIError("unknown command or invalid arguments: \"\(line.dropFirst())\". Enter \".help\" for help")
        }
    }

    /// An identifier argument without surrounding quotes.
    static func unquoted(_ word: String) -> String {
        guard word.count >= 2, let first = word.first, let last = word.last else { return word }
        if (first == "'" && last == "'") || (first == "\"" && last == "\"") || (first == "`" && last == "`")
            || (first == "[" && last == "]")
        {
            return String(word.dropFirst().dropLast())
        }
        return word
    }
}

extension String {
    /// The string without trailing characters matching `predicate`.
    fileprivate func trimmingSuffix(while predicate: (Character) -> Bool) -> Substring {
        var end = endIndex
        while end > startIndex, predicate(self[index(before: end)]) { end = index(before: end) }
        return self[..<end]
    }
}
