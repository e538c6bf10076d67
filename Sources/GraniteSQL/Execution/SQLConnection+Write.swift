import GraniteStorage

/// Resolves the names of an upsert's `DO UPDATE`: the existing row under the table's name (slots `0...n`) and
/// the proposed row under `excluded` (slots `n+1...2n+1`).
private struct UpsertScope: ColumnResolver {
    let scope: TableScope
    let width: Int

    func resolve(_ reference: ColumnReference) throws -> ResolvedColumn {
        if let qualifier = reference.table, SchemaNames.equal(qualifier, "excluded"), reference.schema == nil {
            var unqualified = reference
            unqualified.table = nil
            var resolved = try scope.resolve(unqualified)
            resolved.slot += width
            return resolved
        }
        return try scope.resolve(reference)
    }
}

extension SQLConnection {
    // MARK: Writing statements

    func tableDefinition(_ name: QualifiedName) throws -> TableDefinition {
        if let schema = name.schema, !SchemaNames.equal(schema, "main") {
            throw SQLExecutionError.noSuchTable("\(schema).\(name.name)")
        }
        guard let table = catalog.table(named: name.name) else { throw SQLExecutionError.noSuchTable(name.name) }
        return table
    }

    private func makeSession(_ parameters: BoundParameters) -> WriteSession {
        let session = WriteSession(
            catalog: catalog, engine: engine, parameters: parameters, foreignKeys: foreignKeysEnabled)
        session.connection = self
        session.changeObserver = changeObserver
        return session
    }

    /// Whether `statement` is a one-row INSERT that checks every constraint before its only write (no upsert, no
    /// AUTOINCREMENT sequence, and ``isSingleRowSafe(_:_:_:)``), so that a failure leaves nothing to undo.
    func needsNoSavepoint(_ statement: Statement, _ cache: WriteCache) -> Bool {
        cache.validate(version: catalog.schemaVersion, foreignKeys: foreignKeysEnabled)
        if let known = cache.singleWrite { return known }
        var result = false
        if case .insert(let insert) = statement.kind, insert.upsert.isEmpty,
            insert.orAction == nil || insert.orAction == .abort || insert.orAction == .ignore,
            insert.table.schema == nil, let table = catalog.table(named: insert.table.name)
        {
            var oneRow = false
            switch insert.source {
            case .defaultValues: oneRow = true
            case .select(let select):
                if case .values(let tuples) = select.first, tuples.count == 1, select.compounds.isEmpty {
                    oneRow = true
                }
            }
            result = oneRow && !table.isAutoincrement && isSingleRowSafe(table, insert.orAction, cache)
        }
        cache.singleWrite = result
        return result
    }

    /// Whether changing or deleting one row of `table` checks everything before it writes: no foreign key
    /// involves the table and no REPLACE resolution can delete other rows.
    func isSingleRowSafe(_ table: TableDefinition, _ resolution: ConflictResolution?, _ cache: WriteCache)
        -> Bool
    {
        if let known = cache.singleRowSafe { return known }
        let foreignKeys = foreignKeysEnabled && (!table.foreignKeys.isEmpty || !cachedReferences(table).isEmpty)
        let replaces =
            resolution == .replace
            || (resolution == nil
                && (table.primaryKeyConflict == .replace || table.columns.contains { $0.notNullConflict == .replace }
                    || catalog.indexes(on: table.name).contains { $0.onConflict == .replace }))
        let safe = !foreignKeys && !replaces
        cache.singleRowSafe = safe
        return safe
    }

    /// The foreign keys referencing `table`, kept while the schema stays the same.
    func cachedReferences(_ table: TableDefinition) -> [(child: TableDefinition, key: Int)] {
        if referenceCacheVersion != catalog.schemaVersion {
            referenceCache.removeAll()
            referenceCacheVersion = catalog.schemaVersion
        }
        if let cached = referenceCache[table.schemaRowid] { return cached }
        let references = WriteSession.references(to: table, in: catalog)
        referenceCache[table.schemaRowid] = references
        return references
    }

