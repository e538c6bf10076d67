// `granite page FILE N [--hex]`: one page, fully decoded.

import ArgumentParser
import GraniteStorage

/// Decodes one page: header fields, checksum, cells with their keys and rows.
struct PageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "page",
        abstract: "Decode one page: header, checksum, cells, keys and rows.",
        discussion: "Exits with status 1 when the page is damaged (after showing what can be decoded)."
    )

    @Argument(help: "The database file.")
    var file: String

    @Argument(help: "The page number (1 is the header page).")
    var number: Int

    @Flag(name: .long, help: "Add a hex dump of the whole page.")
    var hex = false

    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard number >= 1, number <= Int(UInt32.max) else {
            throw ValidationError("the page number must be between 1 and \(UInt32.max)")
        }
    }

    func run() throws {
        try reportingErrors {
            let report = try withDatabase(file) { read in
                try PageReport(file: file, read: read, number: PageNumber(number), hex: hex)
            }
            if output.json {
                try printJSON(report)
            } else {
                report.printText()
            }
            if let problem = report.damage {
                printError("granite: page \(report.number): \(problem)")
                throw ExitCode.failure
            }
        }
    }
}

/// One column of a decoded row.
struct ColumnReport: Codable {
    var index: Int
    var type: String
    /// A short rendering of the value (text cut to about 60 characters).
    var value: String
    var compressed: Bool
    /// For compressed text: the UTF-8 length and the stored body length.
    var plainBytes: Int?
    var storedBytes: Int?
}

/// One decoded cell.
struct CellReport: Codable {
    var index: Int
    var offset: Int
    var size: Int
    var child: UInt32?
    var rowid: Int64?
    /// Index keys: the decoded values (or, for the catalog, the tree name).
    var key: [String]?
    /// Whether `key` shows only the start of the key (a shortened separator, or a key that overflows).
    var keyTruncated: Bool?
    /// Index keys that do not decode: their bytes in hex.
    var keyHex: String?
    var payloadLength: Int
    var localLength: Int
    var overflow: UInt32?
    /// Index leaves: the value stored with the key, in hex (or decoded for the catalog).
    var value: String?
    /// Table leaves: the row.
    var columns: [ColumnReport]?
    /// Why the row or key could not be decoded.
    var problem: String?
}

/// The result of `granite page`.
struct PageReport: Codable {
    var file: String
    var number: UInt32
    var pageCount: UInt32
    var pageSize: Int
    var type: String
    var typeByte: UInt8
    /// The tree the page belongs to, per the integrity check ("(catalog)" for the catalog).
    var tree: String?
    var depth: Int?
    /// Whether the page is a free page listed on the freelist.
    var free: Bool
    var checksumValid: Bool
    var problem: String?
    var header: HeaderReport?
    var cellCount: Int?
    var contentStart: Int?
    var fragmentedBytes: Int?
    var rightChild: UInt32?
    var usedBytes: Int?
    var availableBytes: Int?
    var fill: Double?
    var cells: [CellReport]?
    /// Overflow pages: the next page of the chain; freelist trunks: the next trunk.
    var next: UInt32?
    var freePages: [UInt32]?
    var hex: [String]?

    /// What makes the page damaged, if anything (free pages hold leftovers and are never damaged).
    var damage: String? {
        if free { return nil }
        if !checksumValid { return problem.map { "checksum mismatch; \($0)" } ?? "checksum mismatch" }
        if let problem { return problem }
        return cells?.compactMap(\.problem).first
    }

