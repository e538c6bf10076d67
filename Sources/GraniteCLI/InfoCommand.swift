// `granite info FILE`: the header fields, the write-ahead log and the catalog.

import ArgumentParser
import Foundation
import GraniteStorage

/// Prints the file header, the state of the write-ahead log and the trees listed in the catalog.
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show the header fields, the write-ahead log and the trees of a database file.",
        discussion: """
            The header shown is the database's latest committed state: the file's page 1, or its \
            newer image in the write-ahead log. The log's committed frames are those recovery keeps \
            (`granite wal` lists them).
            """
    )

    @Argument(help: "The database file.")
    var file: String

    @OptionGroup var output: OutputOptions

    func run() throws {
        try reportingErrors {
            let report = try withDatabase(file) { read in
                InfoReport(
                    file: file, fileSize: try read.engine.file.size(), header: HeaderReport(read.engine.pager.header),
                    wal: WALStatusReport(
                        read.engine.walStatus, present: FileManager.default.fileExists(atPath: file + "-wal")),
                    trees: try read.trees().map { TreeEntry(name: $0.name, kind: $0.kind.description, root: $0.root) }
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
    var wal: WALStatusReport
    var trees: [TreeEntry]

    func printText() {
        print("file \(file)")
        var lines = [("file size", "\(grouped(fileSize)) bytes (\(byteSize(Int(fileSize))))")]
        lines += header.lines
        printLines(aligned(lines))
        print("write-ahead log \(file)-wal")
        var walLines = [("state", wal.present ? "present" : "absent")]
        if wal.present {
            walLines.append(("file size", "\(grouped(wal.fileSize)) bytes (\(byteSize(Int(wal.fileSize))))"))
            if let sequence = wal.checkpointSequence, let salt1 = wal.salt1, let salt2 = wal.salt2 {
                walLines.append(("sequence", "\(sequence)"))
                walLines.append(("salts", "\(hex32(salt1)) \(hex32(salt2))"))
            } else {
                walLines.append(("header", "none (the log is empty or ignored)"))
            }
            walLines.append(("frames", "\(grouped(wal.frames)) committed"))
            walLines.append(("commits", grouped(wal.commits)))
        }
        printLines(aligned(walLines))
        print("trees (\(trees.count))")
        var table = TextTable(header: ["name", "kind", "root"], rightAligned: [2])
        table.rows = trees.map { [$0.name, $0.kind, "\($0.root)"] }
        printLines(table.render(indent: "  "))
    }
}