    /// The writer of `table`, kept while the schema stays the same (its compiled index keys, defaults and
    /// checks are the costly part of a small write).
    func cachedWriter(_ table: TableDefinition) throws -> TableWriter {
        if writerCacheVersion != catalog.schemaVersion {
            writerCache.removeAll()
            writerCacheVersion = catalog.schemaVersion
        }
        let key = SchemaNames.key(table.name)
        if let writer = writerCache[key] { return writer }
        let writer = try TableWriter(table: table, catalog: catalog, engine: engine, parameters: BoundParameters())
        writer.compressionThreshold = textCompressionThreshold
        writerCache[key] = writer
        return writer
    }

    /// Runs a writing statement (DDL, INSERT, UPDATE, DELETE), returning its `RETURNING` rows if it has any.
    func write(_ statement: Statement, parameters: BoundParameters, cache: WriteCache? = nil) throws -> (
        columns: [String], rows: [[Value]]
    ) {
        let cache = cache ?? WriteCache()
        let version = catalog.schemaVersion
        cache.validate(version: version, foreignKeys: foreignKeysEnabled)
        if let plan = cache.insertPlan, let writer = cache.writer {
            return try counting(parameters, cache, version: version) {
                try self.insert(plan, writer, session: $0, cache: cache)
            }
        }
        switch statement.kind {
        case .createIndex(let create):
            try catalog.execute(statement, engine: engine)
            guard let table = catalog.table(named: create.table) else { return ([], []) }
            let writer = try TableWriter(table: table, catalog: catalog, engine: engine, parameters: parameters)
            try writer.fill(index: create.name.name)
        case .createTable(let create):
            try catalog.execute(statement, engine: engine)
            if let table = catalog.table(named: create.name.name), table.isAutoincrement {
                try createSequenceTable()
            }
        case .dropTable(let drop):
            try dropTable(drop, parameters: parameters)
            try catalog.execute(statement, engine: engine)
        case .alterTable(let alter):
            let old = catalog.table(named: alter.table.name)
            try catalog.execute(statement, engine: engine)
            if case .renameTable(let newName) = alter.action, let old, old.isAutoincrement {
                // Like sqlite_sequence, the sequence row follows the table's new name.
                try makeSession(parameters).renameSequence(from: old.name, to: newName)
            }
        case .dropIndex:
            try catalog.execute(statement, engine: engine)
        case .insert(let insert):
            // Databases created before `granite_sequence` existed get it on their first AUTOINCREMENT insert.
            if !cache.sequenceChecked, insert.table.schema == nil,
                let table = catalog.table(named: insert.table.name), table.isAutoincrement
            {
                try createSequenceTable()
            }
            cache.sequenceChecked = true
            return try counting(parameters, cache, version: version) {
                try self.insert(insert, statement: statement, session: $0, cache: cache)
            }
        case .update(let update):
            return try counting(parameters, cache, version: version) {
                try self.update(update, statement: statement, session: $0, cache: cache)
            }
        case .delete(let delete):
            return try counting(parameters, cache, version: version) {
                try self.delete(delete, statement: statement, session: $0, cache: cache)
            }
        default:
            throw SQLExecutionError("not supported yet: \(statement.sourceText)")
        }
        return ([], [])
    }

    /// Runs an INSERT, UPDATE or DELETE in a fresh session, then updates the change counters and the last
    /// inserted rowid as SQLite does: a failing statement counts no change unless it failed with `FAIL`.
    private func counting(
        _ parameters: BoundParameters, _ cache: WriteCache, version: Int,
        _ body: (WriteSession) throws -> (columns: [String], rows: [[Value]])
    ) throws -> (columns: [String], rows: [[Value]]) {
        // The statement's previous session, when it is for the same schema version, is reset rather than rebuilt.
        let session: WriteSession
        if let previous = cache.session, previous.catalog.schemaVersion == version {
            previous.reset(parameters: parameters)
            // Copying even a nil observer costs a retain call: skip it in the usual case of none.
            if changeObserver != nil || previous.changeObserver != nil { previous.changeObserver = changeObserver }
            session = previous
        } else {
            session = makeSession(parameters)
            cache.session = session
        }
        defer {
            if let rowid = session.lastInsertedRowid { lastInsertedRowid = rowid }
            totalChanges += session.actionChanges
            session.releaseParameters()
        }
        do {
            let result = try body(session)
            changes = session.changes
            totalChanges += session.changes
            return result
        } catch {
            var failure = error
            // A statement stopped by FAIL still checks its foreign keys, which then abort it.
            if (error as? SQLExecutionError)?.resolution == .fail, session.foreignKeys, session.violations > 0 {
                failure = SQLExecutionError.foreignKeyFailure
            }
            if session.started {
                let kept = (failure as? SQLExecutionError)?.resolution == .fail ? session.changes : 0
                changes = kept
                totalChanges += kept
            }
            throw failure
        }
    }

