// `granite info FILE`: the header fields and the catalog.

import ArgumentParser
import GraniteStorage

/// Prints the file header and the trees listed in the catalog.
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show the header fields and the trees of a database file."
    )

    @Argument(help: "The database file.")
    var file: String

    @OptionGroup var output: OutputOptions

    func run() throws {
        try reportingErrors {
            let report = try withDatabase(file) { engine in
                InfoReport(
                    file: file, fileSize: try engine.file.size(), header: HeaderReport(engine.pager.header),
                    trees: try engine.trees().map { TreeEntry(name: $0.name, kind: $0.kind.description, root: $0.root) }
                )
            }
            if output.json {
                try printJSON(report)
            } else {
                report.printText()
            }
        }
    }
}

/// A catalog entry.
struct TreeEntry: Codable {
    var name: String
    var kind: String
    var root: UInt32
}

/// The result of `granite info`.
struct InfoReport: Codable {
    var file: String
    var fileSize: Int64
    var header: HeaderReport
    var trees: [TreeEntry]

    func printText() {
        print("file \(file)")
        var lines = [("file size", "\(grouped(fileSize)) bytes (\(byteSize(Int(fileSize))))")]
        lines += header.lines
        printLines(aligned(lines))
        print("trees (\(trees.count))")
        var table = TextTable(header: ["name", "kind", "root"], rightAligned: [2])
        table.rows = trees.map { [$0.name, $0.kind, "\($0.root)"] }
        printLines(table.render(indent: "  "))
    }
}
