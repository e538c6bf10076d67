/// The table an UPDATE or DELETE changes, as the statement names it: `name [AS alias] [INDEXED BY … | NOT INDEXED]`.
///
/// With an alias, the alias alone qualifies the table's columns in the statement's `SET`, `FROM` and `WHERE` (and
/// their subqueries), and `EXPLAIN QUERY PLAN` names the table by it, as in SQLite; `RETURNING` still names it by
/// the table's name, as SQLite's does.
struct WriteTarget {
    var name: QualifiedName
    var alias: String?
    var indexHint: IndexHint?

    init(_ update: UpdateStatement) {
        name = update.table
        alias = update.alias
        indexHint = update.indexHint
    }

    init(_ delete: DeleteStatement) {
        name = delete.table
        alias = delete.alias
        indexHint = delete.indexHint
    }

    /// The name that qualifies the table's columns: the alias, else the table's name.
    var qualifier: String { alias ?? name.name }
}
