/// A trigger of the schema catalog: a stored program run when rows of its table (or view) change.
///
/// The body is parsed again when a statement that fires it is planned (see `TableTriggers`), against the table's
/// columns of that moment, as SQLite does: a body naming unknown tables or columns is an error of the statement
/// that fires it, not of `CREATE TRIGGER`.
package struct TriggerDefinition: Sendable, Equatable {
    /// The trigger name as declared.
    package var name: String
    /// The name of the table or view the trigger is on.
    package var table: String
    /// When the body runs.
    package var timing: TriggerTiming
    /// The row change that fires it.
    package var event: TriggerEvent
    /// The `CREATE TRIGGER` text stored in `granite_schema`.
    package var sql: String
    /// The rowid of the trigger's `granite_schema` row.
    package var schemaRowid: Int64
    /// For a temporary trigger, whether its table is a main table (`ON main.t`, or `ON t` when the temporary
    /// schema had no `t`): it fires on that table's changes, and goes when that table is dropped.
    package var isOnMainTable = false
    /// Whether the trigger belongs to the temporary schema: its body's unqualified names look there first, where
    /// a main trigger's see the main schema alone.
    package var isTemporary = false

    /// Creates the definition of the trigger `create` declares, stored as `sql`.
    package init(_ create: CreateTriggerStatement, sql: String, schemaRowid: Int64 = 0) {
        self.name = create.name.name
        self.table = create.table
        self.timing = create.timing
        self.event = create.event
        self.sql = sql
        self.schemaRowid = schemaRowid
    }

    /// Whether the trigger fires on an UPDATE that assigns `assigned` (the names of the columns of its `SET`),
    /// or on any update when `assigned` is nil.
    func fires(onUpdateOf assigned: [String]?) -> Bool {
        guard case .update(let columns?) = event, let assigned else { return true }
        return columns.contains { column in assigned.contains { SchemaNames.equal($0, column) } }
    }
}
