import GraniteStorage

/// What a prepared INSERT, UPDATE or DELETE compiles once and reuses while the schema stays the same: its column
/// targets, compiled `VALUES`, assignments, `RETURNING` list, upsert plans, and the query finding its rows.
///
/// Only the statement's own runs touch a cache, one at a time, so its properties skip dynamic exclusivity checks.
final class WriteCache {
    /// The catalog version (and foreign key setting) the entries were built for.
    @exclusivity(unchecked) var version = -1
    @exclusivity(unchecked) var foreignKeys = true
    @exclusivity(unchecked) var table: TableDefinition?
    /// Whether the statement needs no statement savepoint (see `SQLConnection.needsNoSavepoint`).
    @exclusivity(unchecked) var singleWrite: Bool?
    /// Whether SQLite runs the statement without a statement journal (see
    /// `SQLConnection.runsWithoutStatementJournal`).
    @exclusivity(unchecked) var withoutJournal: Bool?
    /// The `recursive_triggers` setting ``withoutJournal`` was decided under (a REPLACE's deletions fire DELETE
    /// triggers only with it on, which may make the statement need a journal).
    @exclusivity(unchecked) var withoutJournalRecursiveTriggers = false
    /// The statement's UPDATE or DELETE syntax, kept by reference once a run found that it writes a table: binding
    /// it out of `Statement.kind` copies the whole syntax tree (a retain per reference in it) on every run.
    @exclusivity(unchecked) var update: Boxed<UpdateStatement>?
    @exclusivity(unchecked) var delete: Boxed<DeleteStatement>?
    /// For DELETE: whether the statement has neither WHERE nor RETURNING, so that it may empty the table at once
    /// (known from the statement alone; kept so that a run does not inspect the syntax tree again).
    @exclusivity(unchecked) var deletesEveryRow: Bool?
    /// For UPDATE and DELETE: whether changing one row needs no statement savepoint.
    @exclusivity(unchecked) var singleRowSafe: Bool?
    /// For INSERT: whether the AUTOINCREMENT sequence table is known to exist (or not needed).
    @exclusivity(unchecked) var sequenceChecked = false
    @exclusivity(unchecked) var writer: TableWriter?
    @exclusivity(unchecked) var targets: [Int]?
    /// The affinity of each target column.
    @exclusivity(unchecked) var targetAffinities: [SQLAffinity]?
    @exclusivity(unchecked) var values: [[CompiledExpression]]?
    @exclusivity(unchecked) var assignments: [(column: Int, value: CompiledExpression)]?
    /// For UPDATE: `assignments` with their values' sources.
    @exclusivity(unchecked) var assignmentSources: [(column: Int, value: ValueSource)]?
    @exclusivity(unchecked) var returning: ReturningList?
    /// The subqueries of `VALUES` (no row), of `SET` (the table's row, under the target's alias) and of
    /// `RETURNING` (the table's row under the table's name: SQLite's RETURNING does not see the alias).
    @exclusivity(unchecked) var valuesSubqueries: WriteSubqueries?
    @exclusivity(unchecked) var rowSubqueries: WriteSubqueries?
    @exclusivity(unchecked) var returningSubqueries: WriteSubqueries?
    /// The subqueries of upsert clauses (the existing row, then `excluded`).
    @exclusivity(unchecked) var upsertSubqueries: WriteSubqueries?
    /// UPDATE: per column, whether the old row's value need not be read (see `SQLConnection.unreadColumns`).
    @exclusivity(unchecked) var unreadColumns: [Bool]?
    @exclusivity(unchecked) var upsert: [UpsertPlan]?
    /// For UPDATE and DELETE: `SELECT *, rowid FROM t WHERE …`, and a cursor running it.
    @exclusivity(unchecked) var matching: SelectProgram?
    @exclusivity(unchecked) var matchingCursor: SelectCursor?
    /// The session of the statement's last run, reused by the next one (see ``WriteSession/reset(parameters:)``).
    @exclusivity(unchecked) var session: WriteSession?
    /// For UPDATE and DELETE: whether the foreign keys they use were checked (see
    /// ``WriteSession/prepareForeignKeys(_:asChild:asParent:assigned:)``).
    @exclusivity(unchecked) var foreignKeysPrepared = false
    /// For UPDATE and DELETE whose condition is `rowid = constant`: the direct lookup replacing `matching`.
    @exclusivity(unchecked) var rowidLookup: RowidLookup?
    @exclusivity(unchecked) var rowidLookupChecked = false
    /// For INSERT … VALUES: what the first run worked out, so that later runs go straight to the rows.
    @exclusivity(unchecked) var insertPlan: InsertPlan?

