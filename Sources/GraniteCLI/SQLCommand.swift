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
            .headers, .dump, .indexes, .import, .read, .open, .timeout, .help, .quit) work at the prompt and in \
            piped input. In piped input an error names the line of its statement, as sqlite3 words it.
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

    @OptionGroup var writeLock: WriteLockOptions

    /// The modes chosen with flags, by name.
    private var chosenModes: [String] {
        [("csv", csv), ("json", json), ("line", line), ("list", list), ("quote", quote), ("box", box),
         ("markdown", markdown)].filter(\.1).map(\.0)
    }

    func validate() throws {
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
            let engine = try openForSQL(file, busyTimeout: writeLock.busyTimeout)
            let session: SQLSession
            do {
                session = try SQLSession(engine: engine, format: format)
            } catch {
                try? engine.close()
                throw error
            }
            let succeeded: Bool
            if let sql {
                session.inputKind = .argument
                succeeded = session.runScript(sql)
            } else if isatty(STDIN_FILENO) != 0 {
                session.inputKind = .interactive
                session.runInteractive()
                succeeded = true
            } else {
                succeeded = session.runLines(from: LineReader(descriptor: STDIN_FILENO))
            }
            try session.engine.close()
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
