import GraniteStorage

extension SQLConnection {
    /// The `PRAGMA table_info` (or `table_xinfo`) rows of a view: its columns as a query reading it sees them,
    /// with their declared types (see ``SelectCompiler/declaredTypes(of:select:)``), never NOT NULL, without
    /// defaults or primary key. A view whose query does not compile is an error, as in SQLite.
    func viewInfo(_ view: ViewDefinition, extended: Bool) throws -> [[Value]] {
        let columns = try reading {
            try SelectCompiler(catalog: catalog, connection: self, sourceText: view.sql, sourceStart: 0)
                .compileView(view, forInfoOnly: true).columns
        }
        return columns.enumerated().map { cid, column in
            var row: [Value] = [
                .integer(Int64(cid)), .text(column.name), .text(column.declaredType ?? ""), .integer(0), .null,
                .integer(0),
            ]
            if extended { row.append(.integer(0)) }
            return row
        }
    }
}
