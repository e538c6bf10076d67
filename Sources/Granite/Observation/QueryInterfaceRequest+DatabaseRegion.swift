extension QueryInterfaceRequest {
    /// The region the request reads, narrowed to the rows its filter identifies by rowid (`filter(id:)`,
    /// `filter(keys:)`, `Column("id") == 1` on an INTEGER PRIMARY KEY), or empty for ``none()``; with the
    /// tables its `including(all:)` prefetches read, unless it is empty.
    ///
    /// ```swift
    /// try Player.filter(id: 1).databaseRegion(db) // player(id,name,score)[1]
    /// ```
    public func databaseRegion(_ db: Database) throws -> DatabaseRegion {
        let statement = try makePreparedRequest(db, forSingleResult: false).statement
        var region = try relation.narrowed(statement.readRegion, db)
        let associations = relation.prefetchedAssociations
        if !associations.isEmpty && !region.isEmpty {
            region.formUnion(try relation.prefetchedRegion(db, associations: associations))
        }
        return region
    }
}

extension SQLRelation {
    /// `region` restricted to the rowids the filter identifies in the queried table, when it identifies some.
    func narrowed(_ region: DatabaseRegion, _ db: Database) throws -> DatabaseRegion {
        guard let filter = try filter?.resolve(db), try db.tableExists(tableName) else { return region }
        let rowIDColumn = try db.primaryKey(tableName).rowIDColumn
        guard let rowIDs = filter.identifiedRowIDs(rowIDColumn: rowIDColumn) else { return region }
        return region.restricting(table: tableName, toRowIDs: rowIDs)
    }
}

extension SQLExpression {
    /// The rowids a filter restricts its table to, when it is made of equalities and `IN` lists on the rowid
    /// (named `rowid`, `_rowid_`, `oid`, or `rowIDColumn`) joined by `AND`/`OR`, or is constantly false; nil
    /// when it does not restrict the rowids in a known way.
    func identifiedRowIDs(rowIDColumn: String?) -> Set<Int64>? {
        func isRowID(_ expression: SQLExpression) -> Bool {
            switch expression.impl {
            case .column(let name):
                let folded = name.lowercased()
                return folded == "rowid" || folded == "_rowid_" || folded == "oid"
                    || folded == rowIDColumn?.lowercased()
            case .qualified(let inner, _): return isRowID(inner)
            default: return false
            }
        }
        func constantRowIDs(_ expression: SQLExpression) -> Set<Int64>? {
            guard case .databaseValue(let value) = expression.impl else { return nil }
            switch value.storage {
            case .int64(let rowID): return [rowID]
            case .null: return []
            default: return nil
            }
        }
        switch impl {
        case .compare(.equal, let lhs, let rhs):
            if isRowID(lhs) { return constantRowIDs(rhs) }
            if isRowID(rhs) { return constantRowIDs(lhs) }
            return nil
        case .in(let lhs, let values, isNegated: false) where isRowID(lhs):
            var rowIDs: Set<Int64> = []
            for value in values {
                guard let some = constantRowIDs(value) else { return nil }
                rowIDs.formUnion(some)
            }
            return rowIDs
        case .associative(.and, let operands):
            let known = operands.compactMap { $0.identifiedRowIDs(rowIDColumn: rowIDColumn) }
            guard let first = known.first else { return nil }
            return known.dropFirst().reduce(first) { $0.intersection($1) }
        case .associative(.or, let operands):
            var rowIDs: Set<Int64> = []
            for operand in operands {
                guard let some = operand.identifiedRowIDs(rowIDColumn: rowIDColumn) else { return nil }
                rowIDs.formUnion(some)
            }
            return rowIDs
        case .databaseValue(let value):
            // `none()` filters on false.
            if case .int64(0) = value.storage { return [] }
            return nil
        default:
            return nil
        }
    }
}