    /// Where a value comes from: a bound parameter and a constant need no evaluation.
    enum ValueSource {
        case parameter(Int)
        case constant(Value)
        case expression(CompiledExpression)

        init(_ expression: CompiledExpression) {
            if expression.prelude.isEmpty, case .parameter(let index) = expression.root {
                self = .parameter(index)
            } else if let value = expression.constantValue {
                self = .constant(value)
            } else {
                self = .expression(expression)
            }
        }
    }

    /// A condition `rowid = constant`, compiled.
    struct RowidLookup {
        /// The constant.
        var key: ValueSource
        /// The whole condition, over the table's evaluation row.
        var condition: CompiledExpression
    }

    /// The outcome of an INSERT's checks and planning, which depends only on the statement and the schema (a class:
    /// each run takes it with one reference).
    final class InsertPlan {
        /// The `VALUES` rows.
        let tuples: [[ValueSource]]
        /// The column receiving each value.
        let targets: [Int]
        /// The affinity of each target column.
        let affinities: [SQLAffinity]
        /// The statement's `OR` resolution.
        let resolution: ConflictResolution?
        let upsert: [UpsertPlan]
        /// See ``WriteSession/singleRowInsert``.
        let singleRowInsert: Bool
        /// Whether a target is the hidden rowid (the slot after the declared columns).
        let explicitRowid: Bool
        /// Whether the targets are every declared column of the table, in order: a row is then the tuple's values
        /// alone, no column taking its default.
        let targetsEveryColumnInOrder: Bool
        /// The array the last row inserted was built in, emptied, its storage kept for the next row (one
        /// allocation saved per row).
        var spareRow: [Value] = []

        init(
            tuples: [[CompiledExpression]], targets: [Int], affinities: [SQLAffinity],
            resolution: ConflictResolution?, upsert: [UpsertPlan], singleRowInsert: Bool, explicitRowid: Bool,
            columnCount: Int
        ) {
            self.tuples = tuples.map { $0.map(ValueSource.init) }
            self.targets = targets
            self.affinities = affinities
            self.resolution = resolution
            self.upsert = upsert
            self.singleRowInsert = singleRowInsert
            self.explicitRowid = explicitRowid
            targetsEveryColumnInOrder = targets.elementsEqual(0..<columnCount)
        }
    }

    /// Empties the cache when it was built for another schema version or foreign key setting.
    func validate(version: Int, foreignKeys: Bool) {
        guard version != self.version || foreignKeys != self.foreignKeys else { return }
        self.version = version
        self.foreignKeys = foreignKeys
        table = nil
        singleWrite = nil
        withoutJournal = nil
        singleRowSafe = nil
        sequenceChecked = false
        writer = nil
        targets = nil
        targetAffinities = nil
        values = nil
        assignments = nil
        assignmentSources = nil
        returning = nil
        valuesSubqueries = nil
        rowSubqueries = nil
        returningSubqueries = nil
        upsertSubqueries = nil
        unreadColumns = nil
        upsert = nil
        matching = nil
        matchingCursor = nil
        insertPlan = nil
        update = nil
        delete = nil
        rowidLookup = nil
        rowidLookupChecked = false
        foreignKeysPrepared = false
        session = nil
    }
}

/// A value kept by reference, so that passing it on copies no part of it.
final class Boxed<Value> {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
