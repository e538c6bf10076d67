// The associations a relation includes or joins: its children, by key.

extension SQLRelation {
    /// An association added to a relation with `including` or `joining`.
    struct Child: Sendable {
        enum Kind: Sendable {
            /// `including(optional:)`, `joining(optional:)`: a `LEFT JOIN`.
            case oneOptional
            /// `including(required:)`, `joining(required:)`: a `JOIN`.
            case oneRequired
            /// `including(all:)`: rows fetched by a second query.
            case all
            /// The pivot of an association through other tables included with `including(all:)`: joined to the
            /// prefetch query, not fetched itself.
            case bridge

            var isToOne: Bool { self == .oneOptional || self == .oneRequired }
        }

        /// The name of the scope (joined rows) or of the prefetched rows.
        var key: String
        var kind: Kind
        var condition: SQLAssociationCondition
        var relation: SQLRelation
    }

    /// The relation including `association`'s destination as `kind`, under the association key in the form
    /// that `kind` implies (singular when joined, plural when prefetched).
    ///
    /// - throws: `SQLITE_MISUSE` when another association with the same key can not be merged with this one.
    func appendingChild(for association: _SQLAssociation, kind: Child.Kind) throws -> SQLRelation {
        let isSingular: Bool
        switch kind {
        case .oneOptional, .oneRequired: isSingular = true
        case .all: isSingular = false
        case .bridge: isSingular = association.destination.cardinality == .toOne
        }
        let destination = association.destination
        let child = Child(
            key: destination.key.name(singular: isSingular), kind: kind, condition: destination.condition,
            relation: destination.relation)
        let pivotSteps = association.steps.dropLast()
        if pivotSteps.isEmpty { return try appendingChild(child) }

        // Through a pivot: the destination becomes a child of the last pivot, which is joined in turn. The
        // pivots are not selected; prefetching goes through them as bridges.
        var reduced = _SQLAssociation(steps: Array(pivotSteps))
        var pivotRelation = reduced.destination.relation
        pivotRelation.selection = DatabasePromise(value: [])
        reduced.destination.relation = try pivotRelation.appendingChild(child)
        return try appendingChild(for: reduced, kind: kind == .all ? .bridge : kind)
    }

    /// The relation with `child` appended; a child of the same key is merged with it and moves to the end, as
    /// in GRDB.
    private func appendingChild(_ child: Child) throws -> SQLRelation {
        try validateJoinable(child)
        var relation = self
        guard let position = relation.children.firstIndex(where: { $0.key == child.key }) else {
            relation.children.append(child)
            return relation
        }
        let existing = relation.children.remove(at: position)
        guard let merged = existing.merged(with: child) else {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "The association key \"\(child.key)\" is ambiguous. "
                    + "Use the Association.forKey(_:) method is order to disambiguate.")
        }
        relation.children.append(merged)
        return relation
    }

    /// Joined relations can not have clauses that apply to a whole query.
    private func validateJoinable(_ child: Child) throws {
        guard child.kind != .all else { return }
        let relation = child.relation
        let unsupported: String?
        if relation.isDistinct {
            unsupported = "join an association that selects DISTINCT rows"
        } else if relation.group != nil || relation.having != nil {
            unsupported = "join an association with a GROUP BY clause"
        } else if relation.limit != nil {
            unsupported = "join an association with a LIMIT clause"
        } else {
            unsupported = nil
        }
        if let unsupported {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "Not implemented: \(unsupported)")
        }
    }

    /// The relation with `association` included or joined: the implementation of ``JoinableRequest``.
    ///
    /// Requests are built without a database connection and can not throw: an association that can not be
    /// joined is recorded, and reported when SQL is generated.
    func joining(_ association: _SQLAssociation, kind: Child.Kind, selected: Bool) -> SQLRelation {
        let association =
            selected
            ? association : association.updatingDestinationRelation { $0.selection = DatabasePromise(value: []) }
        do {
            return try appendingChild(for: association, kind: kind)
        } catch let error as DatabaseError {
            var relation = self
            relation.joinError = SQLJoinError(error: error)
            return relation
        } catch {
            preconditionFailure("appendingChild only throws DatabaseError")
        }
    }

    /// The relation without ordering, at any depth of its children.
    func unordered() -> SQLRelation {
        var relation = self
        relation.orderings = []
        relation.isReversed = false
        if !children.isEmpty {
            relation.children = children.map { child in
                var child = child
                child.relation = child.relation.unordered()
                return child
            }
        }
        return relation
    }

    /// The relation without the columns of its joined tables, for subqueries that select their own columns.
    func unselectingJoins() -> SQLRelation {
        var relation = self
        relation.children = children.map { child in
            var child = child
            child.relation.selection = DatabasePromise(value: [])
            child.relation = child.relation.unselectingJoins()
            return child
        }
        return relation
    }
}

/// An association that could not be added to a request, reported when the request generates SQL.
final class SQLJoinError: Sendable {
    let error: DatabaseError

    init(error: DatabaseError) {
        self.error = error
    }
}

extension SQLRelation.Child {
    /// The child that both `self` and `other` describe, or nil when they differ in a way that can not be merged
    /// (other join conditions, other tables, a to-one and a to-many use).
    func merged(with other: Self) -> Self? {
        let mergedKind: Kind
        switch (kind, other.kind) {
        case (.oneRequired, .oneRequired), (.oneRequired, .oneOptional), (.oneOptional, .oneRequired):
            mergedKind = .oneRequired
        case (.oneOptional, .oneOptional):
            mergedKind = .oneOptional
        case (.all, .all), (.bridge, .bridge):
            mergedKind = kind
        default:
            return nil
        }
        guard condition.isSame(as: other.condition), let mergedRelation = relation.merged(with: other.relation) else {
            return nil
        }
        return SQLRelation.Child(key: key, kind: mergedKind, condition: condition, relation: mergedRelation)
    }
}

extension SQLAssociationCondition {
    /// Whether two conditions join the same columns; expressions never compare equal.
    func isSame(as other: SQLAssociationCondition) -> Bool {
        guard case .foreignKey(let lhs) = self, case .foreignKey(let rhs) = other else { return false }
        return lhs.destinationTable.lowercased() == rhs.destinationTable.lowercased()
            && lhs.foreignKey == rhs.foreignKey && lhs.originIsLeft == rhs.originIsLeft
    }
}

extension SQLRelation {
    /// The relation that joins the same table as both `self` and `other`: filters and orderings of both,
    /// the selection of `other` unless it is empty (joined without being selected), children merged by key.
    func merged(with other: SQLRelation) -> SQLRelation? {
        guard tableName.lowercased() == other.tableName.lowercased() else { return nil }
        var merged = self
        if let alias, let otherAlias = other.alias {
            guard let mergedAlias = alias.merged(with: otherAlias) else { return nil }
            merged.alias = mergedAlias
        } else {
            merged.alias = alias ?? other.alias
        }
        if let otherFilter = other.filter { merged.addFilter(otherFilter) }
        let ownSelection = selection
        let otherSelection = other.selection
        merged.selection = DatabasePromise { db in
            let selected = try otherSelection.resolve(db)
            return selected.isEmpty ? try ownSelection.resolve(db) : selected
        }
        merged.orderings += other.orderings
        for otherChild in other.children {
            if let position = merged.children.firstIndex(where: { $0.key == otherChild.key }) {
                guard let child = merged.children[position].merged(with: otherChild) else { return nil }
                merged.children[position] = child
            } else {
                merged.children.append(otherChild)
            }
        }
        return merged
    }
}
