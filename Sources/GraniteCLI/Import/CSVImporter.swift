// Loads CSV records into a table as the sqlite3 shell's `.import --csv` does: a missing table is created with TEXT
// columns named by the first record; every value is inserted as text, so an existing table's column affinities
// convert it (`'7'` becomes 7 in an INTEGER column); a record with too few fields is filled with NULLs and one with
// too many loses the extras, each with a warning naming the line.

import GraniteSQL
import GraniteStorage

/// Inserts the records of a CSV file into one table, on a connection whose transaction the caller manages.
struct CSVImporter {
    let connection: SQLConnection
    /// The table, created when missing.
    let table: String
    /// Records skipped at the start of the file when the table exists (a header line: `--header` / `--skip 1`).
    var skippedRecords = 0
    /// Called after each inserted row, with the bytes of input read so far.
    var progress: ((_ rows: Int, _ bytesRead: Int64) -> Void)?

    /// Inserts every record `reader` reads; returns the number of rows inserted. Throws on a malformed file or a
    /// failed insert, naming the line.
    func run(_ reader: inout CSVReader) throws -> Int {
        guard let first = try reader.nextRecord() else {
            throw CLIError("\(reader.source): empty file")
        }
        var pendingFirst: [String]? = first
        let columnCount: Int
        if connection.catalog.table(named: table) == nil && connection.catalog.view(named: table) == nil {
            try createTable(columns: first)
            pendingFirst = nil
            columnCount = first.count
        } else {
            columnCount = try existingColumnCount()
            if skippedRecords > 0 {
                pendingFirst = nil
                var skipped = 1
                while skipped < skippedRecords, try reader.nextRecord() != nil { skipped += 1 }
            }
        }
        let insert = try connection.prepare(
            "INSERT INTO \(SQLLiteral.identifier(table)) VALUES (\(Array(repeating: "?", count: columnCount).joined(separator: ", ")))"
        )
        var rows = 0
        var values = [Value](repeating: .null, count: columnCount)
        while let record = try pendingFirst ?? reader.nextRecord() {
            pendingFirst = nil
            warnAboutFieldCount(record.count, expected: columnCount, reader: reader)
            for index in 0..<columnCount {
                values[index] = index < record.count ? .text(record[index]) : .null
            }
            do {
                try insert.bind(values)
                try insert.execute()
            } catch {
                throw CLIError("\(reader.source):\(reader.recordLine): \(errorMessage(error))")
            }
            rows += 1
            progress?(rows, reader.bytesRead)
        }
        return rows
    }

    /// Creates the table with one TEXT column per header field, named as the field is.
    private func createTable(columns: [String]) throws {
        let definitions = columns.map { "\(SQLLiteral.identifier($0)) TEXT" }.joined(separator: ", ")
        try connection.execute("CREATE TABLE \(SQLLiteral.identifier(table))(\(definitions))")
    }

    /// The number of values a row of the existing table takes (as `SELECT *` shows them).
    private func existingColumnCount() throws -> Int {
        try connection.prepare("SELECT * FROM \(SQLLiteral.identifier(table))").columnNames.count
    }

    /// Prints sqlite3's warning for a record with the wrong number of fields.
    private func warnAboutFieldCount(_ count: Int, expected: Int, reader: CSVReader) {
        guard count != expected else { return }
        let what = count < expected ? "filling the rest with NULL" : "extras ignored"
        printError("\(reader.source):\(reader.recordLine): expected \(expected) columns but found \(count) - \(what)")
    }
}
