// The shell's dot commands (`.tables`, `.import`, `.read`, …), read at the start of a line outside any statement,
// with the arguments and wording of the sqlite3 shell's commands of the same name.

import Foundation
import GraniteSQL
import GraniteStorage

extension SQLSession {
    static let help = """
        .dump [TABLE...]         Write the database (or TABLEs) as SQL, as `granite dump` does
        .exit / .quit            Leave the shell
        .headers on|off          Print the column names in csv, list and quote modes
        .help                    Show this message
        .import FILE TABLE       Load a CSV file into TABLE (created if missing); options: --csv, --skip N
        .indexes [TABLE]         List the indexes (of the tables whose names are LIKE TABLE)
        .mode MODE               Set the output mode: box, column, csv, json, line, list, markdown, quote
        .open [FILE]             Close this database and open FILE (created if missing; none: in memory)
        .read FILE               Run the SQL statements and dot commands of FILE
        .schema [NAME]           Show the CREATE statements (of the table, index or view NAME)
        .tables [PATTERN]        List the tables and views (whose names are LIKE PATTERN)
        .timeout MS              Wait up to MS milliseconds for another process's write lock

        """

    /// Runs one dot command line.
    func runDotCommand(_ line: String) throws {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        let arguments = Array(words.dropFirst())
        switch (words.first ?? "", arguments.count) {
        case (".quit", 0), (".exit", 0):
            quitRequested = true
        case (".help", _):
            writeOutput(Self.help)
        case (".mode", 1):
            guard let mode = ResultFormat(mode: arguments[0], header: showsHeader) else {
                let modes = ResultFormat.modeNames.joined(separator: ", ")
                throw CLIError("unknown mode \"\(arguments[0])\"; modes: \(modes)")
            }
            format = mode
        case (".headers", 1), (".header", 1):
            showsHeader = try Self.onOff(arguments[0], command: ".headers")
            format = format.withHeader(showsHeader)
        case (".dump", _):
            var writer = SQLDumpWriter(connection: connection, includesSchema: true, includesRows: true)
            try writer.dump(selecting: arguments.map(Self.unquoted))
        case (".tables", 0...1):
            listTables(matching: arguments.first.map(Self.unquoted))
        case (".schema", 0...1):
            showSchema(of: arguments.first.map(Self.unquoted))
        case (".indexes", 0...1), (".indices", 0...1):
            listIndexes(ofTablesMatching: arguments.first.map(Self.unquoted))
        case (".import", 2...):
            try importCSV(arguments)
        case (".read", 1):
            try read(Self.unquoted(arguments[0]))
        case (".open", 0...1):
            try open(arguments.first.map(Self.unquoted))
        case (".timeout", 1):
            guard let milliseconds = Int(arguments[0]) else {
                throw CLIError("\".timeout\" takes a number of milliseconds, not \"\(arguments[0])\"")
            }
            try connection.execute("PRAGMA busy_timeout = \(milliseconds)")
        default:
            throw CLIError("unknown command or invalid arguments: \"\(line.dropFirst())\". Enter \".help\" for help")
        }
    }

    /// `.tables [PATTERN]`: the table and view names, those LIKE the pattern when one is given.
    private func listTables(matching pattern: String?) {
        let catalog = connection.catalog
        var names = (catalog.tables.map(\.name) + catalog.views.map(\.name)).sorted()
        if let pattern { names = names.filter { Self.isLike($0, pattern) } }
        writeOutput(names.map { $0 + "\n" }.joined())
    }

    /// `.indexes [TABLE]`: the names of the indexes, of every table or of the tables whose names are LIKE `pattern`
    /// (as sqlite3 matches its argument: `.indexes t%` lists the indexes of every table whose name starts with t).
    private func listIndexes(ofTablesMatching pattern: String?) {
        var indexes = connection.catalog.indexes
        if let pattern { indexes = indexes.filter { Self.isLike($0.table, pattern) } }
        writeOutput(indexes.map(\.name).sorted().map { $0 + "\n" }.joined())
    }

