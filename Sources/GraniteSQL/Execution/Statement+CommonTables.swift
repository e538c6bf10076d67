extension Statement {
    /// The `WITH` clause leading an `INSERT`, `UPDATE` or `DELETE`, whose tables every query of the statement
    /// sees (a `SELECT`'s own clause is part of its ``SelectStatement``).
    var writeCommonTables: CommonTableScope? {
        let with: WithClause?
        switch kind {
        case .insert(let insert): with = insert.with
        case .update(let update): with = update.with
        case .delete(let delete): with = delete.with
        default: with = nil
        }
        return with.map { CommonTableScope($0, outer: nil) }
    }
}
