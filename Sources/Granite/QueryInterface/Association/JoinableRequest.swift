/// A request that can include and join associated records.
///
/// ```swift
/// // SELECT "book".*, "author".* FROM "book" JOIN "author" ON "author"."id" = "book"."authorId"
/// Book.all().including(required: Book.author)
/// ```
public protocol JoinableRequest<RowDecoder>: TypedRequest {
    /// The request with `association` included as `kind`; the implementation of the methods below.
    func _including(_ association: _SQLAssociation, kind: _SQLJoinKind, selected: Bool) -> Self
}

/// How an association is added to a request (an implementation detail of ``JoinableRequest``).
public enum _SQLJoinKind: Sendable {
    case optional
    case required
    case all

    var childKind: SQLRelation.Child.Kind {
        switch self {
        case .optional: return .oneOptional
        case .required: return .oneRequired
        case .all: return .all
        }
    }
}

extension JoinableRequest {
    /// Fetches the records of a to-many association along with each record, with one more query per
    /// association: `Author.including(all: Author.books)` decodes its books from the `"books"` key.
    ///
    /// ```swift
    /// // SELECT * FROM "author"
    /// // SELECT * FROM "book" WHERE "authorId" IN (1, 2, 3)
    /// let request = Author.all().including(all: Author.books)
    /// ```
    public func including<A: AssociationToMany>(all association: A) -> Self
    where A.OriginRowDecoder == RowDecoder {
        _including(association._sqlAssociation, kind: .all, selected: true)
    }

    /// Joins the associated records with a `LEFT JOIN`, and selects their columns: rows without associated
    /// record are kept, and the associated scope is all NULL (decoded as nil).
    public func including<A: Association>(optional association: A) -> Self
    where A.OriginRowDecoder == RowDecoder {
        _including(association._sqlAssociation, kind: .optional, selected: true)
    }

    /// Joins the associated records with a `JOIN`, and selects their columns: rows without associated record
    /// are left out.
    public func including<A: Association>(required association: A) -> Self
    where A.OriginRowDecoder == RowDecoder {
        _including(association._sqlAssociation, kind: .required, selected: true)
    }

    /// Joins the associated records with a `LEFT JOIN`, without selecting their columns: for filtering and
    /// ordering on them.
    public func joining<A: Association>(optional association: A) -> Self
    where A.OriginRowDecoder == RowDecoder {
        _including(association._sqlAssociation, kind: .optional, selected: false)
    }

    /// Joins the associated records with a `JOIN`, without selecting their columns: rows without associated
    /// record are left out.
    public func joining<A: Association>(required association: A) -> Self
    where A.OriginRowDecoder == RowDecoder {
        _including(association._sqlAssociation, kind: .required, selected: false)
    }
}

extension QueryInterfaceRequest: JoinableRequest {
    /// The request with `association` added to its relation.
    public func _including(_ association: _SQLAssociation, kind: _SQLJoinKind, selected: Bool) -> Self {
        var request = self
        request.relation = relation.joining(association, kind: kind.childKind, selected: selected)
        return request
    }
}

extension Table {
    /// All rows, with the associated records of a to-many association prefetched.
    public func including<A: AssociationToMany>(all association: A) -> QueryInterfaceRequest<RowDecoder>
    where A.OriginRowDecoder == RowDecoder {
        all().including(all: association)
    }

    /// All rows, with the associated record joined with a `LEFT JOIN` and selected.
    public func including<A: Association>(optional association: A) -> QueryInterfaceRequest<RowDecoder>
    where A.OriginRowDecoder == RowDecoder {
        all().including(optional: association)
    }

    /// All rows that have an associated record, joined with a `JOIN` and selected.
    public func including<A: Association>(required association: A) -> QueryInterfaceRequest<RowDecoder>
    where A.OriginRowDecoder == RowDecoder {
        all().including(required: association)
    }

