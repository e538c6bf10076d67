/// `CREATE [TEMP] TRIGGER [IF NOT EXISTS] name [BEFORE|AFTER|INSTEAD OF] event ON table [FOR EACH ROW]
/// [WHEN condition] BEGIN statement; … END`.
///
/// In the body and the `WHEN` condition, `NEW.column` and `OLD.column` are parsed as named parameters
/// (``TriggerRow/parameterName(_:column:)``): a firing binds them to the row's values.
package struct CreateTriggerStatement: Sendable, Equatable {
    /// Whether `TEMP` or `TEMPORARY` was given (Granite refuses it: it has no temporary schema).
    package var temporary: Bool
    /// Whether `IF NOT EXISTS` was given.
    package var ifNotExists: Bool
    /// The trigger name.
    package var name: QualifiedName
    /// When the body runs relative to the row change.
    package var timing: TriggerTiming
    /// The row change that fires the trigger.
    package var event: TriggerEvent
    /// The table or view the trigger is on.
    package var table: String
    /// The `WHEN` condition, if any.
    package var when: SQLExpression?
    /// The body: INSERT, UPDATE, DELETE and SELECT statements, in order.
    package var body: [Statement]
    /// The `NEW.x` / `OLD.x` references of the `WHEN` and the body, as parameters they all share. (The
    /// `CREATE TRIGGER` statement itself takes no parameters.)
    package var parameters: ParameterList

    /// Creates a create-trigger statement.
    package init(
        temporary: Bool = false, ifNotExists: Bool = false, name: QualifiedName, timing: TriggerTiming,
        event: TriggerEvent, table: String, when: SQLExpression? = nil, body: [Statement],
        parameters: ParameterList = ParameterList()
    ) {
        self.parameters = parameters
        self.temporary = temporary
        self.ifNotExists = ifNotExists
        self.name = name
        self.timing = timing
        self.event = event
        self.table = table
        self.when = when
        self.body = body
    }
}

/// When a trigger's body runs.
package enum TriggerTiming: Sendable, Equatable {
    /// `BEFORE` (the default when no timing is written).
    case before
    /// `AFTER`.
    case after
    /// `INSTEAD OF` (views only).
    case insteadOf
}

/// The row change a trigger fires on.
package enum TriggerEvent: Sendable, Equatable {
    /// `INSERT`.
    case insert
    /// `DELETE`.
    case delete
    /// `UPDATE [OF columns]`; nil when no column list is given (any update fires it).
    case update(columns: [String]?)
}

/// `RAISE(IGNORE)` or `RAISE(ROLLBACK|ABORT|FAIL, message)`.
package enum RaiseAction: String, Sendable, Equatable {
    /// `IGNORE`: abandons the current row's change and the rest of its trigger programs.
    case ignore = "IGNORE"
    /// `ROLLBACK`: fails the statement and rolls back the transaction.
    case rollback = "ROLLBACK"
    /// `ABORT`: fails the statement, undoing its changes.
    case abort = "ABORT"
    /// `FAIL`: fails the statement, keeping its earlier changes.
    case fail = "FAIL"
}

/// How `NEW.column` / `OLD.column` references of a trigger are spelled as parameters.
package enum TriggerRow {
    /// The function name a `RAISE(…)` is parsed into (users cannot call it: `RAISE` always parses as the
    /// raise syntax).
    package static let raiseFunction = "raise"

    /// The parameter name standing for `qualifier.column` (`qualifier` being `NEW` or `OLD`, both as written): a
    /// prefix no SQL parameter can have, so that a trigger's bindings never meet a user's.
    package static func parameterName(_ qualifier: String, column: String) -> String {
        "\u{1}" + qualifier + "." + column
    }

    /// The qualifier (as written), whether it is `NEW`, and the column named by a parameter name made by
    /// ``parameterName(_:column:)``.
    package static func reference(_ name: String) -> (qualifier: String, isNew: Bool, column: String)? {
        guard name.hasPrefix("\u{1}"), let dot = name.firstIndex(of: ".") else { return nil }
        let qualifier = String(name[name.index(after: name.startIndex)..<dot])
        let column = String(name[name.index(after: dot)...])
        return (qualifier, SchemaNames.key(qualifier) == "new", column)
    }
}
