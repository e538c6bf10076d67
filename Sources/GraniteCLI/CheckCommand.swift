// `granite check FILE`: the full integrity check.

import ArgumentParser
import GraniteSQL
import GraniteStorage

/// Runs the full integrity check (`PRAGMA integrity_check`: the storage layer's structural check, then every row
/// and index entry) and prints "ok" or every problem found.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a database file: its structure, every row and every index entry.",
        discussion: "Reports every problem (up to --max-problems) and exits with status 1 when there is one."
    )

    @Argument(help: "The database file.")
    var file: String

    @Option(name: .long, help: "Stop after this many problems.")
    var maxProblems = 100

    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard maxProblems >= 1 else { throw ValidationError("--max-problems must be at least 1") }
    }

    func run() throws {
        try reportingErrors {
            let report = try withDatabase(file) { read in
                let structural = read.engine.checkIntegrity(maxProblems: maxProblems)
                let rows = Self.rowProblems(read, limit: maxProblems - structural.problems.count)
                return try CheckReport(file: file, read: read, report: structural, rowProblems: rows)
            }
            if output.json {
                try printJSON(report)
            } else {
                report.printText()
            }
            if !report.ok {
                printError("granite: \(file): \(report.problems.count) problem(s) found")
                throw ExitCode.failure
            }
        }
    }

    /// The problems of the rows and index entries (see `PRAGMA integrity_check`), up to `limit`.
    static func rowProblems(_ read: ReadTransaction, limit: Int) -> [String] {
        guard limit > 0 else { return [] }
        do {
            return try SQLConnection(readingIn: read).logicalProblems(limit: limit)
        } catch {
            return ["cannot read the schema: \(error)"]
        }
    }
}

/// The result of `granite check`.
struct CheckReport: Codable {
    var file: String
    var ok: Bool
    var pageCount: UInt32
    var freePages: UInt32
    var treeCount: Int
    var problems: [String]
    var trees: [TreeReport]

    /// The report of the structural check `report` followed by the problems of rows and index entries.
    init(file: String, read: ReadTransaction, report: IntegrityReport, rowProblems: [String]) throws {
        self.file = file
        problems = report.problems + rowProblems
        ok = problems.isEmpty
        pageCount = try read.pageCount
        freePages = try read.freelistCount
        trees = report.trees.map(TreeReport.init)
        treeCount = trees.filter { $0.name != "(catalog)" }.count
    }

    func printText() {
        if ok {
            print(
                "ok: \(grouped(pageCount)) pages (\(grouped(freePages)) free), "
                    + "\(treeCount) tree\(treeCount == 1 ? "" : "s") plus the catalog")
        } else {
            for problem in problems { print(problem) }
        }
    }
}
