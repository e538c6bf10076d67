/// The changes of ``Database/alter(table:body:)``: added, renamed and dropped columns.
///
/// ```swift
/// try db.alter(table: "player") { t in
///     t.add(column: "score", .integer).notNull().defaults(to: 0)
///     t.rename(column: "name", to: "fullName")
///     t.drop(column: "legacy")
/// }
/// ```
public final class TableAlteration {
    enum Change {
        case add(ColumnDefinition)
        case addLiteral(SQL)
        case rename(String, String)
        case drop(String)
    }

    let name: String
    var changes: [Change] = []

    init(name: String) {
        self.name = name
    }

    /// Adds a column (`ALTER TABLE … ADD COLUMN`).
    @discardableResult
    public func add(column name: String, _ type: Database.ColumnType? = nil) -> ColumnDefinition {
        let column = ColumnDefinition(name: name, type: type)
        changes.append(.add(column))
        return column
    }

    /// Adds a column written in SQL.
    ///
    /// ```swift
    /// t.addColumn(sql: "score INTEGER")
    /// ```
    public func addColumn(sql: String) {
        changes.append(.addLiteral(SQL(sql: sql)))
    }

    /// Adds a column written as an SQL literal (interpolated values are written inline).
    public func addColumn(literal: SQL) {
        changes.append(.addLiteral(literal))
    }

    /// Renames a column (`ALTER TABLE … RENAME COLUMN`).
    public func rename(column name: String, to newName: String) {
        changes.append(.rename(name, newName))
    }

    /// Drops a column (`ALTER TABLE … DROP COLUMN`).
    public func drop(column name: String) {
        changes.append(.drop(name))
    }

    /// One statement per change (and one `CREATE INDEX` after each added ``ColumnDefinition/indexed()`` column).
    func sql(_ db: Database) throws -> [String] {
        let prefix = "ALTER TABLE \(name.quotedDatabaseIdentifier)"
        var statements: [String] = []
        for change in changes {
            switch change {
            case .add(let column):
                let definition = try column.sql(db, table: name) { try db.primaryKey(self.name).columns }
                statements.append("\(prefix) ADD COLUMN \(definition)")
                if let index = column.indexSQL(table: name, ifNotExists: false) { statements.append(index) }
            case .addLiteral(let literal):
                statements.append("\(prefix) ADD COLUMN \(try SchemaSQL.inline(literal))")
            case .rename(let old, let new):
                statements.append(
                    "\(prefix) RENAME COLUMN \(old.quotedDatabaseIdentifier) TO \(new.quotedDatabaseIdentifier)")
            case .drop(let column):
                statements.append("\(prefix) DROP COLUMN \(column.quotedDatabaseIdentifier)")
            }
        }
        return statements
    }
}

// A mutable builder, used inside the closure it is handed to.
@available(*, unavailable)
extension TableAlteration: Sendable {}
