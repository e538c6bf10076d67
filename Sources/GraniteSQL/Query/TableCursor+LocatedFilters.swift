// The byte test of a located JSON call: `json_extract(column, 'path') <op> operand` (or `->`, `->>`) decided on
// the column's stored bytes, so that a row it rejects is never decoded (its TEXT never becomes a String).

import GraniteStorage

extension TableCursor {
    /// A located JSON call on a ``RawFilter``'s column: the filter holds when the call's value compares true
    /// with the operand under `rule`.
    struct LocatedTest {
        let path: JSONSimplePath
        let form: JSONLocatedForm
        let rule: ComparisonRule
        /// Whether a string value of the call compares with a TEXT operand by their bytes under the collation: the
        /// call's value is a string's text (not `->`'s JSON), and the comparison converts no TEXT (no numeric
        /// affinity).
        let textComparesBytes: Bool

        init(path: JSONSimplePath, form: JSONLocatedForm, rule: ComparisonRule) {
            self.path = path
            self.form = form
            self.rule = rule
            let affinity = SQLComparison.comparisonAffinity(rule.leftAffinity, rule.rightAffinity)
            textComparesBytes = form != .arrow && !(affinity?.isNumeric ?? false)
        }
    }

    /// The raw filter of `expression` when it is a located JSON call on a column of the table (not the rowid
    /// nor its alias) compared with a parameter or a constant, and that constant (NULL for a parameter); else
    /// nil.
    static func locatedFilter(_ expression: CompiledExpression, base: Int, table: TableDefinition) -> (
        RawFilter, Value
    )? {
        guard expression.prelude.isEmpty,
            case .compare(let op, .json(.locate(let path, let form), let arguments), let right, let rule) =
                expression.root,
            arguments.count == 1, case .column(let slot) = arguments[0]
        else { return nil }
        let column = slot - base
        guard column >= 0, column < table.columns.count, column != table.rowidAlias else { return nil }
        let test = LocatedTest(path: path, form: form, rule: rule)
        switch right {
        case .parameter(let index):
            return (RawFilter(op: op, column: column, collation: rule.collation, parameter: index, located: test), .null)
        case .constant(let value):
            return (RawFilter(op: op, column: column, collation: rule.collation, parameter: -1, located: test), value)
        default:
            return nil
        }
    }

    /// Whether the row `raw` passes `filter`, whose located call is `test`, with `operand` (whose UTF-8 bytes are
    /// `operandBytes` when it is TEXT), decided as the evaluation of the decoded row decides it: the call reads the
    /// same bytes (a TEXT value is its stored bytes, valid UTF-8 or not) and its value is compared the same way.
    /// Nil, leaving the filter to that evaluation, when the column does not hold uncompressed TEXT, the header up
    /// to ``firstLimit`` is not well formed, or the call fails (malformed JSON: the evaluation raises the error).
    func passesLocated(
        _ raw: UnsafeRawBufferPointer, _ filter: RawFilter, _ test: LocatedTest, _ operand: Value,
        _ operandBytes: RawOperand
    ) -> Bool? {
        guard let jsonLocations else { return nil }
        // A document column's TEXT is already in its stored document (compressed or not): what is found there is
        // kept by the document's generation, for the calls of the same row.
        if let k = filter.document {
            let stored = documents[k]
            guard stored.holdsText else { return nil }
            return passesLocated(stored.text, filter, test, operand, operandBytes) { () throws(JSONError) in
                try jsonLocations.locate(test.path, in: stored)
            }
        }
        guard let (serialType, bytes) = RowDecoder.locate(raw, column: filter.column, limit: firstLimit),
            serialType >= 12, (serialType - 12) % 3 == 0
        else { return nil }
        let text = UnsafeBufferPointer(start: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        return passesLocated(text, filter, test, operand, operandBytes) { () throws(JSONError) in
            try jsonLocations.locate(test.path, in: text)
        }
    }

    /// Whether the located call of `test` on the document `text`, whose node `locate` finds, passes `filter`.
    @inline(__always)
    private func passesLocated(
        _ text: UnsafeBufferPointer<UInt8>, _ filter: RawFilter, _ test: LocatedTest, _ operand: Value,
        _ operandBytes: RawOperand, locate: () throws(JSONError) -> JSONParser.Location?
    ) -> Bool? {
        guard let jsonLocations else { return nil }
        let parser = JSONParser(text)
        let value: JSONArgument
        do throws(JSONError) {
            guard let location = try locate() else {
                return EvalNode.compare(filter.op, .null, operand, test.rule) == true
            }
            // A string without escapes is its bytes: compared with TEXT as the two values' bytes would be, under
            // the collation, with no value made.
            if test.textComparesBytes, operandBytes.active, let inner = parser.plainStringBytes(at: location.range) {
                let c = filter.collation.compareBytes(
                    inner, UnsafeBufferPointer(start: operandBytes.start?.assumingMemoryBound(to: UInt8.self),
                        count: operandBytes.count))
                return filter.op.holds(comparing: c)
            }
            value = try jsonLocations.value(at: location, in: text, test.form)
        } catch {
            return nil
        }
        return EvalNode.compare(filter.op, value.value, operand, test.rule) == true
    }
}