    /// Creates `granite_sequence` (Granite's `sqlite_sequence`) if it does not exist yet.
    func createSequenceTable() throws {
        guard catalog.table(named: WriteSession.sequenceTable) == nil else { return }
        let sql = "CREATE TABLE \(WriteSession.sequenceTable)(name,seq)"
        guard case .createTable(let create) = try Parser.parseStatement(sql).kind else { return }
        try catalog.createTable(create, sql: sql, engine: engine, allowingReservedName: true)
    }

    /// Before `DROP TABLE`: with foreign keys enabled, deletes the rows of a parent table (running the foreign
    /// key actions, failing on remaining references), and forgets an AUTOINCREMENT table's sequence.
    private func dropTable(_ drop: DropStatement, parameters: BoundParameters) throws {
        if let schema = drop.name.schema, !SchemaNames.equal(schema, "main") { return }
        guard let table = catalog.table(named: drop.name.name) else { return }
        let session = makeSession(parameters)
        if foreignKeysEnabled, !(try session.referencing(table)).isEmpty {
            try session.prepareForeignKeys(table, asChild: false, asParent: true)
            let writer = try session.writer(table)
            for row in try writer.scan() {
                guard case .integer(let rowid) = row[table.columns.count], let current = try writer.fetch(rowid: rowid)
                else { continue }
                try session.delete(writer, current, direct: true)
            }
            try session.finish()
            // SQLite counts the implicit DELETE's rows as the changes of the DROP TABLE.
            changes = session.changes
            totalChanges += session.changes + session.actionChanges
        }
        try session.dropSequence(table)
    }

    /// The writer of the statement's table, from the statement's cache when it has it; the writer is registered
    /// with `session`.
    private func target(_ name: QualifiedName, _ session: WriteSession, _ cache: WriteCache) throws -> TableWriter {
        if let writer = cache.writer {
            session.adopt(writer)
            return writer
        }
        let table = try cache.table ?? tableDefinition(name)
        cache.table = table
        let writer = try session.writer(table)
        cache.writer = writer
        session.adopt(writer)
        return writer
    }

    // MARK: INSERT

    /// Runs an INSERT … VALUES planned by an earlier run (``WriteCache/insertPlan``) for the same schema: its
    /// checks are done and its values compiled.
    private func insert(
        _ plan: WriteCache.InsertPlan, _ writer: TableWriter, session: WriteSession, cache: WriteCache
    ) throws -> (columns: [String], rows: [[Value]]) {
        let parameters = session.parameters
        session.adopt(writer)
        let returning = cache.returning
        session.singleRowInsert = plan.singleRowInsert
        session.started = true
        var output: [[Value]] = []
        var context: EvaluationContext?
        for tuple in plan.tuples {
            var values = writer.defaults
            values.reserveCapacity(values.count + 1)
            if plan.explicitRowid { values.append(.null) }
            for k in tuple.indices {
                let value: Value
                switch tuple[k] {
                case .parameter(let index): value = parameters[index]
                case .constant(let constant): value = constant
                case .expression(let expression):
                    if context == nil { context = EvaluationContext(parameters: parameters) }
                    value = try expression.evaluate(&context!)
                }
                values[plan.targets[k]] = plan.affinities[k].apply(to: value)
            }
            if let row = try session.insert(writer, consume values, resolution: plan.resolution, upsert: plan.upsert),
                let returning
            {
                output.append(try returning.evaluate(row, parameters: parameters))
            }
        }
        try session.finish()
        return (returning?.names ?? [], output)
    }