    init(file: String, read: ReadTransaction, number: PageNumber, hex: Bool) throws {
        let engine = read.engine
        let d = try engine.describePage(number)
        let integrity = engine.checkIntegrity()
        let owner = Int(number) < integrity.owners.count ? integrity.owners[Int(number)] : nil
        self.file = file
        self.number = number
        pageCount = engine.pager.pageCount
        pageSize = engine.pager.pageSize
        typeByte = d.typeByte
        free = owner?.isFreeLeaf ?? false
        type = free ? "free" : d.type?.description ?? "unknown"
        tree = owner?.tree
        depth = owner?.tree == nil ? nil : owner?.depth
        checksumValid = d.checksumValid
        problem = free ? nil : d.problem
        if hex { self.hex = hexDump(try PageReport.rawBytes(d, engine: engine)) }
        if free { return }
        switch d.type {
        case .header:
            header = d.header.map(HeaderReport.init)
        case .overflow:
            next = d.next
        case .freelistTrunk:
            next = d.next
            freePages = d.freePages
        case .tableLeaf, .tableInterior, .indexLeaf, .indexInterior:
            cellCount = d.cellCount
            contentStart = d.contentStart
            fragmentedBytes = d.fragmentedBytes
            rightChild = d.type == .tableInterior || d.type == .indexInterior ? d.rightChild : nil
            usedBytes = d.usedBytes
            availableBytes = d.availableBytes
            fill = d.availableBytes > 0 ? rounded(Double(d.usedBytes) / Double(d.availableBytes)) : nil
            let table = try? tree.flatMap { name in
                try read.treeInfo(named: name)?.kind == .table ? read.table(named: name) : nil
            }
            cells = d.cells.map { cell in
                PageReport.describe(cell, type: d.type, catalog: tree == "(catalog)", table: table)
            }
        case nil:
            break
        }
    }

    /// The page's bytes as stored (read again if the description came without them).
    static func rawBytes(_ d: PageDescription, engine: StorageEngine) throws -> [UInt8] {
        if d.bytes.count == engine.pager.pageSize { return d.bytes }
        var bytes = [UInt8](repeating: 0, count: engine.pager.pageSize)
        _ = try bytes.withUnsafeMutableBytes { try engine.pager.source.readPage(d.number, into: $0.baseAddress!) }
        return bytes
    }

    /// Decodes a cell's key and row as far as possible.
    static func describe(_ cell: CellDescription, type: PageType?, catalog: Bool, table: TableTree?) -> CellReport {
        var report = CellReport(
            index: cell.index, offset: cell.offset, size: cell.size, child: cell.child, rowid: cell.rowid,
            payloadLength: cell.payloadLength, localLength: cell.localLength, overflow: cell.overflow)
        if let key = cell.key {
            let complete = cell.overflow == nil
            if catalog, complete, let name = String(validating: key, as: UTF8.self) {
                report.key = [Value.text(name).description]
            } else if complete, let values = try? KeyEncoding.decode(key) {
                report.key = values.map { preview($0) }
            } else if let prefix = decodeKeyPrefix(key) {
                report.key = prefix
                report.keyTruncated = true
            } else {
                report.keyHex = hexString(key)
            }
        }
        if type == .indexLeaf {
            let value = cell.localPayload
            if catalog, value.count == 5 {
                let kind = value[0] == 1 ? "table" : value[0] == 2 ? "index" : "kind \(value[0])"
                let root = UInt32(value[1]) | UInt32(value[2]) << 8 | UInt32(value[3]) << 16 | UInt32(value[4]) << 24
                report.value = "\(kind), root \(root)"
            } else {
                report.value = value.isEmpty ? "" : hexString(value, limit: 32)
            }
        }
        if type == .tableLeaf {
            var payload: [UInt8]? = cell.overflow == nil ? cell.localPayload : nil
            if payload == nil, let table, let rowid = cell.rowid {
                do {
                    payload = try table.get(rowid: rowid)
                } catch {
                    report.problem = "cannot read the overflow chain: \(errorMessage(error))"
                }
            }
            if let payload {
                let (columns, problem) = decodeRow(payload)
                report.columns = columns
                report.problem = problem
            }
        }
        return report
    }

