import GraniteStorage

/// An error raised while evaluating an SQL expression or function, carrying SQLite's message.
package struct SQLEvaluationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// SQLite's error message, e.g. `integer overflow`.
    package var message: String
    /// A close existing name for an unknown column or function (`did you mean …?`), if any.
    package var suggestion: String?
    /// What the error is about, when it names something unknown or misused.
    package var subject: SQLErrorSubject?
    /// SQLite's result code for the error: 1 (`SQLITE_ERROR`) but for a value past SQLite's length limit, 18
    /// (`SQLITE_TOOBIG`).
    package var resultCode: Int32 = 1

    /// Creates an error with `message`.
    package init(_ message: String) { self.message = message }

    /// The message, followed by ` (did you mean 'name'?)` when there is a suggestion.
    package var description: String { NameSuggestions.describe(message, suggestion) }

    static let integerOverflow = SQLEvaluationError("integer overflow")

    /// A string or blob longer than SQLite's default `SQLITE_MAX_LENGTH` (``SQLScalarFunctions/maximumLength``).
    static let tooBig: SQLEvaluationError = {
        var error = SQLEvaluationError("string or blob too big")
        error.resultCode = 18
        return error
    }()
}

/// Errors thrown by built-in functions use the same type.
package typealias SQLFunctionError = SQLEvaluationError

/// SQLite's text→number scanners (`sqlite3AtoF`, `sqlite3Atoi64`) and the value conversions built on them.
enum SQLNumberParsing {
    @inline(__always)
    static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || (c >= 0x09 && c <= 0x0d) }
    @inline(__always)
    static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }

    /// `sqlite3AtoF`: returns the converted (prefix) value and the result code
    /// (1 pure integer, ≥2 real syntax, 0 not a number, −1 numeric prefix with `.`/`e`); see ``SQLRealParsing``.
    @inline(__always)
    static func atof(_ z: [UInt8]) -> (value: Double, code: Int) { SQLRealParsing.atof(z) }

    /// `atof` of a string's UTF-8 bytes, without copying them.
    @inline(__always)
    static func atof(_ text: String) -> (value: Double, code: Int) { SQLRealParsing.atof(text) }

    /// `sqlite3Atoi64`: the (clamped) value and code 0 ok, 1 trailing text, 2 overflow, 3 exactly 2^63, −1 no digits.
    static func atoi64(_ z: [UInt8]) -> (value: Int64, code: Int) {
        let end = z.count
        var i = 0
        var neg = false
        while i < end && isSpace(z[i]) { i += 1 }
        if i < end {
            if z[i] == UInt8(ascii: "-") {
                neg = true
                i += 1
            } else if z[i] == UInt8(ascii: "+") {
                i += 1
            }
        }
        let start = i
        while i < end && z[i] == UInt8(ascii: "0") { i += 1 }
        let numStart = i
        var u: UInt64 = 0
        var j = i
        while j < end && isDigit(z[j]) {
            u = u &* 10 &+ UInt64(z[j] - 0x30)
            j += 1
        }
        let nd = j - numStart
        var value: Int64
        if u > UInt64(Int64.max) {
            value = neg ? Int64.min : Int64.max
        } else {
            value = neg ? -Int64(u) : Int64(u)
        }
        var rc = 0
        if nd == 0 && start == numStart {
            rc = -1
        } else if j < end {
            var k = j
            while k < end {
                if !isSpace(z[k]) {
                    rc = 1
                    break
                }
                k += 1
            }
        }
        if nd < 19 { return (value, rc) }
        var c = 0
        if nd > 19 {
            c = 1
        } else {
            let pow63: [UInt8] = Array("922337203685477580".utf8)
            for k in 0..<18 {
                c = (Int(z[numStart + k]) - Int(pow63[k])) * 10
                if c != 0 { break }
            }
            if c == 0 { c = Int(z[numStart + 18]) - Int(UInt8(ascii: "8")) }
        }
        if c < 0 { return (value, rc) }
        value = neg ? Int64.min : Int64.max
        if c > 0 { return (value, 2) }
        return (value, neg ? rc : 3)
    }

    /// C-style `(i64)r` as x86-64 performs it (out-of-range and NaN give `Int64.min`).
    static func truncatingInt(_ r: Double) -> Int64 {
        if r.isNaN || r >= 9_223_372_036_854_775_808.0 || r < -9_223_372_036_854_775_808.0 { return Int64.min }
        return Int64(r)
    }

    /// `doubleToInt64`: saturating conversion.
    static func doubleToInt64(_ r: Double) -> Int64 {
        if r <= -9_223_372_036_854_775_808.0 { return Int64.min }
        if r >= 9_223_372_036_854_775_807.0 { return Int64.max }
        if r.isNaN { return 0 }
        return Int64(r)
    }

    /// `sqlite3RealSameAsInt`.
    static func realSameAsInt(_ r: Double, _ i: Int64) -> Bool {
        let r2 = Double(i)
        return r == 0.0 || (r.bitPattern == r2.bitPattern && i >= -2_251_799_813_685_248 && i < 2_251_799_813_685_248)
    }
}

