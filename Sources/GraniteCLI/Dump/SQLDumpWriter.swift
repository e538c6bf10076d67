// The text of `granite dump`: which objects and rows, in which order.

import GraniteSQL
import GraniteStorage

/// Writes a database as an SQL script for `granite sql` and `sqlite3` on standard output, rows streamed.
struct SQLDumpWriter {
    let connection: SQLConnection
    let includesSchema: Bool
    let includesRows: Bool
    private var output = DumpOutput()

    init(connection: SQLConnection, includesSchema: Bool, includesRows: Bool) {
        self.connection = connection
        self.includesSchema = includesSchema
        self.includesRows = includesRows
    }

    /// Writes the script: the tables (each CREATE TABLE then its rows), the AUTOINCREMENT counters, then the
    /// indexes, triggers and views, in the order they were created, all in one transaction. With `names`, only
    /// those tables and views, and the indexes and triggers of those tables.
    mutating func dump(selecting names: [String]) throws {
        let schema = try DumpSchema(connection, selecting: names)
        let tables = schema.tables

        write("PRAGMA foreign_keys=OFF;\nBEGIN TRANSACTION;\n")
        for table in tables {
            if includesSchema { write(table.sql + ";\n") }
            if includesRows { try writeRows(of: table.name) }
        }
        if includesRows { try writeSequences(of: tables.map(\.name), isWholeDatabase: schema.isWholeDatabase) }
        if includesSchema {
            for object in schema.otherObjects { write(object.sql + ";\n") }
        }
        write("COMMIT;\n")
        output.flush()
    }

    /// One INSERT per row of `tableName`, in rowid order (primary key order for a WITHOUT ROWID table).
    /// Generated columns are left out (they cannot be inserted), with the other columns named.
    private mutating func writeRows(of tableName: String) throws {
        guard let table = connection.catalog.table(named: tableName) else { return }
        let stored = table.columns.filter { $0.generated == nil }
        let names = stored.map { SQLLiteral.identifier($0.name) }
        var select = "SELECT " + names.joined(separator: ", ") + " FROM " + SQLLiteral.identifier(table.name)
        if table.hasRowid {
            let columnNames = Set(table.columns.map { $0.name.lowercased() })
            if let rowid = ["rowid", "_rowid_", "oid"].first(where: { !columnNames.contains($0) }) {
                select += " ORDER BY " + rowid
            }
        }
        var prefix = "INSERT INTO " + SQLLiteral.identifier(table.name)
        if stored.count != table.columns.count { prefix += "(" + names.joined(separator: ",") + ")" }
        let prefixBytes = Array((prefix + " VALUES(").utf8)

        let statement = try connection.prepare(select)
        let count = statement.columnCount
        while try statement.stepRow() {
            output.bytes.append(contentsOf: prefixBytes)
            for index in 0..<count {
                if index > 0 { output.bytes.append(UInt8(ascii: ",")) }
                SQLLiteral.append(statement.column(at: index), to: &output.bytes)
            }
            output.bytes.append(contentsOf: ");\n".utf8)
            output.flushIfFull()
        }
    }

    /// The AUTOINCREMENT counters of the dumped tables, under SQLite's name for their table (which Granite
    /// reads as its own `granite_sequence`).
    private mutating func writeSequences(of tableNames: [String], isWholeDatabase: Bool) throws {
        guard connection.catalog.table(named: "granite_sequence") != nil else { return }
        let dumped = Set(tableNames.map { $0.lowercased() })
        let rows = try connection.query("SELECT name, seq FROM granite_sequence").rows.filter { row in
            if case .text(let name) = row.first { return dumped.contains(name.lowercased()) }
            return false
        }
        guard !rows.isEmpty else { return }
        if isWholeDatabase { write("DELETE FROM sqlite_sequence;\n") }
        for row in rows {
            guard row.count == 2, case .text(let name) = row[0] else { continue }
            if !isWholeDatabase { write("DELETE FROM sqlite_sequence WHERE name = " + SQLLiteral.string(name) + ";\n") }
            output.write("INSERT INTO sqlite_sequence VALUES(")
            SQLLiteral.append(row[0], to: &output.bytes)
            output.bytes.append(UInt8(ascii: ","))
            SQLLiteral.append(row[1], to: &output.bytes)
            output.write(");\n")
        }
    }

    private mutating func write(_ text: String) {
        output.write(text)
    }
}
