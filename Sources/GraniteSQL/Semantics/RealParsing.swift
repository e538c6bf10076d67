/// SQLite 3.40's text→REAL conversion (`sqlite3AtoF`): the one place where GraniteSQL turns decimal text
/// into a double, for `CAST(… AS REAL)`, REAL and NUMERIC affinity, arithmetic on text and numeric literals.
///
/// The conversion is SQLite's, not a correctly rounded one. SQLite keeps at most 19 significant digits as a
/// 64-bit integer and scales it by a power of ten in x87 80-bit `long double` arithmetic, then rounds the
/// extended result to a double. Rounding twice is not always correct: `567758.326114083` gives
/// 0x4121539CA6F86CD2 where a correctly rounded conversion (glibc's `strtod`) gives …CD3. Measured against
/// SQLite 3.40.1 on x86-64: SQLite differs from the correctly rounded double on 136 in a million random
/// 15–17 digit decimals, and on 0.3% of random 1–25 digit decimals with exponents up to ±345; this
/// conversion differs from SQLite on none of them (and on none of `RealConversionDifferentialTests`). The
/// oracle decides, so Granite reproduces SQLite's arithmetic step by step: the same text gives the same bits
/// in both, and `quote()`'s round trip decides the same way.
///
/// On platforms without an 80-bit type (arm64), `LongDouble` is `Double`, as `long double` is on Apple
/// silicon, where SQLite itself then computes in double precision.
package enum SQLRealParsing {
    /// The decimal number read from text: its significand (at most 19 digits kept), the power of ten that
    /// scales it, and its sign.
    struct Decimal {
        var significand: Int64 = 0
        var exponent: Int = 0
        var negative = false
    }

    /// Converts `text` as `sqlite3AtoF` does: the value of the longest numeric prefix (0 when there is none)
    /// and SQLite's result code (1 pure integer, 2 or 3 real syntax, 0 not a number, −1 real prefix).
    @inline(__always)
    package static func atof(_ text: String) -> (value: Double, code: Int) {
        var text = text
        return text.withUTF8 { atof($0) }
    }

    /// `atof` of UTF-8 bytes.
    @inline(__always)
    package static func atof(_ bytes: [UInt8]) -> (value: Double, code: Int) {
        bytes.withUnsafeBufferPointer { atof($0) }
    }

    /// `atof` of UTF-8 bytes in a buffer.
    package static func atof(_ z: UnsafeBufferPointer<UInt8>) -> (value: Double, code: Int) {
        var decimal = Decimal()
        let code = scan(z, into: &decimal)
        return (value(of: decimal), code)
    }

    // MARK: - Scanning

    @inline(__always)
    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || (c >= 0x09 && c <= 0x0d) }
    @inline(__always)
    private static func isDigit(_ c: UInt8) -> Bool { c &- 0x30 < 10 }

    /// Reads the numeric prefix of `z` into `decimal` and returns SQLite's result code for it.
    ///
    /// Digits past the 19th no longer fit the significand: those before the point raise the exponent, those
    /// after it are dropped. An exponent beyond 10,000 is clamped there (it already means zero or infinity).
    static func scan(_ z: UnsafeBufferPointer<UInt8>, into decimal: inout Decimal) -> Int {
        let end = z.count
        var i = 0
        var s: Int64 = 0
        var shift = 0
        var digitCount = 0
        var syntax = 1
        var exponentComplete = true
        var written = 0
        var writtenNegative = false
        while i < end && isSpace(z[i]) { i += 1 }
        if i >= end { return 0 }
        if z[i] == UInt8(ascii: "-") {
            decimal.negative = true
            i += 1
        } else if z[i] == UInt8(ascii: "+") {
            i += 1
        }
        let limit: Int64 = (Int64.max - 9) / 10
        scanning: do {
            while i < end && isDigit(z[i]) {
                s = s &* 10 &+ Int64(z[i] &- 0x30)
                i += 1
                digitCount += 1
                if s >= limit {
                    while i < end && isDigit(z[i]) {
                        i += 1
                        shift += 1
                    }
                }
            }
            if i >= end { break scanning }
            if z[i] == UInt8(ascii: ".") {
                i += 1
                syntax += 1
                while i < end && isDigit(z[i]) {
                    if s < limit {
                        s = s &* 10 &+ Int64(z[i] &- 0x30)
                        shift -= 1
                        digitCount += 1
                    }
                    i += 1
                }
            }
            if i >= end { break scanning }
            if z[i] == UInt8(ascii: "e") || z[i] == UInt8(ascii: "E") {
                i += 1
                exponentComplete = false
                syntax += 1
                if i >= end { break scanning }
                if z[i] == UInt8(ascii: "-") {
                    writtenNegative = true
                    i += 1
                } else if z[i] == UInt8(ascii: "+") {
                    i += 1
                }
                while i < end && isDigit(z[i]) {
                    written = written < 10000 ? written * 10 + Int(z[i] &- 0x30) : 10000
                    i += 1
                    exponentComplete = true
                }
            }
            while i < end && isSpace(z[i]) { i += 1 }
        }
        decimal.significand = s
        decimal.exponent = (writtenNegative ? -written : written) + shift
        if i == end && digitCount > 0 && exponentComplete { return syntax }
        if syntax >= 2 && (syntax == 3 || exponentComplete) && digitCount > 0 { return -1 }
        return 0
    }

    // MARK: - Scaling

    /// The double `decimal` stands for, computed as SQLite 3.40 computes it.
    static func value(of decimal: Decimal) -> Double {
        var s = decimal.significand
        var e = decimal.exponent
        if s == 0 { return decimal.negative ? -0.0 : 0.0 }
        // Move powers of ten into the significand while that stays exact, so that small numbers with
        // trailing zeros (or short fractions of round numbers) need no scaling at all.
        if e > 0 {
            while e > 0 && s < Int64.max / 10 {
                s *= 10
                e -= 1
            }
        } else {
            while e < 0 && s % 10 == 0 {
                s /= 10
                e += 1
            }
        }
        if decimal.negative { s = -s }
        if e == 0 { return Double(s) }
        let magnitude = e.magnitude
        if magnitude > 307 {
            if magnitude >= 342 { return e < 0 ? 0.0 * Double(s) : Double.infinity * Double(s) }
            // Scale in two steps so that the intermediate power of ten stays finite.
            let scale = powerOfTen(Int(magnitude) - 308)
            var result = Double(e < 0 ? LongDouble(s) / scale : LongDouble(s) * scale)
            if e < 0 { result /= 1.0e308 } else { result *= 1.0e308 }
            return result
        }
        let scale = powerOfTen(Int(magnitude))
        return Double(e < 0 ? LongDouble(s) / scale : LongDouble(s) * scale)
    }

    /// 10^n in `long double`, by binary exponentiation as SQLite builds it (exact up to 10^27 in 80 bits).
    @inline(__always)
    static func powerOfTen(_ n: Int) -> LongDouble {
        var n = n
        var base: LongDouble = 10
        var result: LongDouble = 1
        while n > 0 {
            if n & 1 != 0 { result *= base }
            n >>= 1
            if n > 0 { base *= base }
        }
        return result
    }
}
