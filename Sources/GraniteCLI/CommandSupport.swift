// Pieces shared by every subcommand: the `--json` flag, opening a database
// read-only, turning errors into messages and exit statuses, JSON output.

import ArgumentParser
import Foundation
import GraniteStorage

/// The output options every subcommand accepts.
struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print machine-readable JSON instead of text.")
    var json = false
}

/// How long the commands that write wait for another process's writer.
struct WriteLockOptions: ParsableArguments {
    @Option(
        name: .customLong("busy-timeout"),
        help: "Seconds to wait for another process's write lock before failing with 'database is locked'.")
    var busyTimeout = 5.0

    func validate() throws {
        if !(busyTimeout >= 0) { throw ValidationError("--busy-timeout must be a number of seconds, 0 or more") }
    }
}

/// An error of the command-line tool itself (a missing file, an unknown tree, a failed check).
struct CLIError: Error, CustomStringConvertible {
    /// What went wrong, in one line.
    var description: String

    init(_ description: String) {
        self.description = description
    }
}

/// Writes one line to standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

/// A one-line description of any error the tool may meet.
func errorMessage(_ error: any Error) -> String {
    switch error {
    case let error as StorageError: return error.description
    case let error as CLIError: return error.description
    case let error as LocalizedError: return error.errorDescription ?? "\(error)"
    default: return "\(error)"
    }
}

/// Runs a subcommand's body: any error other than ArgumentParser's own exits
/// becomes "granite: error: …" on standard error and exit status 1.
func reportingErrors(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let exit as ExitCode {
        throw exit
    } catch let validation as ValidationError {
        throw validation
    } catch {
        printError("granite: error: \(errorMessage(error))")
        throw ExitCode.failure
    }
}

/// Opens an existing database, with a clear message for a missing path or a directory.
func openExisting(_ path: String, readOnly: Bool) throws -> StorageEngine {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
        throw CLIError("\(path): no such file")
    }
    guard !isDirectory.boolValue else {
        throw CLIError("\(path) is a directory, not a database file")
    }
    try refuseSQLiteFile(path)
    var options = StorageOptions()
    options.readOnly = readOnly
    options.create = false
    return try StorageEngine(path: path, options: options)
}

/// The 16 bytes every SQLite 3 database file starts with.
let sqliteMagic = Array("SQLite format 3".utf8) + [0]

/// Throws a message that says what the file is and how to convert it when `path` is an SQLite database (which
/// would otherwise be refused as "not a Granite database" without a hint).
func refuseSQLiteFile(_ path: String) throws {
    guard let handle = FileHandle(forReadingAtPath: path) else { return }
    defer { try? handle.close() }
    guard let prefix = try? handle.read(upToCount: sqliteMagic.count), [UInt8](prefix) == sqliteMagic else { return }
    throw CLIError(
        "\(path) is an SQLite database, not a Granite one: convert it with "
            + "`granite import NEW.granite --sqlite \(path)`, or with `sqlite3 \(path) .dump | granite sql NEW.granite`")
}

/// Opens the database of `granite sql`: the file at `path`, created if missing, or a private in-memory database
/// for `:memory:` or no path (as `sqlite3` does).
/// `busyTimeout`: seconds a write waits for another process's writer before failing with "database is locked".
func openForSQL(_ path: String?, busyTimeout: Double = 5) throws -> StorageEngine {
    guard let path, path != ":memory:" else { return try StorageEngine.inMemory() }
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
        throw CLIError("\(path) is a directory, not a database file")
    }
    try refuseSQLiteFile(path)
    var options = StorageOptions()
    options.crossProcessBusyTimeout = busyTimeout
    return try StorageEngine(path: path, options: options)
}

/// Opens an existing database read-only.
func openReadOnly(_ path: String) throws -> StorageEngine {
    try openExisting(path, readOnly: true)
}

/// Opens `path` read-only, runs `body` with one read transaction on it (one snapshot for the whole report; its
/// `engine` is the open database), and closes it.
func withDatabase<R>(_ path: String, _ body: (ReadTransaction) throws -> R) throws -> R {
    let engine = try openReadOnly(path)
    defer { try? engine.close() }
    let read = try engine.beginRead()
    defer { try? read.commit() }
    return try body(read)
}

/// Prints `value` as sorted, pretty-printed JSON on standard output.
func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
    let data = try encoder.encode(value)
    print(String(decoding: data, as: UTF8.self))
}

/// The header fields of a database file.
struct HeaderReport: Codable {
    var formatVersion: UInt32
    var pageSize: UInt32
    var pageCount: UInt32
    var freelistHead: UInt32
    var freelistCount: UInt32
    var catalogRoot: UInt32
    var changeCounter: UInt64
    var userVersion: UInt32
    var schemaCookie: UInt32

    init(_ header: FileHeader) {
        formatVersion = header.formatVersion
        pageSize = header.pageSize
        pageCount = header.pageCount
        freelistHead = header.freelistHead
        freelistCount = header.freelistCount
        catalogRoot = header.catalogRoot
        changeCounter = header.changeCounter
        userVersion = header.userVersion
        schemaCookie = header.schemaCookie
    }

    /// The fields as label/value lines.
    var lines: [(String, String)] {
        [
            ("format version", "\(formatVersion)"),
            ("page size", "\(grouped(Int(pageSize))) bytes"),
            ("page count", grouped(Int(pageCount))),
            ("freelist head", freelistHead == 0 ? "0 (empty)" : "\(freelistHead)"),
            ("freelist count", grouped(Int(freelistCount))),
            ("catalog root", "\(catalogRoot)"),
            ("change counter", "\(changeCounter)"),
            ("user version", "\(userVersion)"),
            ("schema cookie", "\(schemaCookie)"),
        ]
    }
}

/// The shape of one tree, as found by an integrity check.
struct TreeReport: Codable {
    var name: String
    var kind: String
    var root: UInt32
    var depth: Int
    var entries: Int
    var leafPages: Int
    var interiorPages: Int
    var overflowPages: Int
    var averageFanOut: Double
    /// Bytes used over bytes available in the leaves, 0...1.
    var leafFill: Double

    init(_ statistics: TreeStatistics) {
        name = statistics.info.name
        kind = statistics.info.kind.description
        root = statistics.info.root
        depth = statistics.depth
        entries = statistics.entries
        leafPages = statistics.leafPages
        interiorPages = statistics.interiorPages
        overflowPages = statistics.overflowPages
        averageFanOut = rounded(statistics.averageFanOut)
        leafFill = rounded(statistics.leafFill)
    }

    /// A text table of several trees.
    static func table(_ trees: [TreeReport]) -> TextTable {
        var table = TextTable(
            header: [
                "name", "kind", "root", "entries", "depth", "leaf", "interior", "overflow", "fan-out", "leaf fill",
            ],
            rightAligned: [2, 3, 4, 5, 6, 7, 8, 9])
        for tree in trees {
            table.rows.append([
                tree.name, tree.kind, "\(tree.root)", grouped(tree.entries), "\(tree.depth)",
                grouped(tree.leafPages), grouped(tree.interiorPages), grouped(tree.overflowPages),
                tree.interiorPages == 0 ? "-" : String(format: "%.1f", tree.averageFanOut), percent(tree.leafFill),
            ])
        }
        return table
    }
}

/// `value` rounded to four decimals (keeps JSON output short).
func rounded(_ value: Double) -> Double {
    guard value.isFinite else { return 0 }
    return (value * 10_000).rounded() / 10_000
}