    private func insert(
        _ insert: InsertStatement, statement: Statement, session: WriteSession, cache: WriteCache
    ) throws -> (columns: [String], rows: [[Value]]) {
        let parameters = session.parameters
        let writer = try target(insert.table, session, cache)
        let table = writer.table
        let targets: [Int]
        if let cached = cache.targets {
            targets = cached
        } else if let names = insert.columns {
            targets = try names.map { name in
                guard let slot = Self.writableSlot(name, table) else {
                    throw SQLExecutionError(.noColumnNamed(table: table.name, column: name))
                }
                return slot
            }
        } else {
            targets = Array(table.columns.indices)
        }
        cache.targets = targets
        let upsert = try cache.upsert ?? insert.upsert.map { try upsertPlan($0, writer, statement, cache) }
        cache.upsert = upsert
        let returning = try cache.returning ?? insert.returning.map { try returningList($0, writer, statement, cache) }
        cache.returning = returning
        var rows: [[Value]] = []
        /// `VALUES` tuples, evaluated row by row as they are inserted (as SQLite does).
        var tuples: [[CompiledExpression]]?
        switch insert.source {
        case .defaultValues:
            rows = [[]]
        case .select(let select):
            if case .values(let expressions) = select.first, select.compounds.isEmpty, select.orderBy.isEmpty,
                select.limit == nil, select.with == nil
            {
                let expected = expressions.first?.count ?? 0
                for tuple in expressions {
                    guard tuple.count == expected else {
                        throw SQLExecutionError("all VALUES must have the same number of terms")
                    }
                }
                if expected != targets.count {
                    throw SQLExecutionError(Self.countMismatch(table, insert, targets.count, expected))
                }
                let compiled =
                    try cache.values
                    ?? expressions.map { tuple in
                        try tuple.map { expression in
                            guard WriteSubqueries.needed(for: expression) else {
                                return try ExpressionCompiler.compile(expression, resolver: EmptyColumnResolver())
                            }
                            return try writeSubqueries(&cache.valuesSubqueries, nil, statement).compile(expression)
                        }
                    }
                cache.values = compiled
                tuples = compiled
            } else {
                let result = try self.select(select, statement: statement, parameters: parameters)
                if result.columns.count != targets.count {
                    throw SQLExecutionError(Self.countMismatch(table, insert, targets.count, result.columns.count))
                }
                rows = result.rows
            }
        }
        try session.prepareForeignKeys(table, asChild: true, asParent: false)
        try session.insertTarget(table)
        // SQLite fails a single-row INSERT on a missing parent at once, unless the statement may write several
        // rows (REPLACE conflict handling, RETURNING).
        var singleRow = false
        if case .select(let select) = insert.source, case .values(let tuples) = select.first, tuples.count == 1 {
            singleRow = true
        } else if case .defaultValues = insert.source {
            singleRow = true
        }
        let mayWriteSeveral =
            insert.returning != nil
            || session.constraintOrder(
                writer, insert.orAction, upsert, explicitRowid: targets.contains(table.columns.count)
            ).contains {
                if case .resolution(.replace) = $0.1 { return true }
                return false
            }
        session.singleRowInsert = singleRow && !mayWriteSeveral
        // Rows inserted into a parent table matter only when the statement may write several rows.
        try session.prepareForeignKeys(table, asChild: false, asParent: !session.singleRowInsert)
        session.started = true
        var output: [[Value]] = []
        let affinities =
            cache.targetAffinities
            ?? targets.map { $0 < table.columns.count ? table.columns[$0].affinity : SQLAffinity.integer }
        cache.targetAffinities = affinities
        if let tuples, !table.isAutoincrement, cache.valuesSubqueries == nil, cache.upsertSubqueries == nil {
            // The next runs skip the checks above (their outcome depends only on the statement and the schema)
            // and evaluate the cached VALUES directly.
            cache.insertPlan = WriteCache.InsertPlan(
                tuples: tuples, targets: targets, affinities: affinities, resolution: insert.orAction, upsert: upsert,
                singleRowInsert: session.singleRowInsert, explicitRowid: targets.contains(table.columns.count))
        }
        func insertRow(_ values: consuming [Value]) throws {
            if let row = try session.insert(writer, consume values, resolution: insert.orAction, upsert: upsert),
                let returning
            {
                output.append(try returning.evaluate(row, parameters: parameters))
            }
        }
        // An explicit hidden rowid goes after the declared columns (see ``Self/writableSlot(_:_:)``).
        let explicitRowid = targets.contains(table.columns.count)
        let subqueries = try startSubqueries(cache, parameters).values
        if let tuples {
            var context = EvaluationContext(parameters: parameters, subqueries: subqueries)
            func row(_ tuple: [CompiledExpression]) throws -> [Value] {
                var values = writer.defaults
                values.reserveCapacity(values.count + 1)
                if explicitRowid { values.append(.null) }
                for k in tuple.indices {
                    values[targets[k]] = affinities[k].apply(to: try tuple[k].evaluate(&context))
                }
                return values
            }
            if subqueries != nil {
                // As SQLite when a subquery may read the table: every row is computed before the first is
                // inserted (SQLite reads the VALUES into a temporary table first).
                for values in try tuples.map(row) { try insertRow(values) }
            } else {
                for tuple in tuples { try insertRow(try row(tuple)) }
            }
        } else {
            for supplied in rows {
                var values = writer.defaults
                values.reserveCapacity(values.count + 1)
                if explicitRowid { values.append(.null) }
                for (k, value) in supplied.enumerated() {
                    values[targets[k]] = affinities[k].apply(to: value)
                }
                try insertRow(consume values)
            }
        }
        try session.finish()
        return (returning?.names ?? [], output)
    }

