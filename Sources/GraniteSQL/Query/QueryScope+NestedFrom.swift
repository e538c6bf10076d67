// Parenthesised joins in FROM, read as SQLite reads them: `FROM t, (a JOIN b ON …) [AS p]` makes the group a
// query of its own, `SELECT * FROM a JOIN b ON …`, whose `*` keeps every column of every item (plus each `USING`
// column once more, ahead of the tables it joins) and tags each with the item it came from. The enclosing query
// names the group's columns through those tags (`a.x`, `main.a.x`, an unqualified `x`), and through the group's
// alias only when no tag matches. Also: what `*` and `table.*` stand for, and references pinned to a source.

/// Where one column of a parenthesised join came from: the qualifier it answers to in the enclosing query.
struct NestedColumnTag {
    /// The schema of the item it came from (`main`, `temp`), nil for an item that is no stored table.
    var schema: SchemaCatalog.Qualifier?
    /// The name of the item it came from, nil for a `USING` column, which answers only to its bare name.
    var table: String?
    /// The column's name in that item.
    var column: String
    /// Whether it is a `USING` column, whose bare name names it before any of the tables' copies.
    var isUsingTerm = false
    /// Whether an enclosing `*` leaves it out (a copy of a `USING` column, or a column named like one).
    var noExpand = false
    /// Whether it answers to its table and column names at all: not in SQLite's rename mode (see
    /// ``SelectCompiler/checksForRename``), where only a `USING` column keeps its tag, so that `b.x` read through
    /// a group fails as `ALTER TABLE` checks the views.
    var answersToTable = true

    /// Whether `reference` (whose schema qualifier is `schema`) names this column.
    func matches(_ reference: ColumnReference, schema referenceSchema: SchemaCatalog.Qualifier) -> Bool {
        guard answersToTable, SchemaNames.equal(column, reference.column) else { return false }
        if let qualifier = reference.table {
            guard let table, SchemaNames.equal(table, qualifier) else { return false }
        }
        return referenceSchema == .any || schema == referenceSchema
    }
}

/// One column a `*` or `table.*` stands for.
enum StarColumn {
    /// A column of a source.
    case column(source: Int, column: Int)
    /// A parenthesised join's `USING` column, read by its bare name in the group's own query.
    case usingTerm(String)
}

extension QueryScope {
    /// Looks `reference` up among the tags of source `k`, a parenthesised join, as SQLite does: every matching
    /// tag counts, but a `USING` column ends the search, and a match after one found earlier (`found`) is
    /// skipped when the group joins the sources before it using that name. Returns whether the lookup is done
    /// with this source: a tag matched, or the reference is unqualified (the group's alias is tried only for a
    /// qualified name no tag answers).
    func locateNested(
        _ reference: ColumnReference, schema: SchemaCatalog.Qualifier, in k: Int,
        found: inout (source: Int, column: Int)?
    ) throws -> Bool {
        guard let tags = sources[k].nested else { return false }
        var hit = false
        for (c, tag) in tags.enumerated() where tag.matches(reference, schema: schema) {
            if found != nil {
                if sources[k].joinsUsing(reference.column) { continue }
                throw SQLEvaluationError("ambiguous column name: \(Self.display(reference))")
            }
            found = (k, c)
            hit = true
            if tag.isUsingTerm { break }
        }
        return hit || reference.table == nil
    }

    /// The qualifier that pins a reference to source `k`, whatever the other sources are named: for the
    /// references a statement makes up itself (the sides of a `USING` equality, the target of `UPDATE … FROM`),
    /// which SQLite binds to their table directly. SQL text cannot spell it.
    static func pinnedQualifier(_ k: Int) -> String { "\u{0}\(k)" }

    /// The source a pinned qualifier (see ``pinnedQualifier(_:)``) names.
    static func pinnedSource(_ qualifier: String) -> Int? {
        guard qualifier.first == "\u{0}" else { return nil }
        return Int(qualifier.dropFirst())
    }

    /// The column `name` of source `k`, else its rowid.
    func locatePinned(_ name: String, in k: Int) -> Location {
        guard k < sources.count else { return Location() }
        let source = sources[k]
        if let c = source.columns.firstIndex(where: { SchemaNames.equal($0.name, name) }) {
            return Location(column: (k, c))
        }
        if let table = source.table, SchemaNames.isRowidName(name, of: table) { return Location(rowid: k) }
        return Location()
    }

    /// A reference to column `c` of source `k` that resolves to it whatever the other sources are named.
    func pinnedReference(source k: Int, column c: Int) -> ColumnReference {
        ColumnReference(table: Self.pinnedQualifier(k), column: sources[k].columns[c].name)
    }

    /// Locates the name SQLite reads column `c` of source `k` under when a `*` over several sources expands to it:
    /// `schema.table.column` (a parenthesised join's columns by the group's name alone), which fails where that
    /// name is ambiguous (`FROM t, t`), SQLite naming a subquery's or common table's schema `*`.
    func locateExpanded(source k: Int, column c: Int) throws -> (source: Int, column: Int)? {
        let source = sources[k]
        let name = source.columns[c].name
        let schema = source.nested == nil ? source.schemaName : nil
        do {
            return try locate(ColumnReference(schema: schema, table: source.name, column: name)).column
        } catch let error as SQLEvaluationError {
            guard source.nested == nil, schema == nil else { throw error }
            throw SQLEvaluationError("ambiguous column name: *.\(source.name).\(name)")
        }
    }

