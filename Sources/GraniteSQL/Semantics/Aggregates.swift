import GraniteStorage

/// `count(*)`.
package struct SQLCountStarAggregate: Sendable {
    package private(set) var count: Int64 = 0
    package init() {}
    package mutating func step() { count += 1 }
    package func finish() -> Value { .integer(count) }
}

/// `count(x)`.
package struct SQLCountAggregate: Sendable {
    package private(set) var count: Int64 = 0
    package init() {}
    package mutating func step(_ x: Value) { if !x.isNull { count += 1 } }
    package func finish() -> Value { .integer(count) }
}

/// `sum(x)`, `total(x)` and `avg(x)` share SQLite's `SumCtx`.
package struct SQLSumAggregate: Sendable {
    /// Which of the three functions to finish as.
    package enum Kind: Sendable { case sum, total, avg }
    package let kind: Kind
    var realSum = 0.0
    var integerSum: Int64 = 0
    var count: Int64 = 0
    var overflow = false
    var approximate = false

    package init(_ kind: Kind) { self.kind = kind }

    package mutating func step(_ x: Value) {
        var v = x
        if case .text(let s) = x {
            v = SQLAffinity.numericAffinity(s, tryForInteger: false) ?? x
        } else if case .invalidUTF8Text(let b) = x {
            v = SQLAffinity.numericAffinity(b, tryForInteger: false) ?? x
        }
        switch v {
        case .null: return
        case .integer(let i):
            count += 1
            realSum += Double(i)
            if !approximate && !overflow {
                let (r, o) = integerSum.addingReportingOverflow(i)
                if o {
                    approximate = true
                    overflow = true
                } else {
                    integerSum = r
                }
            }
        default:
            count += 1
            realSum += v.sqlReal
            approximate = true
        }
    }

    /// Takes `x`, added earlier, back out (a window frame's row leaving it), as SQLite's `sumInverse`: once the
    /// sum has become approximate it stays so.
    package mutating func remove(_ x: Value) {
        var v = x
        if case .text(let s) = x {
            v = SQLAffinity.numericAffinity(s, tryForInteger: false) ?? x
        } else if case .invalidUTF8Text(let b) = x {
            v = SQLAffinity.numericAffinity(b, tryForInteger: false) ?? x
        }
        switch v {
        case .null: return
        case .integer(let i) where !approximate:
            count -= 1
            realSum -= Double(i)
            integerSum = integerSum &- i
        default:
            count -= 1
            realSum -= v.sqlReal
        }
    }

    package func finish() throws -> Value {
        switch kind {
        case .total: return realSum.isNaN ? .null : .real(realSum)
        case .avg:
            let r = realSum / Double(count)
            return count > 0 && !r.isNaN ? .real(r) : .null
        case .sum:
            if count == 0 { return .null }
            if overflow { throw SQLEvaluationError.integerOverflow }
            if approximate { return realSum.isNaN ? .null : .real(realSum) }
            return .integer(integerSum)
        }
    }
}

/// `min(x)` / `max(x)` as aggregates: NULLs ignored, first of equal values kept.
package struct SQLMinMaxAggregate: Sendable {
    package let isMax: Bool
    package let collation: SQLCollation
    package private(set) var best: Value? = nil

    package init(isMax: Bool, collation: SQLCollation = .binary) {
        self.isMax = isMax
        self.collation = collation
    }

    /// Adds `x`; returns whether SQLite takes the bare columns of an aggregate query from its row: when `x` became
    /// the result, or when it is NULL and no value came before it (so a group of NULLs takes the last row's).
    @discardableResult
    package mutating func step(_ x: Value) -> Bool {
        if x.isNull { return best == nil }
        guard let b = best else {
            best = x
            return true
        }
        let c = SQLComparison.compare(b, x, collation: collation)
        guard (isMax && c < 0) || (!isMax && c > 0) else { return false }
        best = x
        return true
    }

    package func finish() -> Value { best ?? .null }
}

/// `group_concat(x[, separator])`.
package struct SQLGroupConcatAggregate: Sendable {
    var bytes: [UInt8] = []
    var started = false

    package init() {}

    /// Adds `x`; `separator` is the current row's separator argument (`nil` when the call has one argument).
    package mutating func step(_ x: Value, separator: Value? = nil) {
        guard let v = x.sqlTextBytes else { return }
        if started {
            if let sep = separator {
                if let s = sep.sqlTextBytes { bytes.append(contentsOf: s) }
            } else {
                bytes.append(UInt8(ascii: ","))
            }
        }
        started = true
        bytes.append(contentsOf: v)
    }

    package func finish() -> Value { started ? .text(utf8: bytes) : .null }
}
