// `granite recover FILE OUT`: salvages every readable row of a damaged database into a new one, and reports what
// was lost per table.

import ArgumentParser
import Foundation
import GraniteSQL
import GraniteStorage

/// Reads FILE page by page (never through its trees' roots alone) and rebuilds what it can in OUT.
struct RecoverCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recover",
        abstract: "Salvage the readable rows of a damaged database into a new one.",
        discussion: """
            Reads every page of FILE (which is left untouched; its log FILE-wal is not read: \
            checkpoint it first when it can be opened), skipping pages that fail their checksum and \
            pages on the freelist. The schema is taken from the readable schema rows; each table leaf \
            is placed in its table by climbing the interior pages above it, or, when those are lost, \
            by its rows' column count when one table alone has it; other rows go to the table \
            lost_and_found (rootpgno, pgno, nfield, id, c0, c1, ...). Indexes, views and triggers are \
            created again after the rows. Each damaged page is counted against the table (or index) \
            that a readable page ties it to: the schema row naming it as a root, the interior page \
            pointing to it, the row whose overflow chain runs into it; the others are listed as \
            unattributed. Exit status: 0 when nothing was lost, 2 when rows or pages were lost (the \
            report says where), 1 when OUT could not be written.
            """
    )

    @Argument(help: "The damaged database file.")
    var file: String

    @Argument(help: "The new database file to write.")
    var out: String

    @OptionGroup var output: OutputOptions

    func run() throws {
        var report: RecoveryReport?
        try reportingErrors {
            report = try Recovery(file: file, out: out).run()
            if output.json {
                try printJSON(report)
            } else {
                report?.printText()
            }
        }
        if report?.lostAnything == true { throw ExitCode(2) }
    }
}

/// What one table got back.
struct TableRecovery: Codable {
    var name: String
    /// Rows inserted into OUT.
    var rowsRecovered = 0
    /// Rows read but refused by the table's constraints (a duplicate key, NOT NULL, CHECK).
    var rowsRejected = 0
    /// Readable leaf pages found for the table.
    var leafPages = 0
    /// Damaged pages that surviving pages tie to the table (see RecoverAttribution.swift): its root, pages its
    /// readable interior pages point to, overflow pages its rows lead to.
    var pagesLost = 0
    /// Whether the table's root page is among them: damaged pages that only the root pointed to cannot be tied
    /// to the table, and are counted in the report's `unattributedPages`.
    var rootLost = false
    /// Cells of its leaves whose payload could not be read.
    var cellsUnreadable = 0
    /// Leaves placed by their column count because the pages above them were lost.
    var leavesPlacedByShape = 0
}

/// Damaged pages of a tree whose rows are not salvaged as a table's (an index, which is created again from its
/// table's rows; the schema table; a table that could not be created again; Granite's own tables).
struct TreeDamage: Codable {
    var type: String
    var name: String
    var pagesLost: Int
}

/// The result of `granite recover`.
struct RecoveryReport: Codable {
    var file: String
    var out: String
    var pageSize: Int
    var pages: Int
    var headerDamaged: Bool
    var damagedPages: [UInt32]
    var freePagesSkipped: Int
    var schemaRows: Int
    var tables: [TableRecovery]
    /// Damaged pages of trees other than the salvaged tables.
    var otherTreesDamaged: [TreeDamage] = []
    /// Damaged pages that no surviving page ties to a table or another tree: they may have held rows of any
    /// table whose root or interior pages were lost too.
    var unattributedPages: [UInt32] = []
    /// Rows of leaves that could not be placed in a table, kept in `lost_and_found`.
    var lostAndFoundRows = 0
    /// Schema objects that could not be created again in OUT, with the reason.
    var failedObjects: [String] = []

    /// Records which table or tree each damaged page belonged to.
    mutating func attribute(_ attribution: DamageAttribution) {
        for index in tables.indices {
            let owner = DamagedPageOwner.table(tables[index].name)
            tables[index].pagesLost = attribution.pagesLost(by: owner)
            tables[index].rootLost = attribution.rootsLost.contains(owner)
        }
        var others: [DamagedPageOwner: TreeDamage] = [:]
        for owner in Set(attribution.owners.values) {
            switch owner {
            case .table(let name) where tables.contains(where: { $0.name == name }): continue
            case .table(let name): others[owner] = TreeDamage(type: "table", name: name, pagesLost: 0)
            case .tree(let type, let name): others[owner] = TreeDamage(type: type, name: name, pagesLost: 0)
            }
            others[owner]?.pagesLost = attribution.pagesLost(by: owner)
        }
        otherTreesDamaged = others.values.sorted { ($0.type, $0.name) < ($1.type, $1.name) }
        unattributedPages = attribution.unattributed
    }