    /// The columns a `*` (`qualifier` nil) or `qualifier.*` stands for, in order, as SQLite expands them: for a
    /// `*`, the sources' visible columns but those a `USING` or `NATURAL` join hides and a parenthesised join's
    /// copies of its `USING` columns; for `qualifier.*`, every visible column of each source so named, and of a
    /// parenthesised join the columns that came from an item so named (not the group's own alias). With
    /// `nested`, the `*` of a parenthesised join's own query: every visible column, with each source's `USING`
    /// columns ahead of the source it joins. Only the sources from `start` on count.
    func starColumns(qualifier: String?, nested: Bool = false, from start: Int = 0) -> [StarColumn] {
        var result: [StarColumn] = []
        for (k, source) in sources.enumerated() where k >= start {
            if nested, k + 1 < sources.count {
                result += sources[k + 1].usingNames.map { .usingTerm($0) }
            }
            for (c, column) in source.columns.enumerated() where !column.isHidden {
                if let qualifier {
                    if let tags = source.nested {
                        guard tags[c].answersToTable, let table = tags[c].table, SchemaNames.equal(table, qualifier)
                        else { continue }
                    } else if !SchemaNames.equal(source.name, qualifier) {
                        continue
                    }
                } else if !nested {
                    if source.hidden.contains(c) || source.nested?[c].noExpand == true { continue }
                }
                result.append(.column(source: k, column: c))
            }
        }
        return result
    }

    /// The tags of the columns of a parenthesised join's own query, whose `*` gave `columns` (see
    /// ``starColumns(qualifier:nested:)``) named `names`: a source's column keeps the tag it had in a group
    /// nested deeper, else takes the source's name; the copies of a `USING` column are left out of an enclosing
    /// `*`, and so is any column whose name collides with a `USING` column's when the names are made unique. With
    /// `renaming` (SQLite's rename mode), only a `USING` column keeps its tag, and only a collision hides.
    func nestedTags(of columns: [StarColumn], named names: [String], renaming: Bool = false) -> [NestedColumnTag] {
        var tags: [NestedColumnTag] = []
        for star in columns {
            switch star {
            case .usingTerm(let name):
                tags.append(NestedColumnTag(schema: nil, table: nil, column: name, isUsingTerm: true))
            case .column(let k, let c):
                let source = sources[k]
                let name = source.columns[c].name
                let joinedNext = k + 1 < sources.count && sources[k + 1].joinsUsing(name)
                var tag: NestedColumnTag
                if let inner = source.nested?[c] {
                    tag = inner
                    tag.isUsingTerm = false
                } else {
                    let isTemporary = source.table?.isTemporary ?? source.view?.isTemporary
                    tag = NestedColumnTag(
                        schema: isTemporary.map { $0 ? .temp : .main }, table: source.name, column: name)
                }
                if renaming {
                    tag.answersToTable = false
                    tag.noExpand = false
                } else {
                    tag.noExpand = tag.noExpand || source.joinsUsing(name) || joinedNext
                }
                tags.append(tag)
            }
        }
        for k in SelectCompiler.namesCollidingWithUsingTerms(names, usingTerms: tags.map(\.isUsingTerm)) {
            tags[k].noExpand = true
        }
        return tags
    }
}

/// The `FROM` of `UPDATE … FROM` with several items, seen from the rest of the statement: SQLite reads those
/// items as one parenthesised join with no name, so a reference reaches them through that join's tags alone
/// (a group among them answers to its tables' names, not its alias; a `USING` column by its bare name only
/// where the join's `*` puts it before any table's copy), and none of them has a rowid to count.
struct UpdateFromGroup {
    /// The index of the first `FROM` source (the target is the one before).
    var start: Int
    /// The tags of the join's `*`, each with the source column it reads (nil for a `USING` column whose bare
    /// name the `FROM` sources cannot resolve, which SQLite reports first).
    var columns: [(tag: NestedColumnTag, target: (source: Int, column: Int)?)]
}

extension QueryScope {
    /// The sources from `start` on as one parenthesised join (see ``UpdateFromGroup``).
    func group(from start: Int) -> UpdateFromGroup {
        firstVisible = start
        defer { firstVisible = 0 }
        let stars = starColumns(qualifier: nil, nested: true, from: start)
        let names = stars.map { star in
            switch star {
            case .column(let k, let c): return sources[k].columns[c].name
            case .usingTerm(let name): return name
            }
        }
        let tags = nestedTags(of: stars, named: names)
        return UpdateFromGroup(
            start: start,
            columns: zip(tags, stars).map { tag, star in
                switch star {
                case .column(let k, let c): return (tag, (k, c))
                case .usingTerm(let name): return (tag, (try? locate(ColumnReference(column: name)))?.column)
                }
            })
    }

    /// Looks `reference` up among `group`'s tags as among a parenthesised join's (see
    /// ``locateNested(_:schema:in:found:)``); the group joins nothing using a name, so any second match is
    /// ambiguous.
    func locate(
        _ reference: ColumnReference, schema: SchemaCatalog.Qualifier, in group: UpdateFromGroup,
        found: inout (source: Int, column: Int)?
    ) throws {
        for (tag, target) in group.columns where tag.matches(reference, schema: schema) {
            if found != nil { throw SQLEvaluationError("ambiguous column name: \(Self.display(reference))") }
            found = target
            if tag.isUsingTerm { break }
        }
    }
}