extension Value {
    /// The UTF-8 bytes of the value's text form (`sqlite3_value_text`); `nil` for NULL.
    var sqlTextBytes: [UInt8]? {
        switch self {
        case .null: return nil
        case .integer(let i): return Array(String(i).utf8)
        case .real(let r): return Array(SQLRealFormatting.render(r).utf8)
        case .text(let s): return Array(s.utf8)
        case .invalidUTF8Text(let b): return b
        case .blob(let b): return b
        }
    }

    /// The value's text form (`sqlite3_value_text`) as a `String`; `nil` for NULL. BLOB bytes and TEXT that
    /// is not valid UTF-8 are decoded as UTF-8 with repair (U+FFFD): where the bytes matter, use
    /// ``sqlTextBytes`` or ``sqlTextValue``.
    package var sqlText: String? {
        switch self {
        case .null: return nil
        case .integer(let i): return String(i)
        case .real(let r): return SQLRealFormatting.render(r)
        case .text(let s): return s
        case .invalidUTF8Text(let b), .blob(let b): return String(decoding: b, as: UTF8.self)
        }
    }

    /// The value converted to TEXT as SQLite does (`sqlite3VdbeMemStringify`, or a BLOB's bytes taken as text):
    /// the bytes are kept exactly, valid UTF-8 or not; `nil` for NULL.
    package var sqlTextValue: Value? {
        switch self {
        case .null: return nil
        case .integer, .real: return .text(sqlText ?? "")
        case .text, .invalidUTF8Text: return self
        case .blob(let b): return .text(utf8: b)
        }
    }

    /// `sqlite3_value_int64`.
    @usableFromInline package var sqlInteger: Int64 {
        switch self {
        case .null: return 0
        case .integer(let i): return i
        case .real(let r): return SQLNumberParsing.doubleToInt64(r)
        case .text(let s): return SQLNumberParsing.atoi64(Array(s.utf8)).value
        case .invalidUTF8Text(let b), .blob(let b): return SQLNumberParsing.atoi64(b).value
        }
    }

    /// `sqlite3_value_double`.
    @usableFromInline package var sqlReal: Double {
        switch self {
        case .null: return 0
        case .integer(let i): return Double(i)
        case .real(let r): return r
        case .text(let s): return SQLNumberParsing.atof(s).value
        case .invalidUTF8Text(let b), .blob(let b): return SQLNumberParsing.atof(b).value
        }
    }

    /// `sqlite3_value_int`: the 64-bit value truncated to 32 bits.
    var sqlInt32: Int64 { Int64(Int32(truncatingIfNeeded: sqlInteger)) }

    /// The numeric value of the value as arithmetic sees it (`numericType`): INTEGER or REAL, or `nil` for NULL.
    var sqlNumeric: Value {
        switch self {
        case .null, .integer, .real: return self
        case .text(let s): return Value.numericFromBytes(Array(s.utf8))
        case .invalidUTF8Text(let b), .blob(let b): return Value.numericFromBytes(b)
        }
    }

    static func numericFromBytes(_ z: [UInt8]) -> Value {
        let (r, rc) = SQLNumberParsing.atof(z)
        if rc <= 0 {
            if rc == 0 {
                let (ix, irc) = SQLNumberParsing.atoi64(z)
                if irc <= 1 { return .integer(ix) }
            }
            return .real(r)
        }
        if rc == 1 {
            let (ix, irc) = SQLNumberParsing.atoi64(z)
            if irc == 0 { return .integer(ix) }
        }
        return .real(r)
    }

    /// SQL truth value (`sqlite3VdbeBooleanValue`): `nil` for NULL.
    package var sqlTruth: Bool? {
        switch self {
        case .null: return nil
        case .integer(let i): return i != 0
        default: return sqlReal != 0
        }
    }
}

/// `CAST(x AS type)`.
package enum SQLCast {
    /// Casts `value` to the affinity of the declared type `typeName`.
    package static func cast(_ value: Value, to typeName: String) -> Value {
        cast(value, to: SQLAffinity(declaredType: typeName))
    }

    /// Casts `value` to `affinity` (`sqlite3VdbeMemCast`).
    package static func cast(_ value: Value, to affinity: SQLAffinity) -> Value {
        if case .null = value { return .null }
        switch affinity {
        case .blob:
            switch value {
            case .blob: return value
            default: return .blob(value.sqlTextBytes ?? [])
            }
        case .text:
            return value.sqlTextValue ?? .text("")
        case .real:
            return .real(value.sqlReal)
        case .integer:
            return .integer(value.sqlInteger)
        case .numeric:
            switch value {
            case .integer, .real, .null: return value
            case .text(let s): return numerify(Array(s.utf8))
            case .invalidUTF8Text(let b), .blob(let b): return numerify(b)
            }
        }
    }

    /// `sqlite3VdbeMemNumerify` on text/blob bytes.
    static func numerify(_ z: [UInt8]) -> Value {
        let (r, rc) = SQLNumberParsing.atof(z)
        if rc == 0 || rc == 1 {
            let (ix, irc) = SQLNumberParsing.atoi64(z)
            if irc <= 1 { return .integer(ix) }
        }
        let ix = SQLNumberParsing.truncatingInt(r)
        if SQLNumberParsing.realSameAsInt(r, ix) { return .integer(ix) }
        return .real(r)
    }
}