    private static func countMismatch(
        _ table: TableDefinition, _ insert: InsertStatement, _ columns: Int, _ values: Int
    )
        -> String
    {
        insert.columns == nil
            ? "table \(table.name) has \(columns) columns but \(values) values were supplied"
            : "\(values) values for \(columns) columns"
    }

    /// Compiles one `ON CONFLICT` clause, finding the constraint its target names.
    private func upsertPlan(
        _ clause: UpsertClause, _ writer: TableWriter, _ statement: Statement, _ cache: WriteCache
    ) throws -> UpsertPlan {
        var plan = UpsertPlan(target: nil, assignments: nil, condition: nil)
        if let target = clause.target { plan.target = try upsertTarget(target, clause.targetWhere, writer) }
        if case .update(let assignments, let condition) = clause.action {
            let resolver = UpsertScope(scope: writer.scope, width: writer.table.columns.count + 1)
            func subqueries() throws -> WriteSubqueries {
                let made = try writeSubqueries(&cache.upsertSubqueries, writer.table, statement, excluded: true)
                plan.subqueries = made
                return made
            }
            plan.assignments = try compileAssignments(assignments, writer.table, resolver, subqueries: subqueries)
            plan.condition = try condition.map {
                WriteSubqueries.needed(for: $0)
                    ? try subqueries().compile($0) : try ExpressionCompiler.compile($0, resolver: resolver)
            }
        }
        return plan
    }

    private func upsertTarget(
        _ columns: [IndexedColumn], _ condition: SQLExpression?, _ writer: TableWriter
    ) throws -> UniqueTarget {
        let table = writer.table
        var terms: [(column: Int, collation: String)] = []
        for indexed in columns {
            guard let name = indexed.columnName else { continue }
            guard let position = Self.writableSlot(name, table) else {
                throw SQLExecutionError(.noSuchColumn(ColumnReference(column: name)))
            }
            let declared = position < table.columns.count ? table.columns[position].collation : nil
            let collation = indexed.collation ?? declared ?? "binary"
            terms.append((position, SchemaNames.key(collation)))
        }
        if terms.count == columns.count {
            if terms.count == 1, terms[0].column == table.rowidAlias ?? table.columns.count { return .rowid }
            for (k, entry) in writer.indexes.enumerated() {
                let index = entry.definition
                guard index.unique, index.columns.count == terms.count else { continue }
                if let partial = index.whereClause {
                    guard let condition, condition.description == partial.description else { continue }
                }
                let matches = index.columns.allSatisfy { column in
                    guard case .column(let c) = column.target else { return false }
                    let collation = SchemaNames.key(column.collation ?? "binary")
                    return terms.contains { $0.column == c && $0.collation == collation }
                }
                if matches { return .index(k) }
            }
        }
        throw SQLExecutionError("ON CONFLICT clause does not match any PRIMARY KEY or UNIQUE constraint")
    }