    var lostAnything: Bool {
        headerDamaged || !damagedPages.isEmpty || lostAndFoundRows > 0 || !failedObjects.isEmpty
            || tables.contains { $0.rowsRejected + $0.pagesLost + $0.cellsUnreadable > 0 }
    }

    func printText() {
        print("recover \(file) -> \(out)")
        var lines: [(String, String)] = [
            (
                "pages",
                "\(grouped(pages)) of \(pageSize) bytes, \(grouped(damagedPages.count)) damaged"
                    + (headerDamaged ? " (the header among them)" : "")
                    + ", \(grouped(freePagesSkipped)) free skipped"
            ),
            ("schema", "\(schemaRows) rows read"),
        ]
        for table in tables {
            var text = "\(grouped(table.rowsRecovered)) rows recovered from \(grouped(table.leafPages)) leaves"
            if table.rootLost && table.pagesLost == 1 {
                text += ", its root page lost"
            } else if table.pagesLost > 0 {
                text += ", \(pagesText(table.pagesLost)) lost" + (table.rootLost ? " including its root" : "")
            }
            if table.cellsUnreadable > 0 { text += ", \(grouped(table.cellsUnreadable)) rows unreadable" }
            if table.rowsRejected > 0 { text += ", \(grouped(table.rowsRejected)) rows refused by constraints" }
            if table.leavesPlacedByShape > 0 { text += " (\(table.leavesPlacedByShape) leaves placed by shape)" }
            lines.append(("table " + table.name, text))
        }
        for tree in otherTreesDamaged {
            let note = tree.type == "index" ? " (created again from its table)" : ""
            lines.append(("\(tree.type) \(tree.name)", "\(pagesText(tree.pagesLost)) lost" + note))
        }
        if !unattributedPages.isEmpty {
            let count = unattributedPages.count
            let numbers = unattributedPages.prefix(10).map(String.init).joined(separator: ", ")
            lines.append(
                (
                    "unattributed",
                    "\(grouped(count)) damaged page\(count == 1 ? "" : "s") (\(numbers)\(count > 10 ? ", ..." : ""))"
                        + " tied to no table by any readable page; the rows \(count == 1 ? "it" : "they") held are lost"
                ))
        }
        if lostAndFoundRows > 0 { lines.append(("lost_and_found", "\(grouped(lostAndFoundRows)) rows")) }
        for failure in failedObjects { lines.append(("not created", failure)) }
        printLines(aligned(lines))
    }
}

/// "1 page", "2 pages".
private func pagesText(_ count: Int) -> String {
    "\(grouped(count)) page" + (count == 1 ? "" : "s")
}

/// One row of the damaged file's schema table.
private struct SchemaRow {
    var type: String
    var name: String
    var rootPage: Int64
    var sql: String?

    /// The row's values when they have the shape of a schema row (FORMAT.md § "The schema table").
    init?(_ values: [Value]) {
        guard values.count == 5, case .text(let type) = values[0],
            ["table", "index", "view", "trigger"].contains(type),
            case .text(let name) = values[1], case .text = values[2], case .integer(let root) = values[3]
        else { return nil }
        switch values[4] {
        case .text(let text): sql = text
        case .null: sql = nil
        default: return nil
        }
        self.type = type
        self.name = name
        rootPage = root
    }
}

/// The work of `granite recover`.
private struct Recovery {
    let file: String
    let out: String

    func run() throws -> RecoveryReport {
        let scan = try readPages()
        if let size = try? FileManager.default.attributesOfItem(atPath: out)[.size] as? NSNumber, size.intValue > 0 {
            throw CLIError("\(out) already exists and is not empty")
        }
        let (schema, schemaLeaves) = Self.schema(in: scan)
        var report = RecoveryReport(
            file: file, out: out, pageSize: scan.pageSize, pages: scan.pageCount, headerDamaged: !scan.headerIsValid,
            damagedPages: scan.damagedPages, freePagesSkipped: scan.freePages, schemaRows: schema.count, tables: [])
        let engine = try StorageEngine(path: out)
        defer { try? engine.close() }
        let connection = try SQLConnection(engine: engine)
        connection.foreignKeysEnabled = false
        try connection.execute("BEGIN")
        var writer = RowWriter(connection: connection)
        let tables = create(schema.filter { $0.type == "table" }, writer: &writer, report: &report)
        var lostAndFound = LostAndFound()
        var placedLeaves: [PageNumber: String] = [:]
        for leaf in scan.tableLeaves where !schemaLeaves.contains(leaf.page) {
            if let target = tables[leaf.top] ?? writer.tableByShape(leaf, tables: tables) {
                let placedByShape = tables[leaf.top] == nil
                try writer.insert(leaf, into: target, placedByShape: placedByShape, report: &report)
                placedLeaves[leaf.page] = target.name
            } else if !writer.isSkippedRoot(leaf.top) {
                lostAndFound.add(leaf)
            }
        }
        report.attribute(
            DamageAttribution(
                scan: scan, roots: Self.roots(of: schema, tables: tables, scan: scan), placedLeaves: placedLeaves))
        report.lostAndFoundRows = try lostAndFound.write(connection)
        for row in schema where row.type != "table" {
            guard let sql = row.sql else { continue }
            do {
                try connection.execute(sql)
            } catch {
                report.failedObjects.append("\(row.type) \(row.name): \(errorMessage(error))")
            }
        }
        try connection.execute("COMMIT")
        try engine.close()
        return report
    }

