// `granite stats FILE`: where the bytes of a database file go, per table and index.

import ArgumentParser
import Foundation
import GraniteStorage

/// A space analyzer: the pages, entries, payload, fill, fragmentation and compression savings of every table
/// and index, and the free pages.
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show how much space each table and index takes, sorted by size.",
        discussion: """
            Each page of the file is visited once and counted for the table or index that owns it, \
            the freelist, or none (leaked). Payload is an entry's stored length: a row's bytes, or an \
            index entry's key and value. Fill is the share of the tree pages' space used by cells and \
            their pointers. Fragmentation is the share of steps from one leaf to the next in key order \
            whose next leaf is not the following page of the file (0% for a tree written in order; a \
            scan of a fragmented tree jumps around the file). Saved is the uncompressed length minus \
            the stored length of compressed TEXT values. A page that cannot be read is counted as \
            unreadable and named on standard error, and the exit status is then 1.
            """
    )

    @Argument(help: "The database file.")
    var file: String

    @Flag(name: .long, help: "After the summary, the figures of each table and index.")
    var detail = false

    @Option(name: .long, help: "Also write a page map to this SVG file: one square per page, coloured by owner.")
    var svg: String?

    @OptionGroup var output: OutputOptions

    func run() throws {
        try reportingErrors {
            let (analysis, names) = try withDatabase(file) { read in
                (try read.engine.analyzeSpace(), TreeNames(read))
            }
            let report = StatsReport(file: file, analysis: analysis, names: names)
            if output.json {
                try printJSON(report)
            } else {
                report.printSummary()
                if detail { report.printDetail() }
            }
            if let svg {
                let map = PageMap(report: report, analysis: analysis)
                do {
                    try map.svg().write(toFile: svg, atomically: true, encoding: .utf8)
                } catch {
                    throw CLIError("cannot write \(svg): \(error.localizedDescription)")
                }
            }
            if !report.problems.isEmpty {
                for problem in report.problems { printError("granite: \(problem)") }
                if report.omittedProblems > 0 {
                    printError("granite: and \(grouped(report.omittedProblems)) more problem(s) not listed")
                }
                printError("granite: \(file) is damaged; the figures above are incomplete (run `granite check`)")
                throw ExitCode.failure
            }
        }
    }
}

/// The space of one table or index (or the catalog).
struct ObjectStats: Codable {
    /// The SQL name (the storage name for trees no SQL object owns).
    var name: String
    /// "table", "index" or "catalog".
    var kind: String
    /// The storage tree's name and root page.
    var tree: String
    var root: UInt32
    var pages: Int
    var leafPages: Int
    var interiorPages: Int
    var overflowPages: Int
    var unreadablePages: Int
    /// Pages over the file's pages, 0...1.
    var shareOfFile: Double
    var entries: Int
    var payloadBytes: Int
    var averagePayload: Double
    var maxPayload: Int
    /// Used over available bytes in the leaf and interior pages, 0...1.
    var fill: Double
    /// Leaf steps in key order that jump on disk, over all leaf steps, 0...1.
    var fragmentation: Double
    var compressedValues: Int
    var compressedPlainBytes: Int
    var compressedStoredBytes: Int
    /// Uncompressed minus stored length of the compressed values.
    var compressionSavings: Int

    init(_ space: TreeSpace, names: TreeNames, pageCount: Int) {
        name = names.name(of: space.info.name)
        kind = names.kind(of: space.info.name, storageKind: space.info.kind)
        tree = space.info.name
        root = space.info.root
        pages = space.pages
        leafPages = space.leafPages
        interiorPages = space.interiorPages
        overflowPages = space.overflowPages
        unreadablePages = space.unreadablePages
        shareOfFile = rounded(pageCount == 0 ? 0 : Double(space.pages) / Double(pageCount))
        entries = space.entries
        payloadBytes = space.payloadBytes
        averagePayload = rounded(space.entries == 0 ? 0 : Double(space.payloadBytes) / Double(space.entries))
        maxPayload = space.maxPayload
        fill = rounded(space.fill)
        fragmentation = rounded(space.fragmentation)
        compressedValues = space.compressedValues
        compressedPlainBytes = space.compressedPlainBytes
        compressedStoredBytes = space.compressedStoredBytes
        compressionSavings = space.compressionSavings
    }
}