    /// The evaluation slot a column list or `SET` names with `name`: a declared column; else, for `rowid`, `oid`
    /// or `_rowid_`, the INTEGER PRIMARY KEY or (the slot after the declared columns) the hidden rowid.
    static func writableSlot(_ name: String, _ table: TableDefinition) -> Int? {
        if let index = table.columnIndex(named: name) { return index }
        guard SchemaNames.isRowidName(name) else { return nil }
        return table.rowidAlias ?? table.columns.count
    }

    /// Compiles `SET` assignments with `resolver`, or with `subqueries` (when given) those holding a subquery.
    private func compileAssignments(
        _ assignments: [Assignment], _ table: TableDefinition, _ resolver: some ColumnResolver,
        subqueries: (() throws -> WriteSubqueries)? = nil
    ) throws -> [(column: Int, value: CompiledExpression)] {
        var compiled: [(column: Int, value: CompiledExpression)] = []
        for assignment in assignments {
            guard assignment.columns.count == 1 else { throw SQLExecutionError.unsupported("row-value assignment") }
            let name = assignment.columns[0]
            guard let column = Self.writableSlot(name, table) else {
                throw SQLExecutionError(.noSuchColumn(ColumnReference(column: name)))
            }
            if let subqueries, WriteSubqueries.needed(for: assignment.value) {
                compiled.append((column, try subqueries().compile(assignment.value)))
            } else {
                compiled.append((column, try ExpressionCompiler.compile(assignment.value, resolver: resolver)))
            }
        }
        return compiled
    }

    // MARK: UPDATE and DELETE

    /// The rows of `writer`'s table matching `condition` (each: the column values, then the rowid), found by the
    /// query planner with `SELECT *, rowid FROM t WHERE condition`, compiled once per cache.
    ///
    /// With `keysOnly`, a row found by its rowid may hold only its rowid and the columns of its index keys (see
    /// ``TableWriter/fetch(rowid:keysOnly:)``).
    private func matchingRows(
        _ writer: TableWriter, _ name: QualifiedName, _ condition: SQLExpression?, _ statement: Statement,
        _ parameters: BoundParameters, _ cache: WriteCache, keysOnly: Bool = false, unread: [Bool]? = nil
    ) throws -> MatchingRows {
        if !cache.rowidLookupChecked {
            cache.rowidLookup = rowidLookup(writer, condition)
            cache.rowidLookupChecked = true
        }
        if let lookup = cache.rowidLookup {
            // The rowid the query planner would look up (`AccessKeys.rowid`), then the whole condition on its row
            // unless the key is that integer already (`rowid = i` holds for the row of rowid i).
            let key: Value
            switch lookup.key {
            case .parameter(let index): key = parameters[index]
            case .constant(let constant): key = constant
            case .expression(let expression):
                var context = EvaluationContext(parameters: parameters)
                key = try expression.evaluate(&context)
            }
            guard let rowid = AccessKeys.rowid(key),
                let row = try writer.fetch(rowid: rowid, keysOnly: keysOnly, unread: unread)
            else { return .one(nil) }
            if case .integer = key { return .one(row) }
            var rowContext = EvaluationContext(row: row, parameters: parameters)
            return try lookup.condition.isTrue(&rowContext) ? .one(row) : .one(nil)
        }
        let cursor: SelectCursor
        if let cached = cache.matchingCursor {
            cursor = cached
        } else {
            var columns: [ResultColumn] = writer.table.columns.map {
                .expression(SQLExpression(.column(ColumnReference(column: $0.name))), alias: nil)
            }
            columns.append(.expression(SQLExpression(.column(ColumnReference(column: "_rowid_"))), alias: nil))
            if let alias = writer.table.rowidAlias {
                columns[columns.count - 1] = .expression(
                    SQLExpression(.column(ColumnReference(column: writer.table.columns[alias].name))), alias: nil)
            }
            let clause = SelectClause(
                distinct: false, columns: columns, from: FromClause(first: .table(name, alias: nil), joins: []),
                whereClause: condition, groupBy: [], having: nil)
            let select = SelectStatement(first: .select(clause), compounds: [], orderBy: [], limit: nil, with: nil)
            let program = try compileSelect(select, statement: statement)
            cursor = SelectCursor(program: program)
            cursor.sortMemoryLimit = sortMemoryLimit
            cache.matching = program
            cache.matchingCursor = cursor
        }
        try cursor.open(parameters: parameters)
        var rows: [[Value]] = []
        while let row = try cursor.next() { rows.append(row) }
        // Rows are changed in rowid order, whatever order the search found them in.
        let n = writer.table.columns.count
        if rows.count > 1 {
            rows.sort { a, b in
                guard case .integer(let x) = a[n], case .integer(let y) = b[n] else { return false }
                return x < y
            }
        }
        return .list(rows)
    }

