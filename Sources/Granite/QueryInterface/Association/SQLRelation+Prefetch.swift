// Eager loading of to-many associations: `Author.including(all: Author.books)` fetches the authors, then all
// their books with one more query, and attaches them to each author row under the association key.

extension SQLRelation {
    /// The associations included with `including(all:)`, at any depth of the to-one joins, as associations
    /// from this relation (through the joined tables).
    var prefetchedAssociations: [_SQLAssociation] {
        children.flatMap { child -> [_SQLAssociation] in
            switch child.kind {
            case .all:
                return [child.association]
            case .oneOptional, .oneRequired, .bridge:
                return child.relation.prefetchedAssociations.map { association in
                    // The nested association starts with the child's own child: leave it out of the pivot.
                    var pivot = child
                    let pivotKey = association.pivot.keyName
                    pivot.relation.children.removeAll { $0.key == pivotKey }
                    return _SQLAssociation(steps: pivot.association.steps + association.steps)
                }
            }
        }
    }

    /// Fetches the rows of each prefetched association for `originRows` (the rows of this relation), and
    /// records them in the rows' ``Row/prefetchedRows``.
    func prefetch(_ db: Database, associations: [_SQLAssociation], into originRows: [Row]) throws {
        guard let firstOriginRow = originRows.first else { return }
        // A dump's hook sees the queries of this level only: the dump prints the nested levels itself.
        let willExecute = db.prefetchWillExecute
        db.prefetchWillExecute = nil
        defer { db.prefetchWillExecute = willExecute }
        for association in associations {
            guard case .foreignKey(let pivotForeignKey) = association.pivot.condition else {
                throw DatabaseError(
                    resultCode: .SQLITE_MISUSE, message: "Not implemented: prefetch association without any foreign key"
                )
            }
            let mapping = try pivotForeignKey.joinMapping(db, from: tableName)
            let leftIndexes = try firstOriginRow.indexes(ofColumns: mapping.map(\.left))
            let request = try prefetchRequest(for: association, mapping: mapping) { pivotColumns in
                let leftValues = originRows.map { row in leftIndexes.map { row.databaseValue(atIndex: $0) } }
                return SQLExpression.joinFilter(pivotColumns, leftValues: leftValues)
            }
            let keyPath = association.steps.map(\.keyName)
            try willExecute?(request, keyPath)
            let prefetchedRows = try request.fetchAll(db)
            let groups = try prefetchedRows.grouped(byColumns: mapping.map { "grdb_" + $0.right })
            for row in originRows {
                let key = leftIndexes.map { row.databaseValue(atIndex: $0) }
                row.prefetchedRows.setRows(groups[key, default: []], forKeyPath: keyPath)
            }
        }
    }

    /// The region the prefetch queries of `associations` read (nested prefetches included), whatever rows this
    /// relation fetches: an observation of the request must notice changes to the prefetched tables even when
    /// there is no origin row yet, so no prefetch query runs.
    func prefetchedRegion(_ db: Database, associations: [_SQLAssociation]) throws -> DatabaseRegion {
        var region = DatabaseRegion()
        for association in associations {
            guard case .foreignKey(let pivotForeignKey) = association.pivot.condition else { continue }
            let mapping = try pivotForeignKey.joinMapping(db, from: tableName)
            // A placeholder value per join column: the query reads the same tables and columns for any rows.
            let request = try prefetchRequest(for: association, mapping: mapping) { pivotColumns in
                SQLExpression.joinFilter(pivotColumns, leftValues: [pivotColumns.map { _ in 0.databaseValue }])
            }
            let statement = try db.makeStatement(sql: request.relation.selectSQL(SQLGenerationContext(db)))
            region.formUnion(statement.readRegion)
            let nested = request.relation.prefetchedAssociations
            if !nested.isEmpty {
                region.formUnion(try request.relation.prefetchedRegion(db, associations: nested))
            }
        }
        return region
    }

