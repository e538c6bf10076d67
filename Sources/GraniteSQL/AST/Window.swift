/// The window a window function call runs over: `OVER name` or `OVER (definition)`.
package enum WindowReference: Sendable, Equatable {
    /// `OVER name`: a window of the `SELECT`'s `WINDOW` clause.
    case named(String)
    /// `OVER ([base] [PARTITION BY …] [ORDER BY …] [frame])`.
    case definition(WindowDefinition)
}

/// A window definition: `[base] [PARTITION BY exprs] [ORDER BY terms] [frame]`.
package struct WindowDefinition: Sendable, Equatable {
    /// The name of the window this one extends (SQLite's "base window"), if any.
    package var base: String?
    /// The `PARTITION BY` expressions (empty when absent).
    package var partitionBy: [SQLExpression]
    /// The `ORDER BY` terms (empty when absent).
    package var orderBy: [OrderingTerm]
    /// The frame, nil for the default one.
    package var frame: WindowFrame?

    /// Creates a window definition.
    package init(
        base: String? = nil, partitionBy: [SQLExpression] = [], orderBy: [OrderingTerm] = [],
        frame: WindowFrame? = nil
    ) {
        self.base = base
        self.partitionBy = partitionBy
        self.orderBy = orderBy
        self.frame = frame
    }
}

/// A frame specification: `ROWS|RANGE|GROUPS BETWEEN start AND end [EXCLUDE …]`.
package struct WindowFrame: Sendable, Equatable {
    /// How the bounds' offsets count.
    package enum Unit: String, Sendable, Equatable {
        /// `ROWS`.
        case rows = "ROWS"
        /// `RANGE`.
        case range = "RANGE"
        /// `GROUPS`.
        case groups = "GROUPS"
    }

    /// One end of a frame.
    package enum Bound: Sendable, Equatable {
        /// `UNBOUNDED PRECEDING`.
        case unboundedPreceding
        /// `expr PRECEDING`.
        case preceding(SQLExpression)
        /// `CURRENT ROW`.
        case currentRow
        /// `expr FOLLOWING`.
        case following(SQLExpression)
        /// `UNBOUNDED FOLLOWING`.
        case unboundedFollowing
    }

    /// The rows an `EXCLUDE` clause leaves out of the frame.
    package enum Exclusion: String, Sendable, Equatable {
        /// `EXCLUDE NO OTHERS` (the default).
        case noOthers = "NO OTHERS"
        /// `EXCLUDE CURRENT ROW`.
        case currentRow = "CURRENT ROW"
        /// `EXCLUDE GROUP`: the current row and its peers.
        case group = "GROUP"
        /// `EXCLUDE TIES`: the current row's peers, but not the row itself.
        case ties = "TIES"
    }

    /// The unit.
    package var unit: Unit
    /// The first row of the frame.
    package var start: Bound
    /// The last row of the frame.
    package var end: Bound
    /// The `EXCLUDE` clause, nil when absent (SQLite computes a frame with an explicit `EXCLUDE NO OTHERS` the way
    /// it computes one with any other exclusion).
    package var exclusion: Exclusion?

    /// Creates a frame.
    package init(unit: Unit, start: Bound, end: Bound = .currentRow, exclusion: Exclusion? = nil) {
        self.unit = unit
        self.start = start
        self.end = end
        self.exclusion = exclusion
    }
}

/// One window of a `SELECT`'s `WINDOW` clause: `name AS (definition)`.
package struct NamedWindow: Sendable, Equatable {
    /// The window's name.
    package var name: String
    /// Its definition.
    package var definition: WindowDefinition

    /// Creates a named window.
    package init(name: String, definition: WindowDefinition) {
        self.name = name
        self.definition = definition
    }
}