    /// For a condition `rowid = constant` (the rowid or its alias compared with a parameter or a literal): the
    /// constant and the condition, compiled; nil for any other condition.
    private func rowidLookup(_ writer: TableWriter, _ condition: SQLExpression?) -> WriteCache.RowidLookup? {
        guard let condition, case .binary(.equal, let left, let right) = condition.kind else { return nil }
        func isRowid(_ e: SQLExpression) -> Bool {
            guard case .column(let reference) = e.kind, let resolved = try? writer.scope.resolve(reference) else {
                return false
            }
            return resolved.slot == writer.columnCount || resolved.slot == writer.rowidAlias
        }
        func isConstant(_ e: SQLExpression) -> Bool {
            switch e.kind {
            case .parameter, .literal: return true
            default: return false
            }
        }
        let key: SQLExpression
        if isRowid(left) && isConstant(right) {
            key = right
        } else if isRowid(right) && isConstant(left) {
            key = left
        } else {
            return nil
        }
        guard let compiledKey = try? ExpressionCompiler.compile(key, resolver: EmptyColumnResolver()),
            let compiledCondition = try? ExpressionCompiler.compile(condition, resolver: writer.scope)
        else { return nil }
        return WriteCache.RowidLookup(key: .init(compiledKey), condition: compiledCondition)
    }

    private func update(
        _ update: UpdateStatement, statement: Statement, session: WriteSession, cache: WriteCache
    ) throws -> (columns: [String], rows: [[Value]]) {
        let parameters = session.parameters
        let writer = try target(update.table, session, cache)
        let assignments =
            try cache.assignments
            ?? compileAssignments(
                update.assignments, writer.table, writer.scope,
                subqueries: { try self.writeSubqueries(&cache.rowSubqueries, writer.table, statement) })
        cache.assignments = assignments
        let sources = cache.assignmentSources ?? assignments.map { ($0.column, WriteCache.ValueSource($0.value)) }
        cache.assignmentSources = sources
        let returning = try cache.returning ?? update.returning.map { try returningList($0, writer, statement, cache) }
        cache.returning = returning
        let subqueries = try startSubqueries(cache, parameters).row
        if !cache.foreignKeysPrepared {
            let assigned = Set(assignments.map(\.column))
            try session.prepareForeignKeys(writer.table, asChild: true, asParent: true, assigned: assigned)
            cache.foreignKeysPrepared = true
        }
        let n = writer.columnCount
        // `SET rowid = …` on a table without INTEGER PRIMARY KEY: the new rowid follows the declared columns.
        let movesRowid = sources.contains { $0.column == n }
        let unread = cache.unreadColumns ?? unreadColumns(writer, sources, returning: returning != nil)
        cache.unreadColumns = unread
        let rows = try matchingRows(
            writer, update.table, update.whereClause, statement, parameters, cache, unread: unread)
        if rows.count > 1 || !(cache.singleRowSafe ?? isSingleRowSafe(writer.table, update.orAction, cache)) {
            try ensureStatementSavepoint()
        }
        session.started = true
        var output: [[Value]] = []
        try rows.forEach { position, row in
            // A row deleted or changed by an earlier REPLACE or foreign key action is read again.
            guard case .integer(let rowid) = row[n],
                let old = position == 0 ? row : try writer.fetch(rowid: rowid)
            else { return }
            var context: EvaluationContext?
            var values: [Value] = []
            values.reserveCapacity(n + 1)
            values.append(contentsOf: old[0..<(movesRowid ? n + 1 : n)])
            for (column, source) in sources {
                let value: Value
                switch source {
                case .parameter(let index): value = parameters[index]
                case .constant(let constant): value = constant
                case .expression(let expression):
                    // Every assignment sees the old row.
                    if context == nil {
                        context = EvaluationContext(row: old, parameters: parameters, subqueries: subqueries)
                    }
                    value = try expression.evaluate(&context!)
                }
                values[column] = (column < n ? writer.affinities[column] : .integer).apply(to: value)
            }
            if let new = try session.update(writer, old: old, values: consume values, resolution: update.orAction),
                let returning
            {
                output.append(try returning.evaluate(new, parameters: parameters))
            }
        }
        try session.finish()
        return (returning?.names ?? [], output)
    }