    /// `.schema [NAME]`: the CREATE statements of everything, or of one table (with its indexes), index or view.
    private func showSchema(of name: String?) {
        let catalog = connection.catalog
        var objects: [String?] = []
        if let name {
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
        writeOutput(objects.compactMap { $0.map { $0 + ";\n" } }.joined())
    }

    /// `.import [--csv] [--skip N] FILE TABLE`: loads a CSV file (separated by `|` unless the mode is csv or
    /// `--csv` is given, as in sqlite3) in one transaction, unless a transaction is already open.
    private func importCSV(_ arguments: [String]) throws {
        var csv = false
        var skip = 0
        var positional: [String] = []
        var index = 0
        while index < arguments.count {
            switch arguments[index] {
            case "--csv": csv = true
            case "--skip":
                index += 1
                guard index < arguments.count, let count = Int(arguments[index]), count >= 0 else {
                    throw CLIError("\".import --skip\" takes a number of lines")
                }
                skip = count
            case let word where word.hasPrefix("-"):
                throw CLIError("\".import\": unknown option \"\(word)\"")
            case let word: positional.append(Self.unquoted(word))
            }
            index += 1
        }
        guard positional.count == 2 else { throw CLIError("usage: .import [--csv] [--skip N] FILE TABLE") }
        if case .csv = format { csv = true }
        let input = try InputFile(path: positional[0])
        defer { input.close() }
        var reader = CSVReader(
            lines: LineReader(descriptor: input.descriptor), separator: UInt8(ascii: csv ? "," : "|"),
            source: positional[0])
        var importer = CSVImporter(connection: connection, table: positional[1])
        importer.skippedRecords = skip
        let ownsTransaction = !connection.isInTransaction
        if ownsTransaction { try connection.execute("BEGIN") }
        do {
            _ = try importer.run(&reader)
            if ownsTransaction { try connection.execute("COMMIT") }
        } catch {
            if ownsTransaction { try? connection.execute("ROLLBACK") }
            throw error
        }
    }

    /// `.read FILE`: runs the file's statements and dot commands; its errors name its lines.
    private func read(_ path: String) throws {
        let input = try InputFile(path: path)
        defer { input.close() }
        let outerInput = self.input
        let outerKind = inputKind
        self.input = ScriptPosition()
        if inputKind != .interactive { inputKind = .script }
        defer {
            self.input = outerInput
            inputKind = outerKind
        }
        // The file's error was reported with its line.
        guard runLines(from: LineReader(descriptor: input.descriptor)) else { throw ErrorAlreadyReported() }
    }

    /// `.open [FILE]`: closes the database and opens FILE (created if missing), or a new in-memory database.
    private func open(_ path: String?) throws {
        try replaceDatabase(with: try openForSQL(path))
    }

    /// The Boolean a `.headers`-style argument spells.
    private static func onOff(_ word: String, command: String) throws -> Bool {
        switch word.lowercased() {
        case "on", "yes", "true", "1": return true
        case "off", "no", "false", "0": return false
        default: throw CLIError("\"\(command)\" takes on or off, not \"\(word)\"")
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

    /// Whether `name` matches the LIKE `pattern` (`%` any run, `_` one character, ASCII letters in any case).
    static func isLike(_ name: String, _ pattern: String) -> Bool {
        let name = Array(name.lowercased().unicodeScalars)
        let pattern = Array(pattern.lowercased().unicodeScalars)
        // Positions of `pattern` reachable after each prefix of `name`, as in a matcher of one NFA state set.
        var reachable = Set([0])
        func closure(_ states: Set<Int>) -> Set<Int> {
            var result = states
            var stack = Array(states)
            while let state = stack.popLast() {
                if state < pattern.count && pattern[state] == "%" && result.insert(state + 1).inserted {
                    stack.append(state + 1)
                }
            }
            return result
        }
        reachable = closure(reachable)
        for character in name {
            var next = Set<Int>()
            for state in reachable where state < pattern.count {
                switch pattern[state] {
                case "%": next.insert(state)
                case "_": next.insert(state + 1)
                case character: next.insert(state + 1)
                default: break
                }
            }
            reachable = closure(next)
        }
        return reachable.contains(pattern.count)
    }
}
