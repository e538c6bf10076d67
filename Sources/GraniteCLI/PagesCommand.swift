// `granite pages FILE`: one line per page.

import ArgumentParser
import GraniteStorage

/// Lists every page: type, owning tree, cells, fill, and how much the
/// compressed rows of table leaves shrank.
struct PagesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pages",
        abstract: "List every page: type, tree, cells, fill, compressed rows.",
        discussion: """
            For table leaves, "compressed" sums the rows stored entirely in the page that hold \
            compressed text: their size with the text plain, and as stored. \
            Exits with status 1 when a page is damaged.
            """
    )

    @Argument(help: "The database file.")
    var file: String

    @OptionGroup var output: OutputOptions

    func run() throws {
        try reportingErrors {
            let report = try withDatabase(file) { read in
                try PagesReport(file: file, engine: read.engine, names: TreeNames(read))
            }
            if output.json {
                try printJSON(report)
            } else {
                report.printText()
            }
            let damaged = report.pages.filter { $0.problem != nil }
            if !damaged.isEmpty {
                for page in damaged { printError("granite: page \(page.number): \(page.problem ?? "")") }
                throw ExitCode.failure
            }
        }
    }
}

/// One line of `granite pages`.
struct PageSummary: Codable {
    var number: UInt32
    var type: String
    /// The SQL table or index that owns the page (the storage name for a tree no SQL object owns).
    var tree: String?
    /// The owning tree's storage name (`t:1`, `i:2`).
    var storageTree: String?
    var cells: Int?
    var usedBytes: Int?
    var availableBytes: Int?
    var fill: Double?
    var checksumValid: Bool
    /// Table leaves: rows kept whole in the page that hold compressed text, and their sizes.
    var compressedRows: Int?
    var plainBytes: Int?
    var storedBytes: Int?
    var problem: String?
}

/// Sums over all pages.
struct PagesTotals: Codable {
    var pages: Int
    var pagesByType: [String: Int]
    var cells: Int
    var usedBytes: Int
    var availableBytes: Int
    var compressedRows: Int
    var plainBytes: Int
    var storedBytes: Int
    var damagedPages: Int
}

/// The result of `granite pages`.
struct PagesReport: Codable {
    var file: String
    var pageSize: Int
    var pages: [PageSummary] = []
    var totals: PagesTotals

    init(file: String, engine: StorageEngine, names: TreeNames) throws {
        self.file = file
        pageSize = engine.pager.pageSize
        let owners = engine.checkIntegrity().owners
        totals = PagesTotals(
            pages: 0, pagesByType: [:], cells: 0, usedBytes: 0, availableBytes: 0, compressedRows: 0, plainBytes: 0,
            storedBytes: 0, damagedPages: 0)
        let count = engine.pager.pageCount
        guard count >= 1 else { return }
        for number in 1...count {
            let summary = try PagesReport.summarize(
                engine.describePage(number), owner: owners[safe: Int(number)] ?? nil, names: names)
            pages.append(summary)
            totals.pages += 1
            totals.pagesByType[summary.type, default: 0] += 1
            totals.cells += summary.cells ?? 0
            totals.usedBytes += summary.usedBytes ?? 0
            totals.availableBytes += summary.availableBytes ?? 0
            totals.compressedRows += summary.compressedRows ?? 0
            totals.plainBytes += summary.plainBytes ?? 0
            totals.storedBytes += summary.storedBytes ?? 0
            if summary.problem != nil { totals.damagedPages += 1 }
        }
    }

    static func summarize(_ d: PageDescription, owner: PageOwner?, names: TreeNames) -> PageSummary {
        let free = owner?.isFreeLeaf ?? false
        var s = PageSummary(
            number: d.number, type: free ? "free" : d.type?.description ?? "unknown(\(d.typeByte))",
            tree: owner?.tree.map(names.name(of:)), storageTree: owner?.tree, checksumValid: d.checksumValid)
        if free { return s }
        if !d.checksumValid {
            s.problem = d.problem.map { "checksum mismatch; \($0)" } ?? "checksum mismatch"
        } else {
            s.problem = d.problem
        }
        guard d.type?.isTreePage ?? false, d.problem == nil else { return s }
        s.cells = d.cellCount
        s.usedBytes = d.usedBytes
        s.availableBytes = d.availableBytes
        s.fill = d.availableBytes > 0 ? rounded(Double(d.usedBytes) / Double(d.availableBytes)) : nil
        guard d.type == .tableLeaf else { return s }
        var rows = 0
        var plain = 0
        var stored = 0
        for cell in d.cells where cell.overflow == nil {
            do {
                let stats = try cell.localPayload.withUnsafeBytes { try RowDecoder.stats(of: $0) }
                if stats.compressedColumns > 0 {
                    rows += 1
                    plain += stats.plainBytes
                    stored += stats.storedBytes
                }
            } catch {
                s.problem = s.problem ?? "cell \(cell.index) (rowid \(cell.rowid ?? 0)): \(errorMessage(error))"
            }
        }
        s.compressedRows = rows
        s.plainBytes = plain
        s.storedBytes = stored
        return s
    }

    func printText() {
        print("file \(file): \(grouped(pages.count)) pages of \(grouped(pageSize)) bytes")
        var table = TextTable(
            header: ["page", "type", "tree", "cells", "fill", "compressed rows: plain → stored"],
            rightAligned: [0, 3, 4])
        for page in pages {
            var compressed = ""
            if let rows = page.compressedRows, rows > 0 {
                compressed = "\(rows) rows: \(grouped(page.plainBytes ?? 0)) → \(grouped(page.storedBytes ?? 0))"
            }
            if let problem = page.problem { compressed = "DAMAGED: \(problem)" }
            table.rows.append([
                "\(page.number)", page.type, page.tree ?? "-", page.cells.map { grouped($0) } ?? "-",
                page.fill.map(percent) ?? "-", compressed,
            ])
        }
        printLines(table.render())
        let types = totals.pagesByType.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
        print("totals: \(grouped(totals.pages)) pages (\(types.joined(separator: ", ")))")
        let fill = totals.availableBytes > 0 ? Double(totals.usedBytes) / Double(totals.availableBytes) : 0
        print("  cells: \(grouped(totals.cells)); tree pages use \(percent(fill)) of their space")
        if totals.compressedRows > 0 {
            let saved = totals.plainBytes - totals.storedBytes
            print(
                "  rows with compressed text: \(grouped(totals.compressedRows)), "
                    + "\(byteSize(totals.plainBytes)) plain → \(byteSize(totals.storedBytes)) stored "
                    + "(\(byteSize(saved)) saved)")
        }
        if totals.damagedPages > 0 { print("  damaged pages: \(totals.damagedPages)") }
    }
}

extension Array {
    /// The element at `index`, or nil when the index is out of range.
    subscript(safe index: Int) -> Element? {
        index >= 0 && index < count ? self[index] : nil
    }
}
