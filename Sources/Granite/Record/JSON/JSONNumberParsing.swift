// The numbers of the fast JSON decoder: the exact values Foundation's JSONDecoder gives, or nil.

/// Converts the text of a JSON number token (already checked against JSON's grammar by ``JSONTape``) to Swift
/// numbers, returning nil whenever the result might differ from Foundation's `JSONDecoder` (the caller then
/// hands the whole text to Foundation).
///
/// ```swift
/// let n: Int8? = JSONNumberParsing.integer(base, token)  // "12" → 12, "1.0" → nil, "300" → nil
/// ```
///
/// * Integers: only plain digits (no fraction or exponent) that fit the type; `-0` is 0.
/// * Doubles and floats: correctly rounded, as `strtod`/`strtof` (exact fast path when the significand and the
///   power of ten are both exact, Swift's `Double(_:)`/`Float(_:)` otherwise); nil for an infinite result, a
///   non-zero number that rounds to zero, a subnormal result, and a zero with an exponent.
enum JSONNumberParsing {
    /// The powers of ten that a `Double` represents exactly.
    static let doublePowers: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
        1e20, 1e21, 1e22,
    ]

    /// The powers of ten that a `Float` represents exactly.
    static let floatPowers: [Float] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10]

    /// The parts of a decimal number: significand (when at most 19 digits), digit count, power of ten.
    struct Parts {
        /// The significant digits as an integer (exact when `digits <= 19`).
        var significand: UInt64 = 0
        /// The number of significant digits (after leading zeros).
        var digits = 0
        /// The power of ten applied to `significand`, when `exponentInRange`.
        var exponent = 0
        /// Whether the explicit exponent was small enough to be read.
        var exponentInRange = true
        /// Whether the number is negative.
        var negative = false
    }

    /// The value of a plain integer token as `T`, or nil (fraction, exponent, overflow, negative unsigned).
    static func integer<T: FixedWidthInteger>(
        _ base: UnsafePointer<UInt8>, _ token: JSONTape.Token, as type: T.Type = T.self
    ) -> T? {
        guard token.flags & (JSONTape.numberFraction | JSONTape.numberExponent) == 0 else { return nil }
        let negative = token.flags & JSONTape.numberNegative != 0
        var index = Int(token.start) + (negative ? 1 : 0)
        let end = Int(token.end)
        var magnitude: UInt64 = 0
        while index < end {
            let (times, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(UInt64(base[index] &- UInt8(ascii: "0")))
            guard !overflow, !carry else { return nil }
            magnitude = sum
            index += 1
        }
        if negative {
            if magnitude == 0 { return 0 }
            guard T.isSigned, magnitude - 1 <= UInt64(truncatingIfNeeded: T.max) else { return nil }
            return T(truncatingIfNeeded: 0 &- magnitude)
        }
        guard magnitude <= UInt64(truncatingIfNeeded: T.max) else { return nil }
        return T(truncatingIfNeeded: magnitude)
    }

    /// The parts of a number token.
    static func parts(_ base: UnsafePointer<UInt8>, _ token: JSONTape.Token) -> Parts {
        var result = Parts()
        var index = Int(token.start)
        let end = Int(token.end)
        if base[index] == UInt8(ascii: "-") {
            result.negative = true
            index += 1
        }
        var fraction = false
        while index < end {
            let byte = base[index]
            if byte == UInt8(ascii: ".") {
                fraction = true
            } else if byte | 0x20 == UInt8(ascii: "e") {
                break
            } else {
                let digit = UInt64(byte &- UInt8(ascii: "0"))
                if fraction { result.exponent -= 1 }
                if result.digits > 0 || digit != 0 {
                    result.digits += 1
                    if result.digits <= 19 { result.significand = result.significand &* 10 &+ digit }
                }
            }
            index += 1
        }
        if index < end {
            index += 1
            var negativeExponent = false
            if base[index] == UInt8(ascii: "-") || base[index] == UInt8(ascii: "+") {
                negativeExponent = base[index] == UInt8(ascii: "-")
                index += 1
            }
            var exponent = 0
            while index < end {
                exponent = exponent * 10 + Int(base[index] &- UInt8(ascii: "0"))
                if exponent > 100_000 {
                    result.exponentInRange = false
                    break
                }
                index += 1
            }
            result.exponent += negativeExponent ? -exponent : exponent
        }
        return result
    }

    /// The text of a token as a `String` (for the standard library's parsers).
    static func text(_ base: UnsafePointer<UInt8>, _ token: JSONTape.Token) -> String {
        String(
            decoding: UnsafeBufferPointer(start: base + Int(token.start), count: Int(token.end - token.start)),
            as: UTF8.self)
    }

    /// The zero of a token whose digits are all zeros, or nil when it has an exponent: Foundation rejects some
    /// of those (`0e1`…`0e9`, `0.00e1`) and accepts others (`0e10`, `0.0e8`, `-0e8`).
    static func zero<F: BinaryFloatingPoint>(_ token: JSONTape.Token, negative: Bool) -> F? {
        guard token.flags & JSONTape.numberExponent == 0 else { return nil }
        return negative ? -0.0 : 0.0
    }

    /// The value of a number token as a `Double`, or nil.
    static func double(_ base: UnsafePointer<UInt8>, _ token: JSONTape.Token) -> Double? {
        floatingPoint(base, token, exactDigits: 15, exactPowers: doublePowers)
    }

    /// The value of a number token as a `Float`, or nil.
    static func float(_ base: UnsafePointer<UInt8>, _ token: JSONTape.Token) -> Float? {
        floatingPoint(base, token, exactDigits: 7, exactPowers: floatPowers)
    }

    /// The value of a number token as `F`, or nil: computed exactly when the significand has at most
    /// `exactDigits` digits and the power of ten is one of `exactPowers` (both then exact in `F`, so one rounding),
    /// parsed by `F`'s own initializer otherwise.
    @inline(__always)
    private static func floatingPoint<F: BinaryFloatingPoint & LosslessStringConvertible>(
        _ base: UnsafePointer<UInt8>, _ token: JSONTape.Token, exactDigits: Int, exactPowers: [F]
    ) -> F? {
        let parts = Self.parts(base, token)
        if parts.digits == 0 { return zero(token, negative: parts.negative) }
        let maxExponent = exactPowers.count - 1
        var value: F
        if parts.digits <= exactDigits, parts.exponentInRange, parts.exponent >= -maxExponent,
            parts.exponent <= maxExponent
        {
            value = F(parts.significand)
            if parts.exponent >= 0 {
                value *= exactPowers[parts.exponent]
            } else {
                value /= exactPowers[-parts.exponent]
            }
            if parts.negative { value = -value }
        } else {
            guard let parsed = F(text(base, token)) else { return nil }
            value = parsed
        }
        guard value.isFinite, value.magnitude >= F.leastNormalMagnitude else { return nil }
        return value
    }
}
