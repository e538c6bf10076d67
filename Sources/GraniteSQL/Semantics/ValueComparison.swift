import GraniteStorage

/// The comparison operators.
package enum SQLComparisonOperator: Sendable, Hashable {
    case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
    /// `IS`: NULL-safe equality.
    case `is`
    /// `IS NOT`: NULL-safe inequality.
    case isNot
}

/// SQLite's comparison semantics.
package enum SQLComparison {
    /// Total SQL order (`sqlite3MemCompare`): NULL < numbers < TEXT (by `collation`) < BLOB. Returns −1, 0 or 1.
    package static func compare(_ a: Value, _ b: Value, collation: SQLCollation = .binary) -> Int {
        if case .text(let x) = a, case .text(let y) = b { return collation.compare(x, y) }
        // Under BINARY, `Value.compare` orders TEXT of bytes that are not valid UTF-8 by its bytes.
        if collation.isBinary { return Value.compare(a, b) }
        return compareUnderCollation(a, b, collation)
    }

    /// ``compare(_:_:collation:)`` when one operand may be TEXT of bytes that are not valid UTF-8: it compares by
    /// its bytes under the collation, as any text does. Out of line to keep the common comparison small.
    @inline(never)
    private static func compareUnderCollation(_ a: Value, _ b: Value, _ collation: SQLCollation) -> Int {
        if a.isText, b.isText, let x = a.textUTF8, let y = b.textUTF8 { return collation.compare(utf8: x, y) }
        return Value.compare(a, b)
    }

    /// The affinity SQLite applies to both operands of a comparison (`sqlite3CompareAffinity`), given the
    /// operands' affinities (`nil`: the operand has no affinity, e.g. a literal or parameter).
    package static func comparisonAffinity(_ left: SQLAffinity?, _ right: SQLAffinity?) -> SQLAffinity? {
        if let l = left, let r = right {
            return (l.isNumeric || r.isNumeric) ? .numeric : .blob
        }
        return left ?? right
    }

    /// Converts the operands as the comparison opcodes do before comparing.
    package static func prepareOperands(
        _ a: Value, _ aAffinity: SQLAffinity?, _ b: Value, _ bAffinity: SQLAffinity?
    ) -> (Value, Value) {
        guard let affinity = comparisonAffinity(aAffinity, bAffinity) else { return (a, b) }
        if affinity.isNumeric {
            guard a.isText || b.isText else { return (a, b) }
        } else if affinity == .text {
            guard a.isText || b.isText else { return (a, b) }
        } else {
            return (a, b)
        }
        return (prepared(a, for: affinity), prepared(b, for: affinity))
    }

    /// `v` converted as a comparison under `affinity` converts an operand: numeric affinities read TEXT that looks
    /// like a number as that number, TEXT affinity writes numbers as text; anything else is left as it is. (The
    /// comparison converts its operands only when one of them is TEXT; see ``prepareOperands(_:_:_:_:)``.)
    package static func prepared(_ v: Value, for affinity: SQLAffinity) -> Value {
        if affinity.isNumeric {
            if case .text(let s) = v { return SQLAffinity.numericAffinity(s, tryForInteger: false) ?? v }
            guard case .invalidUTF8Text(let b) = v else { return v }
            return SQLAffinity.numericAffinity(b, tryForInteger: false) ?? v
        }
        if affinity == .text {
            switch v {
            case .integer, .real: return .text(v.sqlText ?? "")
            default: return v
            }
        }
        return v
    }

    /// Evaluates `a op b` with SQLite's affinity and collation rules; `nil` means NULL (unknown).
    package static func evaluate(
        _ op: SQLComparisonOperator, _ a: Value, _ b: Value,
        leftAffinity: SQLAffinity? = nil, rightAffinity: SQLAffinity? = nil,
        collation: SQLCollation = .binary
    ) -> Bool? {
        if case .integer(let x) = a, case .integer(let y) = b {
            // Two integers: no affinity converts either (only TEXT operands are converted).
            switch op {
            case .equal, .is: return x == y
            case .notEqual, .isNot: return x != y
            case .less: return x < y
            case .lessOrEqual: return x <= y
            case .greater: return x > y
            case .greaterOrEqual: return x >= y
            }
        }
        let aNull = a.isNull
        let bNull = b.isNull
        if op == .is || op == .isNot {
            if aNull || bNull {
                let same = aNull && bNull
                return op == .is ? same : !same
            }
        } else if aNull || bNull {
            return nil
        }
        let (x, y) = prepareOperands(a, leftAffinity, b, rightAffinity)
        return op.holds(comparing: compare(x, y, collation: collation))
    }
}

extension SQLComparisonOperator {
    /// Whether the comparison holds for two non-NULL operands that compare as `c` (−1, 0 or 1).
    @inline(__always)
    func holds(comparing c: Int) -> Bool {
        switch self {
        case .equal, .is: return c == 0
        case .notEqual, .isNot: return c != 0
        case .less: return c < 0
        case .lessOrEqual: return c <= 0
        case .greater: return c > 0
        case .greaterOrEqual: return c >= 0
        }
    }
}

extension Value {
    var isNull: Bool {
        if case .null = self { return true }
        return false
    }
    var isBlob: Bool {
        if case .blob = self { return true }
        return false
    }
    /// Whether the storage class is TEXT (either representation).
    var isText: Bool {
        switch self {
        case .text, .invalidUTF8Text: return true
        default: return false
        }
    }
}
