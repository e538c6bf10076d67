// Which collations a schema may name, and where.
//
// SQLite refuses a collation name it does not know when a table or index is created. Granite also refuses an
// application-defined collation on the key of an index (CREATE INDEX, UNIQUE, PRIMARY KEY): index keys are
// compared as bytes, and only the built-in collations have a byte form that keeps their order (see
// SQLCollation.keyForm); an index under any other order would return wrong results.

import GraniteStorage

/// Checks collation names in schema definitions.
package enum CollationRestrictions {
    /// Throws `no such collation sequence: name` unless `name` is built in or registered on the connection.
    package static func requireKnown(_ name: String) throws {
        if SQLCollation.isBuiltIn(name) { return }
        guard SQLFunctionRegistry.current?.collation(named: name) != nil else {
            throw SchemaError(.noSuchCollation(name))
        }
    }

    /// Throws unless `name` is a collation an index key can use: a built-in one. An application-defined
    /// collation gets an error that says why.
    package static func requireIndexable(_ name: String) throws {
        try requireKnown(name)
        if SQLCollation.isBuiltIn(name) { return }
        throw SchemaError(
            "cannot index with collation \(name): an index can only use the BINARY, NOCASE and RTRIM collations")
    }
}

extension TableDefinition {
    /// Refuses unknown collation names in the columns, and application-defined collations in the `UNIQUE` and
    /// `PRIMARY KEY` constraints (whose automatic indexes could not keep their order).
    package func validateCollations() throws {
        for column in columns {
            if let name = column.collation { try CollationRestrictions.requireKnown(name) }
        }
        for constraint in uniqueConstraints {
            for key in constraint.columns {
                if let name = key.collation { try CollationRestrictions.requireIndexable(name) }
            }
        }
    }
}

extension IndexDefinition {
    /// Refuses unknown collation names in `statement`, and any key column of the index on `table` that would
    /// compare under an application-defined collation (written in the index or declared by the column).
    package static func validateCollations(of statement: CreateIndexStatement, on table: TableDefinition) throws {
        for indexed in statement.columns {
            var name = indexed.collation
            if name == nil, let column = indexed.columnName,
                let declared = table.columns.first(where: { SchemaNames.equal($0.name, column) })
            {
                name = declared.collation
            }
            if let name { try CollationRestrictions.requireIndexable(name) }
        }
    }
}