    /// Every column of a row, or the reason the row does not decode.
    static func decodeRow(_ payload: [UInt8]) -> ([ColumnReport], String?) {
        payload.withUnsafeBytes { raw in
            let row: RowDecoder
            do {
                row = try RowDecoder(raw)
            } catch {
                return ([], "row does not decode: \(errorMessage(error))")
            }
            var columns: [ColumnReport] = []
            var problem: String? = nil
            for i in 0..<row.count {
                var column = ColumnReport(index: i, type: row.type(at: i).description, value: "", compressed: false)
                if row.isCompressed(at: i) {
                    column.compressed = true
                    column.plainBytes = row.textLength(at: i)
                    column.storedBytes = row.body(at: i).count
                }
                do {
                    column.value = preview(try row.value(at: i))
                } catch {
                    column.value = "<\(errorMessage(error))>"
                    problem = problem ?? "column \(i): \(errorMessage(error))"
                }
                columns.append(column)
            }
            return (columns, problem)
        }
    }

    func printText() {
        var title = "page \(number) of \(grouped(pageCount)): \(type)"
        if let tree { title += ", tree \(tree) (depth \(depth ?? 0))" }
        print(title)
        var lines: [(String, String)] = [("type byte", "\(typeByte)")]
        lines.append(("checksum", checksumValid ? "valid" : "MISMATCH"))
        if let problem { lines.append(("problem", problem)) }
        if free {
            lines.append(("contents", "free page listed on the freelist; its bytes are leftovers"))
        }
        if let header { lines += header.lines }
        if let cellCount {
            lines.append(("cells", grouped(cellCount)))
            lines.append(("content start", "\(contentStart ?? 0)"))
            lines.append(("fragmented", "\(fragmentedBytes ?? 0) bytes"))
            if let rightChild { lines.append(("right child", "\(rightChild)")) }
            lines.append(
                ("used", "\(grouped(usedBytes ?? 0)) of \(grouped(availableBytes ?? 0)) bytes (\(percent(fill ?? 0)))"))
        }
        if let next {
            let what = type == "overflow" ? "next overflow page" : "next trunk"
            lines.append((what, next == 0 ? "0 (end of chain)" : "\(next)"))
        }
        if let freePages {
            lines.append(("free pages listed", grouped(freePages.count)))
        }
        printLines(aligned(lines))
        if let freePages, !freePages.isEmpty {
            var line = " "
            for page in freePages {
                if line.count > 100 {
                    print(line)
                    line = " "
                }
                line += " \(page)"
            }
            print(line)
        }
        for cell in cells ?? [] { printCell(cell) }
        if let hex {
            print("hex dump")
            printLines(hex.map { "  " + $0 })
        }
    }

    func printCell(_ cell: CellReport) {
        var parts = ["cell \(cell.index): offset \(cell.offset), size \(cell.size)"]
        if let child = cell.child { parts.append("child \(child)") }
        if let rowid = cell.rowid { parts.append("rowid \(rowid)") }
        if let key = cell.key {
            let what = cell.keyTruncated == true ? "key prefix" : "key"
            parts.append("\(what) (\(key.joined(separator: ", ")))")
        }
        if let keyHex = cell.keyHex { parts.append("key x'\(keyHex)'") }
        if type != "table-interior" {
            var payload = "payload \(grouped(cell.payloadLength)) bytes"
            if let overflow = cell.overflow {
                payload += " (local \(grouped(cell.localLength)), overflow page \(overflow))"
            }
            parts.append(payload)
        }
        if let value = cell.value { parts.append(value.isEmpty ? "no value" : "value \(value)") }
        print(parts.joined(separator: ", "))
        for column in cell.columns ?? [] {
            var line =
                "    [\(column.index)] \(column.type.padding(toLength: 7, withPad: " ", startingAt: 0)) \(column.value)"
            if column.compressed, let plain = column.plainBytes, let stored = column.storedBytes {
                line += "  (compressed: plain \(grouped(plain)) → stored \(grouped(stored)) bytes)"
            }
            print(line)
        }
        if let problem = cell.problem { print("    problem: \(problem)") }
    }
}
