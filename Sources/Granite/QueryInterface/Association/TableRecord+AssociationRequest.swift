// The records associated with one record: `book.request(for: Book.author)`.

extension TableRecord where Self: EncodableRecord {
    /// The request for the records associated with this record.
    ///
    /// ```swift
    /// // SELECT * FROM "author" WHERE "id" = 42
    /// let author = try book.request(for: Book.author).fetchOne(db)
    /// // SELECT * FROM "book" WHERE "authorId" = 42
    /// let books = try author.request(for: Author.books).fetchAll(db)
    /// ```
    ///
    /// The values of the record are read when the request is built; errors of the record's encoding, of a
    /// missing foreign key or of a missing column are thrown when the request is fetched.
    public func request<A: Association>(for association: A) -> QueryInterfaceRequest<A.RowDecoder>
    where A.OriginRowDecoder == Self {
        let container = Result { try PersistenceContainer(self) }
        var sqlAssociation = association._sqlAssociation
        let pivotCondition = sqlAssociation.pivot.condition
        let originTable = Self.databaseTableName
        var pivot = QueryInterfaceRequest<Void>(relation: sqlAssociation.pivot.relation)
        pivot = pivot.filterWhenConnected { db in
            guard case .foreignKey(let condition) = pivotCondition else {
                throw DatabaseError(
                    resultCode: .SQLITE_MISUSE,
                    message: "Not implemented: request association without any foreign key")
            }
            let mapping = try condition.joinMapping(db, from: originTable)
            let record = try container.get()
            let recordColumns = Set(record.columns.map { $0.lowercased() })
            if let missing = mapping.first(where: { !recordColumns.contains($0.left.lowercased()) }) {
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "Missing column: \(missing.left)")
            }
            return SQLExpression.joinFilter(
                mapping.map(\.right), leftValues: [mapping.map { record.databaseValue(at: $0.left) }])
        }
        sqlAssociation.pivot.relation = pivot.relation
        return QueryInterfaceRequest(relation: sqlAssociation.destinationRelation())
    }
}

extension _SQLAssociation {
    /// The relation of the destination, joined to the pivots that lead to it from the origin (in reverse), so
    /// that a filter on the first pivot selects the destination rows of one origin row.
    func destinationRelation() -> SQLRelation {
        if steps.count == 1 { return destination.relation }
        let reversedSteps = zip(steps, steps.dropFirst()).map { step, nextStep in
            var relation = step.relation
            relation.selection = DatabasePromise(value: [])
            relation = relation.unselectingJoins().removingPrefetchedChildren()
            return SQLAssociationStep(
                key: .fixed("grdb_" + step.key.name(singular: step.cardinality == .toOne)),
                condition: nextStep.condition.reversed(to: step.relation.tableName), relation: relation,
                cardinality: .toOne)
        }
        let reversed = _SQLAssociation(steps: Array(reversedSteps.reversed()))
        return destination.relation.joining(reversed, kind: .oneRequired, selected: true)
    }
}

extension SQLRelation {
    /// The relation without its `including(all:)` children, at any depth.
    func removingPrefetchedChildren() -> SQLRelation {
        var relation = self
        relation.children = children.compactMap { child in
            guard child.kind.isToOne else { return nil }
            var child = child
            child.relation = child.relation.removingPrefetchedChildren()
            return child
        }
        return relation
    }
}

extension DatabaseValue {
    /// Whether `lhs` comes before `rhs` in SQLite's order of values without collation (NULL, numbers by
    /// value, text by UTF-8 bytes, blobs by bytes): the order of the values of `IN (…)` lists.
    static func sortsBefore(_ lhs: DatabaseValue, _ rhs: DatabaseValue) -> Bool {
        switch (lhs.storage, rhs.storage) {
        case (.int64(let l), .int64(let r)): return l < r
        case (.double(let l), .double(let r)): return l < r
        case (.int64(let l), .double(let r)): return Double(l) < r
        case (.double(let l), .int64(let r)): return l < Double(r)
        case (.string(let l), .string(let r)): return l.utf8.lexicographicallyPrecedes(r.utf8)
        case (.blob(let l), .blob(let r)): return l.lexicographicallyPrecedes(r)
        default: return lhs.storageRank < rhs.storageRank
        }
    }

    /// The rank of the storage class in SQLite's order of values.
    private var storageRank: Int {
        switch storage {
        case .null: return 0
        case .int64, .double: return 1
        case .string: return 2
        case .blob: return 3
        }
    }
}
