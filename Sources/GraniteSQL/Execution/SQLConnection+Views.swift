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

extension SQLConnection {
    /// The names of the columns of `view`, as a query reading it sees them.
    func viewColumnNames(_ view: ViewDefinition) throws -> [String] {
        try reading {
            try SelectCompiler(catalog: catalog, connection: self, sourceText: view.sql, sourceStart: 0)
                .compileView(view, forInfoOnly: true).columns.map(\.name)
        }
    }

    /// The `PRAGMA table_list` row of a view: its number of columns when its query compiles, else 0. (SQLite
    /// shows 0 until the connection has read the view; Granite always counts.)
    func viewListRow(_ view: ViewDefinition) -> [Value] {
        let compiler = SelectCompiler(catalog: catalog, connection: self, sourceText: view.sql, sourceStart: 0)
        let count = (try? reading { try compiler.compileView(view, forInfoOnly: true).columns.count }) ?? 0
        return [
            .text(view.isTemporary ? "temp" : "main"), .text(view.name), .text("view"), .integer(Int64(count)),
            .integer(0), .integer(0),
        ]
    }

    /// Refuses `ALTER TABLE … RENAME` while a view's query does not compile, as SQLite does (it checks the
    /// schema before rewriting it): `error in view v: <the view's error>` for a name the query cannot resolve (a
    /// table, column, function or the index of an `INDEXED BY`) or a view that reads itself. A column list whose
    /// length differs from the query's is no error here, as in SQLite: only the query is compiled.
    ///
    /// After `ALTER TABLE … DROP COLUMN` the same check names the change, as SQLite does (`context` is
    /// `"drop column"`: `error in view v after drop column: no such column: b`).
    func checkViewsCompile(after context: String? = nil) throws {
        for view in catalog.views {
            // The view's query is compiled as such, not as a read of the view: a view that reads itself through
            // others is reported as SQLite does, at the first view seen twice.
            var compiler = SelectCompiler(catalog: catalog, connection: self, sourceText: view.sql, sourceStart: 0)
            compiler.readsStoredQuery = true
            compiler.checksForRename = true
            do {
                _ = try reading { try compiler.compile(view.select, outer: nil, declaredNames: false) }
            } catch let error as SQLExecutionError {
                // SQLite's check resolves names; other errors (an ORDER BY term out of range, a query Granite
                // does not run yet) show when the view is read, not here.
                switch error.subject {
                case .noSuchTable?, .noSuchColumn?, .noSuchFunction?, .noSuchIndex?, .circularView?:
                    let place = context.map { " after \($0)" } ?? ""
                    throw SQLExecutionError("error in view \(view.name)\(place): \(error.message)")
                default:
                    continue
                }
            }
        }
    }
}
