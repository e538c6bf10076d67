// Window syntax: a call's `OVER` clause, window definitions with their frames, and the `WINDOW` clause of a
// `SELECT`.

extension Parser {
    /// Parses a call's `OVER name` or `OVER (definition)`, if any. `OVER` followed by neither is not the clause
    /// (SQLite then reads it as a column alias: `SELECT count(*) over FROM t`).
    mutating func parseOverClause() throws(SQLSyntaxError) -> WindowReference? {
        guard isKeyword("OVER") else { return nil }
        let next = peek(1)
        if next.kind == .symbol && next.text == "(" {
            advance()
            return .definition(try parseWindowDefinition())
        }
        guard next.kind == .quotedIdentifier || (next.kind == .word && !Parser.reservedWords.contains(next.keyword))
        else { return nil }
        advance()
        return .named(try parseName())
    }

    /// Parses `([base] [PARTITION BY …] [ORDER BY …] [frame])`, the parentheses included.
    mutating func parseWindowDefinition() throws(SQLSyntaxError) -> WindowDefinition {
        try expectSymbol("(")
        var definition = WindowDefinition()
        if isIdentifier && !isKeyword("PARTITION") && !isKeyword("ORDER") && !isFrameUnit {
            definition.base = try parseName()
        }
        if acceptKeyword("PARTITION") {
            try expectKeyword("BY")
            repeat { definition.partitionBy.append(try parseExpression()) } while acceptSymbol(",")
        }
        if acceptKeyword("ORDER") {
            try expectKeyword("BY")
            repeat { definition.orderBy.append(try parseOrderingTerm()) } while acceptSymbol(",")
        }
        if isFrameUnit { definition.frame = try parseFrame() }
        try expectSymbol(")")
        return definition
    }

    private var isFrameUnit: Bool { isKeyword("ROWS") || isKeyword("RANGE") || isKeyword("GROUPS") }

    /// Parses `ROWS|RANGE|GROUPS {BETWEEN start AND end | start} [EXCLUDE …]`, refusing the bound pairs SQLite
    /// refuses (a frame that would end before it starts).
    private mutating func parseFrame() throws(SQLSyntaxError) -> WindowFrame {
        let start = current.range.start
        let unit = WindowFrame.Unit(rawValue: advance().keyword) ?? .rows
        var frame: WindowFrame
        if acceptKeyword("BETWEEN") {
            let first = try parseFrameBound(isStart: true)
            try expectKeyword("AND")
            frame = WindowFrame(unit: unit, start: first, end: try parseFrameBound(isStart: false))
        } else {
            frame = WindowFrame(unit: unit, start: try parseFrameBound(isStart: true))
        }
        switch (frame.start, frame.end) {
        case (.currentRow, .preceding), (.following, .preceding), (.following, .currentRow):
            throw error("unsupported frame specification", at: start)
        default: break
        }
        if acceptKeyword("EXCLUDE") {
            if acceptKeyword("NO") {
                try expectKeyword("OTHERS")
                frame.exclusion = .noOthers
            } else if acceptKeyword("CURRENT") {
                try expectKeyword("ROW")
                frame.exclusion = .currentRow
            } else if acceptKeyword("GROUP") {
                frame.exclusion = .group
            } else {
                try expectKeyword("TIES")
                frame.exclusion = .ties
            }
        }
        return frame
    }

    /// Parses one frame bound; `UNBOUNDED FOLLOWING` cannot start a frame nor `UNBOUNDED PRECEDING` end one.
    private mutating func parseFrameBound(isStart: Bool) throws(SQLSyntaxError) -> WindowFrame.Bound {
        if isKeyword("UNBOUNDED") {
            advance()
            try expectKeyword(isStart ? "PRECEDING" : "FOLLOWING")
            return isStart ? .unboundedPreceding : .unboundedFollowing
        }
        if isKeyword("CURRENT") && isKeyword("ROW", ahead: 1) {
            advance()
            advance()
            return .currentRow
        }
        let offset = try parseExpression()
        if acceptKeyword("PRECEDING") { return .preceding(offset) }
        try expectKeyword("FOLLOWING")
        return .following(offset)
    }

    /// Parses the windows of a `WINDOW` clause (the keyword already read).
    mutating func parseWindowClause() throws(SQLSyntaxError) -> [NamedWindow] {
        var windows: [NamedWindow] = []
        repeat {
            let name = try parseName()
            try expectKeyword("AS")
            windows.append(NamedWindow(name: name, definition: try parseWindowDefinition()))
        } while acceptSymbol(",")
        return windows
    }
}

extension WindowReference {
    /// The expressions in the window definition (for the height of the call's node).
    var expressions: [SQLExpression] {
        guard case .definition(let definition) = self else { return [] }
        return definition.expressions
    }
}

extension WindowDefinition {
    /// The partition, ordering and frame offset expressions.
    var expressions: [SQLExpression] {
        var all = partitionBy + orderBy.map(\.expression)
        for bound in [frame?.start, frame?.end] {
            switch bound {
            case .preceding(let e)?, .following(let e)?: all.append(e)
            default: break
            }
        }
        return all
    }
}
