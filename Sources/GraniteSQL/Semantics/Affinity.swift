import GraniteStorage

/// A column or expression type affinity.
package enum SQLAffinity: Sendable, Hashable, CustomStringConvertible {
    /// BLOB (historically "NONE"): values are stored as given.
    case blob
    /// TEXT.
    case text
    /// NUMERIC.
    case numeric
    /// INTEGER.
    case integer
    /// REAL.
    case real

    /// The affinity of a declared column type, by SQLite's substring rules (`sqlite3AffinityType`);
    /// an absent or empty type gives BLOB.
    package init(declaredType: String?) {
        guard let declared = declaredType, !declared.isEmpty else {
            self = .blob
            return
        }
        var aff = SQLAffinity.numeric
        var h: UInt32 = 0
        for byte in declared.utf8 {
            let lower = (byte >= 0x41 && byte <= 0x5a) ? byte + 32 : byte
            h = (h << 8) &+ UInt32(lower)
            if h == Self.code("char") || h == Self.code("clob") || h == Self.code("text") {
                aff = .text
            } else if h == Self.code("blob") && (aff == .numeric || aff == .real) {
                aff = .blob
            } else if (h == Self.code("real") || h == Self.code("floa") || h == Self.code("doub")) && aff == .numeric {
                aff = .real
            } else if h & 0x00FF_FFFF == Self.code("int") {
                aff = .integer
                break
            }
        }
        self = aff
    }

    private static func code(_ s: StaticString) -> UInt32 {
        var h: UInt32 = 0
        s.withUTF8Buffer { for b in $0 { h = (h << 8) | UInt32(b) } }
        return h
    }

    /// Whether the affinity is INTEGER, REAL or NUMERIC.
    package var isNumeric: Bool { self == .numeric || self == .integer || self == .real }

    /// The affinity's name.
    package var description: String {
        switch self {
        case .blob: return "BLOB"
        case .text: return "TEXT"
        case .numeric: return "NUMERIC"
        case .integer: return "INTEGER"
        case .real: return "REAL"
        }
    }

    /// The value as stored in a column of this affinity.
    ///
    /// Inlined for the values the affinity leaves as they are (the common case of every written column); the
    /// conversions are out of line.
    @inline(__always)
    package func apply(to value: Value) -> Value {
        switch (self, value) {
        case (.blob, _), (_, .null), (_, .blob), (.text, .text), (.integer, .integer), (.numeric, .integer):
            return value
        case (.real, .real(let r)) where r != 0:
            return value
        default:
            return converted(value)
        }
    }

    /// The value converted as a column of this affinity stores it.
    @inline(never)
    private func converted(_ value: Value) -> Value {
        switch self {
        case .blob:
            return value
        case .text:
            switch value {
            case .integer, .real: return .text(value.sqlText ?? "")
            default: return value
            }
        case .numeric, .integer:
            switch value {
            case .text(let s): return Self.numericAffinity(s, tryForInteger: true) ?? value
            case .invalidUTF8Text(let b): return Self.numericAffinity(b, tryForInteger: true) ?? value
            case .real(let r): return Self.integerAffinity(r)
            default: return value
            }
        case .real:
            // SQLite stores a whole REAL of a REAL column as an integer and reads it back as a REAL, which
            // turns -0.0 into 0.0; no other value changes on that trip.
            switch value {
            case .text, .invalidUTF8Text:
                let found: Value?
                if case .text(let s) = value {
                    found = Self.numericAffinity(s, tryForInteger: false)
                } else {
                    found = Self.numericAffinity(value.textUTF8 ?? [], tryForInteger: false)
                }
                guard let converted = found else { return value }
                if case .integer(let i) = converted { return .real(Double(i)) }
                if case .real(let r) = converted, r == 0 { return .real(0) }
                return converted
            case .integer(let i): return .real(Double(i))
            case .real(let r) where r == 0: return .real(0)
            default: return value
            }
        }
    }

    /// `applyNumericAffinity`: the number the text converts to, or `nil` when it is not a well-formed number.
    ///
    /// Reads the string's UTF-8 in place: this runs for every TEXT written to a NUMERIC column (dates among
    /// them), where a copy of the bytes would be an allocation per value.
    static func numericAffinity(_ text: String, tryForInteger: Bool) -> Value? {
        var text = text
        return text.withUTF8 { numericAffinity($0, tryForInteger: tryForInteger) }
    }

    /// ``numericAffinity(_:tryForInteger:)`` of a TEXT's bytes (which need not be valid UTF-8).
    static func numericAffinity(_ bytes: [UInt8], tryForInteger: Bool) -> Value? {
        bytes.withUnsafeBufferPointer { numericAffinity($0, tryForInteger: tryForInteger) }
    }

    /// ``numericAffinity(_:tryForInteger:)`` of UTF-8 bytes.
    static func numericAffinity(_ z: UnsafeBufferPointer<UInt8>, tryForInteger: Bool) -> Value? {
        let (r, rc) = SQLRealParsing.atof(z)
        if rc <= 0 { return nil }
        if rc == 1 {
            let i = SQLNumberParsing.doubleToInt64(r)
            if SQLNumberParsing.realSameAsInt(r, i) { return .integer(i) }
            let (ix, irc) = SQLNumberParsing.atoi64(Array(z))
            if irc == 0 { return .integer(ix) }
        }
        return tryForInteger ? integerAffinity(r) : .real(r)
    }

    /// `sqlite3VdbeIntegerAffinity`.
    static func integerAffinity(_ r: Double) -> Value {
        let ix = SQLNumberParsing.doubleToInt64(r)
        if r == Double(ix) && ix > Int64.min && ix < Int64.max { return .integer(ix) }
        return .real(r)
    }
}