/// The result of `granite stats`.
struct StatsReport: Codable {
    var file: String
    var pageSize: Int
    var pageCount: Int
    /// Page 1.
    var headerPages: Int
    var freePages: Int
    var freelistTrunkPages: Int
    /// Pages neither a tree nor the freelist reaches.
    var unattributedPages: Int
    /// Every table and index, the catalog included, largest first.
    var objects: [ObjectStats]
    /// Damage met on the way, one line each (the first 100); empty for a sound file.
    var problems: [String]
    /// Problems found beyond those listed.
    var omittedProblems: Int

    init(file: String, analysis: SpaceAnalysis, names: TreeNames) {
        self.file = file
        pageSize = analysis.pageSize
        pageCount = analysis.pageCount
        headerPages = analysis.count(.header)
        freePages = analysis.count(.free)
        freelistTrunkPages = analysis.count(.freelistTrunk)
        unattributedPages = analysis.unattributedPages
        objects = analysis.trees.map { ObjectStats($0, names: names, pageCount: analysis.pageCount) }
            .sorted { ($0.pages, $1.name) > ($1.pages, $0.name) }
        problems = analysis.problems
        omittedProblems = analysis.omittedProblems
    }

    /// The one-screen summary: one line per object, largest first, then the free and leaked pages.
    func printSummary() {
        let bytes = pageSize * pageCount
        print("file \(file): \(grouped(pageCount)) pages of \(grouped(pageSize)) bytes (\(byteSize(bytes)))")
        var table = TextTable(
            header: ["name", "kind", "pages", "% file", "entries", "avg payload", "max payload", "fill", "saved"],
            rightAligned: [2, 3, 4, 5, 6, 7, 8])
        for object in objects {
            table.rows.append([
                object.name, object.kind, grouped(object.pages), percent(object.shareOfFile), grouped(object.entries),
                String(format: "%.1f", object.averagePayload), grouped(object.maxPayload), percent(object.fill),
                object.compressionSavings > 0 ? byteSize(object.compressionSavings) : "-",
            ])
        }
        let share = { (pages: Int) in percent(pageCount == 0 ? 0 : Double(pages) / Double(pageCount)) }
        let freelist = freePages + freelistTrunkPages
        table.rows.append(["(freelist)", "free", grouped(freelist), share(freelist)])
        table.rows.append(["(header)", "header", grouped(headerPages), share(headerPages)])
        if unattributedPages > 0 {
            table.rows.append(["(unattributed)", "leaked", grouped(unattributedPages), share(unattributedPages)])
        }
        printLines(table.render())
        let saved = objects.reduce(0) { $0 + $1.compressionSavings }
        if saved > 0 { print("compressed text saves \(byteSize(saved)) in all") }
    }

    /// The figures of each object, largest first.
    func printDetail() {
        for object in objects {
            print("")
            let tree = object.tree == object.name ? "" : ", tree \(object.tree)"
            print("\(object.name) (\(object.kind)\(tree), root page \(object.root))")
            var pages = "\(grouped(object.pages)) (\(grouped(object.leafPages)) leaf, "
            pages += "\(grouped(object.interiorPages)) interior, \(grouped(object.overflowPages)) overflow"
            if object.unreadablePages > 0 { pages += ", \(grouped(object.unreadablePages)) unreadable" }
            pages += "), \(percent(object.shareOfFile)) of the file"
            var lines = [
                ("pages", pages),
                ("entries", grouped(object.entries)),
                (
                    "payload",
                    "\(byteSize(object.payloadBytes)) in all, \(String(format: "%.1f", object.averagePayload)) "
                        + "bytes average, \(grouped(object.maxPayload)) bytes max"
                ),
                ("fill", percent(object.fill)),
                ("fragmentation", percent(object.fragmentation)),
            ]
            if object.compressedValues > 0 {
                lines.append(
                    (
                        "compressed text",
                        "\(grouped(object.compressedValues)) values, \(byteSize(object.compressedPlainBytes)) → "
                            + "\(byteSize(object.compressedStoredBytes)) (\(byteSize(object.compressionSavings)) saved)"
                    ))
            }
            printLines(aligned(lines))
        }
    }
}