    /// The query of the rows of `association` joined to the rows of this relation.
    ///
    /// A single-column join filters the pivot with the values of the fetched rows: `"authorId" IN (1, 2, 3)`.
    /// A multi-column join filters it with this relation as a common table expression, so that the
    /// expression does not grow with the number of rows: `("a", "b") IN "grdb_base"`. The pivot columns are
    /// selected as `"grdb_<column>"`, to group the prefetched rows by origin row.
    private func prefetchRequest(
        for association: _SQLAssociation, mapping: [(left: String, right: String)],
        valuesFilter: ([String]) -> SQLExpression
    ) throws -> QueryInterfaceRequest<Row> {
        let pivotColumns = mapping.map(\.right)
        guard mapping.count > 1 else {
            return makePrefetchRequest(association, pivotFilter: valuesFilter(pivotColumns), pivotColumns: pivotColumns)
        }
        var base = limit == nil ? unordered() : self
        base = base.removingPrefetchedChildren().unselectingJoins()
        base.isDistinct = false
        base.selection = DatabasePromise(value: mapping.map { .expression(.column($0.left)) })
        let cte = CommonTableExpression<Row>(named: "grdb_base", request: QueryInterfaceRequest<Row>(relation: base))
        let filter = cte.contains(SQLExpression(impl: .rowValue(pivotColumns.map(SQLExpression.column))))
        return makePrefetchRequest(association, pivotFilter: filter, pivotColumns: pivotColumns).with(cte)
    }

    /// The query of the destination rows of `association` whose pivot matches `pivotFilter`, with the pivot
    /// columns selected as `"grdb_<column>"`.
    private func makePrefetchRequest(
        _ association: _SQLAssociation, pivotFilter: SQLExpression, pivotColumns: [String]
    ) -> QueryInterfaceRequest<Row> {
        var association = association
        let pivotAlias: TableAliasBase?
        if association.steps.count == 1 {
            // The pivot is the queried table: its columns need no alias.
            pivotAlias = nil
        } else {
            let alias = association.pivot.relation.alias ?? TableAliasBase(userName: nil)
            alias.bind(toTable: association.pivot.relation.tableName)
            association.pivot.relation.alias = alias
            pivotAlias = alias
        }
        association.pivot.relation.addFilter(DatabasePromise(value: pivotFilter))
        var relation = association.destinationRelation()
        let annotations: [SQLSelection] = pivotColumns.map { column in
            let expression: SQLExpression =
                pivotAlias.map { SQLExpression(impl: .qualified(.column(column), $0)) }
                ?? .column(column)
            return SQLSelection(impl: .aliased(expression, "grdb_" + column))
        }
        let selection = relation.selection
        relation.selection = DatabasePromise { db in try selection.resolve(db) + annotations }
        return QueryInterfaceRequest(relation: relation)
    }
}

extension SQLRelation.Child {
    /// The child as an association of its own, keyed as it is.
    var association: _SQLAssociation {
        _SQLAssociation(
            key: .fixed(key), condition: condition, relation: relation,
            cardinality: kind.isToOne ? .toOne : .toMany)
    }
}

extension SQLExpression {
    /// The condition on the right table of a join that selects the rows joined to left rows, given by the
    /// values of their join columns: `"authorId" IN (1, 2, 3)` for one column, `(("a" = 1) AND ("b" = 2)) OR …`
    /// for several. Left rows with a NULL join value join nothing.
    static func joinFilter(_ rightColumns: [String], leftValues: [[DatabaseValue]]) -> SQLExpression {
        guard let column = rightColumns.first else { return true.sqlExpression }
        if rightColumns.count == 1 {
            var values = Set(leftValues.map { $0[0] })
            values.remove(.null)
            return .in(.column(column), values.sorted(by: DatabaseValue.sortsBefore).map(\.sqlExpression))
        }
        let alternatives = leftValues.compactMap { values -> SQLExpression? in
            if values.contains(where: \.isNull) { return nil }
            return .associative(.and, zip(rightColumns, values).map { .equal(.column($0), $1.sqlExpression) })
        }
        return .associative(.or, alternatives)
    }
}

extension Row {
    /// The positions of `columns`.
    ///
    /// - throws: `SQLITE_MISUSE` when a column is not selected.
    fileprivate func indexes(ofColumns columns: [String]) throws -> [Int] {
        try columns.map { column in
            guard let index = index(forColumn: column) else {
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "Column \(column) is not selected")
            }
            return index
        }
    }

    fileprivate func databaseValue(atIndex index: Int) -> DatabaseValue {
        self[index] as DatabaseValue
    }
}

extension [Row] {
    /// The rows grouped by their values in `columns`.
    fileprivate func grouped(byColumns columns: [String]) throws -> [[DatabaseValue]: [Row]] {
        guard let first else { return [:] }
        let indexes = try first.indexes(ofColumns: columns)
        return Dictionary(grouping: self) { row in indexes.map { row.databaseValue(atIndex: $0) } }
    }
}
