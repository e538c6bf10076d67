import GraniteStorage

/// What a query reads of one stored table, as SQLite's authorizer reports it to GRDB's database regions.
package struct SQLTableRead: Sendable, Equatable {
    /// The table name, as declared.
    package var tableName: String
    /// The columns the query reads anywhere (result, `WHERE`, `ORDER BY`, joins), by declared name; the rowid
    /// is named after the INTEGER PRIMARY KEY column when there is one, else `rowid`. Nil when the query reads
    /// no column of the table, but its rows (`count(*)`): the whole table then matters.
    package var columnNames: Set<String>?
}

extension PreparedStatement {
    /// The tables and columns the statement reads: those of a `SELECT` (views, subqueries and common table
    /// expressions included, down to their stored tables); nothing for other statements.
    ///
    /// Computed by compiling the query once more with the connection noting each stored table it opens, then
    /// kept until the schema changes.
    package func readTables() throws -> [SQLTableRead] {
        guard case .select(let select) = statement.kind else { return [] }
        let version = connection.catalog.schemaVersion
        if let cachedReads, cachedReads.version == version { return cachedReads.reads }
        // Compiling opens the tables' trees, which needs a read transaction outside of any other.
        let sources = try connection.reading {
            try connection.recordingReadSources { _ = try connection.compileSelect(select, statement: statement) }
        }
        var reads: [SQLTableRead] = []
        for source in sources {
            guard let table = source.table else { continue }
            let read = SQLTableRead(tableName: table.name, columnNames: Self.columnNames(read: source.used, of: table))
            reads.append(read)
        }
        cachedReads = (version, reads)
        return reads
    }

    private static func columnNames(read slots: Set<Int>, of table: TableDefinition) -> Set<String>? {
        guard !slots.isEmpty else { return nil }
        var names: Set<String> = []
        for slot in slots {
            if slot < table.columns.count {
                names.insert(table.columns[slot].name)
            } else if let alias = table.rowidAlias {
                names.insert(table.columns[alias].name)
            } else {
                names.insert("rowid")
            }
        }
        return names
    }
}

extension SQLConnection {
    /// Runs `compile` while noting every stored table source the select compiler adds; returns them once the
    /// compilation is over, when their read columns are known.
    func recordingReadSources(_ compile: () throws -> Void) throws -> [QuerySource] {
        let previous = readSourceRecorder
        readSourceRecorder = []
        defer { readSourceRecorder = previous }
        try compile()
        return readSourceRecorder ?? []
    }
}