    /// All rows, with the associated record joined with a `LEFT JOIN`, not selected.
    public func joining<A: Association>(optional association: A) -> QueryInterfaceRequest<RowDecoder>
    where A.OriginRowDecoder == RowDecoder {
        all().joining(optional: association)
    }

    /// All rows that have an associated record, joined with a `JOIN`, not selected.
    public func joining<A: Association>(required association: A) -> QueryInterfaceRequest<RowDecoder>
    where A.OriginRowDecoder == RowDecoder {
        all().joining(required: association)
    }
}

extension TableRecord {
    /// All records, with the associated records of a to-many association prefetched.
    public static func including<A: AssociationToMany>(all association: A) -> QueryInterfaceRequest<Self>
    where A.OriginRowDecoder == Self {
        all().including(all: association)
    }

    /// All records, with the associated record joined with a `LEFT JOIN` and selected.
    public static func including<A: Association>(optional association: A) -> QueryInterfaceRequest<Self>
    where A.OriginRowDecoder == Self {
        all().including(optional: association)
    }

    /// All records that have an associated record, joined with a `JOIN` and selected.
    public static func including<A: Association>(required association: A) -> QueryInterfaceRequest<Self>
    where A.OriginRowDecoder == Self {
        all().including(required: association)
    }

    /// All records, with the associated record joined with a `LEFT JOIN`, not selected.
    public static func joining<A: Association>(optional association: A) -> QueryInterfaceRequest<Self>
    where A.OriginRowDecoder == Self {
        all().joining(optional: association)
    }

    /// All records that have an associated record, joined with a `JOIN`, not selected.
    public static func joining<A: Association>(required association: A) -> QueryInterfaceRequest<Self>
    where A.OriginRowDecoder == Self {
        all().joining(required: association)
    }
}

extension JoinableRequest where Self: SelectionRequest {
    /// Joins the associated record with a `LEFT JOIN`, and appends its columns to the selection of the
    /// request (not in a scope): `SELECT "book".*, "author".* …` decoded from a single row.
    public func annotated<A: Association>(withOptional association: A) -> Self
    where A.OriginRowDecoder == RowDecoder {
        annotated(with: association, kind: .optional)
    }

    /// Joins the associated record with a `JOIN`, and appends its columns to the selection of the request
    /// (not in a scope).
    public func annotated<A: Association>(withRequired association: A) -> Self
    where A.OriginRowDecoder == RowDecoder {
        annotated(with: association, kind: .required)
    }

    private func annotated<A: Association>(with association: A, kind: _SQLJoinKind) -> Self {
        let alias = TableAliasBase(userName: nil)
        let selection = association._sqlAssociation.destination.relation.selection
        let aliased = association._aliased(alias)
        return _including(aliased._sqlAssociation, kind: kind, selected: false)
            .annotatedWhenConnected { db in try selection.resolve(db).map { $0.qualified(with: alias) } }
    }
}

extension Table {
    /// All rows, with the columns of the associated record (`LEFT JOIN`) appended to the selection.
    public func annotated<A: Association>(withOptional association: A) -> QueryInterfaceRequest<RowDecoder>
    where A.OriginRowDecoder == RowDecoder {
        all().annotated(withOptional: association)
    }

    /// All rows that have an associated record (`JOIN`), with its columns appended to the selection.
    public func annotated<A: Association>(withRequired association: A) -> QueryInterfaceRequest<RowDecoder>
    where A.OriginRowDecoder == RowDecoder {
        all().annotated(withRequired: association)
    }
}

extension TableRecord {
    /// All records, with the columns of the associated record (`LEFT JOIN`) appended to the selection.
    public static func annotated<A: Association>(withOptional association: A) -> QueryInterfaceRequest<Self>
    where A.OriginRowDecoder == Self {
        all().annotated(withOptional: association)
    }

    /// All records that have an associated record (`JOIN`), with its columns appended to the selection.
    public static func annotated<A: Association>(withRequired association: A) -> QueryInterfaceRequest<Self>
    where A.OriginRowDecoder == Self {
        all().annotated(withRequired: association)
    }
}