    /// The columns an UPDATE need not read from the old row: those it sets to a parameter or a constant, when
    /// nothing else looks at their old values (no index key uses them, the index keys are plain columns, no
    /// RETURNING, no foreign key from or to the table). Reading a row is then cheaper: no text is decoded for a
    /// column that is about to be overwritten.
    private func unreadColumns(
        _ writer: TableWriter, _ sources: [(column: Int, value: WriteCache.ValueSource)], returning: Bool
    ) -> [Bool] {
        var unread = [Bool](repeating: false, count: writer.columnCount)
        let foreignKeys =
            foreignKeysEnabled && (!writer.table.foreignKeys.isEmpty || !cachedReferences(writer.table).isEmpty)
        guard !returning, !foreignKeys, writer.keysCannotFail else { return unread }
        for (column, source) in sources {
            if case .expression = source { return [Bool](repeating: false, count: writer.columnCount) }
            if column < unread.count, !writer.isKeyColumn(column) { unread[column] = true }
        }
        return unread
    }

    private func delete(
        _ delete: DeleteStatement, statement: Statement, session: WriteSession, cache: WriteCache
    ) throws -> (columns: [String], rows: [[Value]]) {
        let writer = try target(delete.table, session, cache)
        let returning = try cache.returning ?? delete.returning.map { try returningList($0, writer, statement, cache) }
        cache.returning = returning
        try startSubqueries(cache, session.parameters)
        if !cache.foreignKeysPrepared {
            try session.prepareForeignKeys(writer.table, asChild: false, asParent: true)
            cache.foreignKeysPrepared = true
        }
        let n = writer.columnCount
        // Without RETURNING or foreign keys, removing a row needs only its index keys.
        let singleRowSafe = cache.singleRowSafe ?? isSingleRowSafe(writer.table, nil, cache)
        let rows = try matchingRows(
            writer, delete.table, delete.whereClause, statement, session.parameters, cache,
            keysOnly: returning == nil && singleRowSafe)
        // SQLite's RETURNING runs as an AFTER trigger: its subqueries see the table without the row. Its failure
        // then comes after the row's removal, which the statement savepoint undoes.
        let returnsAfter = returning?.subqueries != nil
        if rows.count > 1 || !singleRowSafe || returnsAfter { try ensureStatementSavepoint() }
        session.started = true
        var output: [[Value]] = []
        try rows.forEach { position, row in
            guard case .integer(let rowid) = row[n],
                let old = position == 0 ? row : try writer.fetch(rowid: rowid)
            else { return }
            if let returning, !returnsAfter {
                output.append(try returning.evaluate(old, parameters: session.parameters))
            }
            try session.delete(writer, old, direct: true)
            if let returning, returnsAfter {
                output.append(try returning.evaluate(old, parameters: session.parameters))
            }
        }
        try session.finish()
        return (returning?.names ?? [], output)
    }
}
