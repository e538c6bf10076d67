// `granite tree FILE NAME`: the shape of one tree.

import ArgumentParser
import GraniteSQL
import GraniteStorage

/// Prints the depth, size and fill of one tree (or of the catalog).
struct TreeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tree",
        abstract: "Show the shape of one tree: depth, entries, pages, fan-out, fill."
    )

    @Argument(help: "The database file.")
    var file: String

    @Argument(help: "The tree's name; \"(catalog)\" for the catalog.")
    var name: String?

    @Flag(name: .long, help: "Show the catalog tree.")
    var catalog = false

    @OptionGroup var output: OutputOptions

    func validate() throws {
        if catalog && name != nil && name != "(catalog)" {
            throw ValidationError("give either a tree name or --catalog, not both")
        }
        if !catalog && name == nil {
            throw ValidationError("missing tree name (or --catalog)")
        }
    }

    /// The storage tree of `name`: a tree name as stored, or the name of an SQL table or index (`people` for
    /// the tree `t:1` that holds its rows).
    static func storageName(of name: String, in read: ReadTransaction) throws -> String {
        if try name == "(catalog)" || read.treeInfo(named: name) != nil { return name }
        guard let connection = try? SQLConnection(readingIn: read) else { return name }
        if let table = connection.catalog.table(named: name) { return table.storageName }
        if let index = connection.catalog.index(named: name) { return index.storageName }
        return name
    }

    func run() throws {
        try reportingErrors {
            let requested = catalog ? "(catalog)" : name ?? "(catalog)"
            let (tree, problems, object) = try withDatabase(file) { read -> (TreeReport, [String], String) in
                let wanted = try Self.storageName(of: requested, in: read)
                if wanted != "(catalog)", try read.treeInfo(named: wanted) == nil {
                    let names = try read.trees().map(\.name)
                    throw CLIError(
                        "no tree named '\(wanted)' (trees: \(names.isEmpty ? "none" : names.joined(separator: ", ")))")
                }
                let report = read.engine.checkIntegrity()
                guard let statistics = report.trees.first(where: { $0.info.name == wanted }) else {
                    throw CLIError("tree '\(wanted)' was not reached by the integrity check")
                }
                return (TreeReport(statistics), report.problems, TreeNames(read).name(of: wanted))
            }
            if output.json {
                try printJSON(tree)
            } else {
                let storage = object == tree.name ? "" : ", tree \(tree.name)"
                print("\(object) (\(tree.kind)\(storage)), root page \(tree.root)")
                let lines = [
                    ("depth", "\(tree.depth)"),
                    ("entries", grouped(tree.entries)),
                    ("leaf pages", grouped(tree.leafPages)),
                    ("interior pages", grouped(tree.interiorPages)),
                    ("overflow pages", grouped(tree.overflowPages)),
                    (
                        "average fan-out",
                        tree.interiorPages == 0 ? "- (no interior pages)" : String(format: "%.1f", tree.averageFanOut)
                    ),
                    ("leaf fill", percent(tree.leafFill)),
                ]
                printLines(aligned(lines))
            }
            if !problems.isEmpty {
                for problem in problems { printError("granite: \(problem)") }
                printError("granite: \(file) is damaged; the figures above may be incomplete (run `granite check`)")
                throw ExitCode.failure
            }
        }
    }
}
