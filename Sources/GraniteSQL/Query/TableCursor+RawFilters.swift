// Filters a TableCursor tests on a row's encoded bytes, before decoding any column: a TEXT column compared
// with a TEXT operand, or a located JSON call on a TEXT column compared with any operand
// (TableCursor+LocatedFilters.swift).

import GraniteStorage

extension TableCursor {
    /// A filter tested on the encoded row (see ``rawFilters``).
    struct RawFilter {
        let op: SQLComparisonOperator
        /// The column (relative position).
        let column: Int
        let collation: SQLCollation
        /// The operand: a parameter index, or −1 for ``TableCursor/rawConstants``' entry.
        let parameter: Int
        /// For a located JSON call on the column compared with the operand, the call and the comparison's rule;
        /// nil for the column itself compared by its bytes.
        var located: LocatedTest? = nil
        /// For a located call on one of ``TableCursor/documentColumns``, its position there: the call reads the
        /// column's stored document, loaded before the raw filters are tested.
        var document: Int? = nil
    }

    /// The UTF-8 bytes of a ``RawFilter``'s operand.
    struct RawOperand {
        var start: UnsafeMutableRawPointer?
        var count = 0
        var active = false
    }

    /// The leading `conditions` that can be tested on the encoded row (see ``rawFilters``), with their constants:
    /// a column of the table (not the rowid nor its alias) compared with a parameter or constant, under an
    /// affinity that leaves TEXT unchanged, so that a TEXT column against a TEXT operand compares their UTF-8
    /// bytes under the collation, as ``SQLComparison/evaluate(_:_:_:leftAffinity:rightAffinity:collation:)``
    /// does.
    static func rawFilters(_ conditions: [Condition], base: Int, table: TableDefinition) -> (
        [RawFilter], [Value]
    ) {
        var filters: [RawFilter] = []
        var constants: [Value] = []
        for condition in conditions {
            let op: SQLComparisonOperator
            let slot: Int
            let rule: ComparisonRule
            var parameter = -1
            var constant = Value.null
            switch condition {
            case .columnParameter(let o, let s, let index, let r):
                (op, slot, rule, parameter) = (o, s, r, index)
            case .columnConstant(let o, let s, let value, let r):
                (op, slot, rule, constant) = (o, s, r, value)
            case .general(let expression):
                guard let (filter, constant) = locatedFilter(expression, base: base, table: table) else {
                    return (filters, constants)
                }
                filters.append(filter)
                constants.append(constant)
                continue
            }
            let column = slot - base
            guard column >= 0, column < table.columns.count, column != table.rowidAlias else {
                return (filters, constants)
            }
            if let affinity = SQLComparison.comparisonAffinity(rule.leftAffinity, rule.rightAffinity),
                affinity.isNumeric
            {
                return (filters, constants)
            }
            filters.append(RawFilter(op: op, column: column, collation: rule.collation, parameter: parameter))
            constants.append(constant)
        }
        return (filters, constants)
    }

    /// Sets ``rawOperands`` for an execution with `context`'s parameters.
    func setRawOperands(_ context: EvaluationContext) {
        if rawOperands.count != rawFilters.count {
            rawOperands = Array(repeating: RawOperand(), count: rawFilters.count)
            rawOperandTexts = Array(repeating: nil, count: rawFilters.count)
            rawOperandValues = Array(repeating: .null, count: rawFilters.count)
        }
        for k in rawFilters.indices {
            let filter = rawFilters[k]
            let value = filter.parameter >= 0 ? context.parameters[filter.parameter] : rawConstants[k]
            if filter.located != nil { rawOperandValues[k] = value }
            guard case .text(let text) = value else {
                rawOperands[k].active = false
                continue
            }
            rawOperands[k].active = true
            // Compared by their bytes: `==` would take canonically equivalent texts (é and e + U+0301) for equal.
            if let old = rawOperandTexts[k], old.utf8.elementsEqual(text.utf8) { continue }
            rawOperandTexts[k] = text
            rawOperands[k].start?.deallocate()
            var source = text
            let count = source.utf8.count
            let start = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 8)
            source.withUTF8 { if let base = $0.baseAddress { start.copyMemory(from: base, byteCount: count) } }
            rawOperands[k].start = start
            rawOperands[k].count = count
        }
    }

    /// Tests the leading ``rawFilters`` on the encoded row `raw`, as far as their byte test decides them (the
    /// column holds uncompressed TEXT, the header up to ``firstLimit`` is well formed, the operand is TEXT); sets
    /// ``rawPassed``. False when the row fails one. Any stored bytes qualify: a TEXT value is its bytes, valid
    /// UTF-8 or not, and every collation compares those bytes as the decoded value's comparison would.
    @inline(__always)
    func passesRawFilters(_ raw: UnsafeRawBufferPointer) -> Bool {
        rawPassed = 0
        let limit = firstLimit
        for k in 0..<rawFilters.count {
            let filter = rawFilters[k]
            let operand = rawOperands[k]
            if let located = filter.located {
                guard let holds = passesLocated(raw, filter, located, rawOperandValues[k], operand) else {
                    return true
                }
                if !holds { return false }
                rawPassed = k + 1
                continue
            }
            guard operand.active, let (serialType, bytes) = RowDecoder.locate(raw, column: filter.column, limit: limit),
                serialType >= 12, (serialType - 12) % 3 == 0
            else { return true }
            let holds: Bool
            if filter.collation == .binary && bytes.count != operand.count
                && (filter.op == .equal || filter.op == .is)
            {
                holds = false
            } else {
                let c = filter.collation.compareBytes(
                    bytes.assumingMemoryBound(to: UInt8.self),
                    UnsafeBufferPointer(start: operand.start?.assumingMemoryBound(to: UInt8.self), count: operand.count)
                )
                holds = filter.op.holds(comparing: c)
            }
            if !holds { return false }
            rawPassed = k + 1
        }
        return true
    }
}
