// json_each's `value <op> operand` condition decided on an element's text, for the elements it rejects, before
// any of the element's columns is computed.

import GraniteStorage

extension TableFunctionCursor {
    /// The first filter of an inner json_each level when it compares the `value` column with a parameter or a
    /// constant (`json_each.value = ?`). A walk over the document's text skips the elements the comparison
    /// certainly rejects with a TEXT operand, so that a rejected element's value never becomes a `String`; the
    /// elements it keeps are still tested by the level's filters as any row is.
    ///
    /// Only the level's first filter qualifies: the cursor tests the filters in order and stops at the first that
    /// fails, so a row this one rejects reaches no other. Not for a LEFT JOIN's level, whose filters also decide
    /// whether it emits its NULL row.
    struct ValueTest {
        let op: SQLComparisonOperator
        let collation: SQLCollation
        /// The operand: a parameter index, or −1 for ``constant``.
        let parameter: Int
        let constant: Value
        /// Whether an element that is not a string (a number, `true`, `false`, `null`) fails whatever the TEXT
        /// operand: under `=` or `IS` with no affinity that converts either operand, a value that is not TEXT
        /// never equals TEXT. (A container's value is JSON text, so containers are left to the filter.)
        let rejectsNonText: Bool
    }

    /// The ``ValueTest`` of `level`, or nil when its first filter is not such a comparison.
    static func valueTest(_ level: SelectProgram.Level) -> ValueTest? {
        guard case .tableFunction(let program) = level.kind, program.function == .jsonEach, !level.isLeft,
            level.matchConditions.isEmpty, let first = level.filters.first, first.prelude.isEmpty,
            case .compare(let op, .column(let slot), let right, let rule) = first.root,
            slot == level.source.base + JSONTableColumn.value.rawValue
        else { return nil }
        // A numeric affinity reads TEXT that looks like a number as that number: the bytes no longer decide.
        let affinity = SQLComparison.comparisonAffinity(rule.leftAffinity, rule.rightAffinity)
        if affinity?.isNumeric ?? false { return nil }
        let rejectsNonText = (op == .equal || op == .is) && (affinity == nil || affinity == .blob)
        switch right {
        case .parameter(let index):
            return ValueTest(
                op: op, collation: rule.collation, parameter: index, constant: .null, rejectsNonText: rejectsNonText)
        case .constant(let value):
            guard case .text = value else { return nil }
            return ValueTest(
                op: op, collation: rule.collation, parameter: -1, constant: value, rejectsNonText: rejectsNonText)
        default:
            return nil
        }
    }

    /// The test's operand for the execution of `context` when it is valid UTF-8 TEXT (the test then applies),
    /// else nil.
    static func valueTestOperand(_ test: ValueTest, _ context: EvaluationContext) -> String? {
        let operand = test.parameter >= 0 ? context.parameters[test.parameter] : test.constant
        guard case .text(let text) = operand else { return nil }
        return text
    }
}

extension JSONEachTextWalk {
    /// Moves past the rows, from the current one, whose value `test` rejects with the TEXT operand of UTF-8
    /// `operand`; returns how many it skipped. A string without escapes compares by its bytes under the
    /// collation, as its value (those bytes as TEXT) would compare with the operand.
    func skipRows(
        rejectedBy test: TableFunctionCursor.ValueTest, operand: UnsafeBufferPointer<UInt8>
    ) throws(JSONError) -> Int {
        var skipped = 0
        while hasRow && rejects(test, operand) {
            try advance()
            skipped += 1
        }
        return skipped
    }

    /// Whether the current row's value certainly fails `test` with the operand of UTF-8 `operand`.
    private func rejects(_ test: TableFunctionCursor.ValueTest, _ operand: UnsafeBufferPointer<UInt8>) -> Bool {
        let parser = self.parser
        let range = currentValue
        switch parser.byte(range.lowerBound) {
        case UInt8(ascii: "\""):
            guard let inner = parser.plainStringBytes(at: range) else { return false }
            return !test.op.holds(comparing: test.collation.compareBytes(inner, operand))
        case UInt8(ascii: "["), UInt8(ascii: "{"):
            return false
        default:
            return test.rejectsNonText
        }
    }
}
