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
                    trees: try Self.treeEntries(read)
                )
            }
            if output.json {
                try printJSON(report)
            } else {
                report.printText()
            }
        }
    }

    /// The catalog's trees, each under the name of the SQL table or index it holds.
    static func treeEntries(_ read: ReadTransaction) throws -> [TreeEntry] {
        let names = TreeNames(read)
        return try read.trees().map {
            TreeEntry(
                name: names.name(of: $0.name), kind: names.kind(of: $0.name, storageKind: $0.kind), tree: $0.name,
                root: $0.root)
        }
    }
}

/// A catalog entry.
struct TreeEntry: Codable {
    /// The SQL table or index the tree holds (the storage name for a tree no SQL object owns).
    var name: String
    /// "table" or "index".
    var kind: String
    /// The tree's storage name (`t:1`, `i:2`).
    var tree: String
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
        var table = TextTable(header: ["name", "kind", "tree", "root"], rightAligned: [3])
        table.rows = trees.map { [$0.name, $0.kind, $0.tree, "\($0.root)"] }
        printLines(table.render(indent: "  "))
    }
}