    /// The trees whose roots the schema rows name, and the schema table's own root when the header gives it.
    private static func roots(of schema: [SchemaRow], tables: [PageNumber: RecoveredTable], scan: SalvageScan)
        -> [PageNumber: DamagedPageOwner]
    {
        var roots: [PageNumber: DamagedPageOwner] = [:]
        if scan.headerIsValid, scan.catalogRoot >= 2 {
            roots[scan.catalogRoot] = .tree(type: "table", name: "sqlite_schema")
        }
        for row in schema where row.type == "table" || row.type == "index" {
            guard let root = PageNumber(exactly: row.rootPage), root >= 2, roots[root] == nil else { continue }
            if let table = tables[root] {
                roots[root] = .table(table.name)
            } else {
                roots[root] = .tree(type: row.type, name: row.name)
            }
        }
        return roots
    }

    /// Scans FILE, opened read-only.
    private func readPages() throws -> SalvageScan {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw CLIError("\(file): no such file")
        }
        let handle = try POSIXFileSystem().open(file, mode: .readOnly).file
        defer { handle.close() }
        return try SalvageScan(file: handle)
    }

    /// The schema rows, by schema number, read from the leaves whose rows all have a schema row's shape, and those
    /// leaves' page numbers.
    private static func schema(in scan: SalvageScan) -> (rows: [SchemaRow], leaves: Set<PageNumber>) {
        var rows: [Int64: SchemaRow] = [:]
        var leaves: Set<PageNumber> = []
        for leaf in scan.tableLeaves where !leaf.rows.isEmpty {
            let parsed = leaf.rows.compactMap { row -> (Int64, SchemaRow)? in
                guard let values = decodedRow(row.payload),
                    let schemaRow = SchemaRow(values)
                else { return nil }
                return (row.rowid, schemaRow)
            }
            guard parsed.count == leaf.rows.count else { continue }
            leaves.insert(leaf.page)
            for (rowid, row) in parsed where rows[rowid] == nil { rows[rowid] = row }
        }
        return (rows.sorted { $0.key < $1.key }.map(\.value), leaves)
    }

    /// Creates the tables in OUT; returns them by their root page in FILE.
    private func create(_ rows: [SchemaRow], writer: inout RowWriter, report: inout RecoveryReport)
        -> [PageNumber: RecoveredTable]
    {
        var tables: [PageNumber: RecoveredTable] = [:]
        for row in rows {
            guard let root = PageNumber(exactly: row.rootPage) else { continue }
            if row.name.lowercased().hasPrefix("granite_") {
                writer.skippedRoots.insert(root)
                continue
            }
            guard let sql = row.sql else { continue }
            do {
                try writer.connection.execute(sql)
                guard let table = try writer.table(named: row.name) else { continue }
                tables[root] = table
                report.tables.append(TableRecovery(name: row.name))
            } catch {
                report.failedObjects.append("table \(row.name): \(errorMessage(error))")
            }
        }
        return tables
    }
}

/// A table created again in OUT, and how a stored row of it is inserted.
private struct RecoveredTable {
    var name: String
    /// The number of values a full row stores (one per declared column, generated ones included).
    var columnCount: Int
    /// The declared columns an INSERT may name (generated columns cannot be inserted), by position.
    var insertable: [(position: Int, name: String)]
    /// The rowid alias column's position: it is stored as NULL and reads as the rowid.
    var rowidAlias: Int?
    /// The name under which to insert the rowid of a table with rowids but no alias; nil otherwise.
    var rowidName: String?
}

/// Inserts salvaged rows into OUT's tables.
private struct RowWriter {
    let connection: SQLConnection
    /// Roots of Granite's own tables (`granite_sequence`), whose leaves are neither recovered nor lost.
    var skippedRoots: Set<PageNumber> = []

