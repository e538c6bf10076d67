// `granite check FILE`: the full integrity check.

import ArgumentParser
import GraniteStorage

/// Runs the storage layer's integrity check and prints "ok" or every problem found.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check the structure of a database file.",
        discussion: "Exits with status 1 when problems are found."
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
            let report = try withDatabase(file) { engine in
                CheckReport(file: file, engine: engine, report: engine.checkIntegrity(maxProblems: maxProblems))
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

    init(file: String, engine: StorageEngine, report: IntegrityReport) {
        self.file = file
        ok = report.isOK
        pageCount = engine.pager.pageCount
        freePages = engine.pager.header.freelistCount
        problems = report.problems
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