    init(connection: SQLConnection) {
        self.connection = connection
    }

    func isSkippedRoot(_ page: PageNumber) -> Bool { skippedRoots.contains(page) }

    /// The table just created under `name`.
    func table(named name: String) throws -> RecoveredTable? {
        guard let definition = connection.catalog.table(named: name) else { return nil }
        let columns = definition.columns
        var rowidName: String?
        if definition.hasRowid, definition.rowidAlias == nil {
            let names = Set(columns.map { $0.name.lowercased() })
            rowidName = ["rowid", "_rowid_", "oid"].first { !names.contains($0) }
        }
        return RecoveredTable(
            name: definition.name, columnCount: columns.count,
            insertable: columns.enumerated().filter { $0.element.generated == nil }.map {
                ($0.offset, $0.element.name)
            },
            rowidAlias: definition.rowidAlias, rowidName: rowidName)
    }

    /// The one table whose column count every row of `leaf` has, when no other table has it.
    func tableByShape(_ leaf: SalvagedLeaf, tables: [PageNumber: RecoveredTable]) -> RecoveredTable? {
        let counts = Set(leaf.rows.map { row in decodedRow(row.payload)?.count ?? -1 })
        guard counts.count == 1, let count = counts.first else { return nil }
        let candidates = tables.values.filter { $0.columnCount == count }
        return candidates.count == 1 ? candidates.first : nil
    }

    /// Inserts the rows of `leaf` into `table`, counting them in the report.
    func insert(_ leaf: SalvagedLeaf, into table: RecoveredTable, placedByShape: Bool, report: inout RecoveryReport)
        throws
    {
        guard let index = report.tables.firstIndex(where: { $0.name == table.name }) else { return }
        report.tables[index].leafPages += 1
        report.tables[index].cellsUnreadable += leaf.unreadableCells
        if placedByShape { report.tables[index].leavesPlacedByShape += 1 }
        for row in leaf.rows {
            guard let values = decodedRow(row.payload) else {
                report.tables[index].cellsUnreadable += 1
                continue
            }
            var names: [String] = []
            var arguments: [Value] = []
            for (position, name) in table.insertable where position < values.count {
                names.append(SQLLiteral.identifier(name))
                arguments.append(
                    position == table.rowidAlias && values[position] == .null ? .integer(row.rowid) : values[position])
            }
            if let rowidName = table.rowidName {
                names.append(rowidName)
                arguments.append(.integer(row.rowid))
            }
            let sql =
                "INSERT OR IGNORE INTO \(SQLLiteral.identifier(table.name))(\(names.joined(separator: ",")))"
                + " VALUES(\(Array(repeating: "?", count: names.count).joined(separator: ",")))"
            try connection.execute(sql, arguments: arguments)
            if connection.changes == 1 {
                report.tables[index].rowsRecovered += 1
            } else {
                report.tables[index].rowsRejected += 1
            }
        }
    }
}

/// Rows that belong to no table found: kept, as SQLite's `.recover` keeps them, with where they were found.
private struct LostAndFound {
    private var rows: [(top: PageNumber, page: PageNumber, rowid: Int64, values: [Value])] = []

    mutating func add(_ leaf: SalvagedLeaf) {
        for row in leaf.rows {
            guard let values = decodedRow(row.payload) else { continue }
            rows.append((leaf.top, leaf.page, row.rowid, values))
        }
    }

    /// Creates `lost_and_found` in OUT and fills it; returns the number of rows.
    func write(_ connection: SQLConnection) throws -> Int {
        guard !rows.isEmpty else { return 0 }
        let width = max(1, rows.map(\.values.count).max() ?? 1)
        let columns = (0..<width).map { "c\($0)" }
        try connection.execute(
            "CREATE TABLE lost_and_found(rootpgno INTEGER, pgno INTEGER, nfield INTEGER, id INTEGER, "
                + columns.joined(separator: ", ") + ")")
        let sql =
            "INSERT INTO lost_and_found VALUES(" + Array(repeating: "?", count: 4 + width).joined(separator: ",") + ")"
        for row in rows {
            var arguments: [Value] = [
                .integer(Int64(row.top)), .integer(Int64(row.page)), .integer(Int64(row.values.count)),
                .integer(row.rowid),
            ]
            arguments += row.values + Array(repeating: .null, count: width - row.values.count)
            try connection.execute(sql, arguments: arguments)
        }
        return rows.count
    }
}

/// The values of a stored row, or nil when its bytes are not a row.
private func decodedRow(_ payload: [UInt8]) -> [Value]? {
    payload.withUnsafeBytes { bytes in try? RowDecoder(bytes).values() }
}
