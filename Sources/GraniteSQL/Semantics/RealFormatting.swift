import GraniteStorage

/// SQLite-compatible rendering of REAL values as text.
///
/// SQLite 3.40 formats doubles with its own `printf` engine, which works in x87 80-bit `long double`
/// arithmetic; this file reproduces that engine (for `%!.15g`, `%!.20e` and `%.Nf`) digit for digit.
package enum SQLRealFormatting {
    /// The printf conversion kinds used by SQLite's value layer.
    enum Conversion { case float, exponent, generic }

    /// `%!.15g`: the text SQLite produces for a REAL value (`CAST(x AS TEXT)`, `x || ''`).
    package static func render(_ value: Double) -> String {
        format(value, precision: 15, conversion: .generic, altForm2: true)
    }

    /// `%.Nf` as SQLite's printf renders it (used by `round`).
    static func fixed(_ value: Double, digits: Int) -> String {
        format(value, precision: digits, conversion: .float, altForm2: false)
    }

    /// `%!.20e` (used by `quote` when `%!.15g` does not round-trip).
    static func exponent20(_ value: Double) -> String {
        format(value, precision: 20, conversion: .exponent, altForm2: true)
    }

    private static let roundingTable: [Double] = [
        5.0e-01, 5.0e-02, 5.0e-03, 5.0e-04, 5.0e-05, 5.0e-06, 5.0e-07, 5.0e-08, 5.0e-09, 5.0e-10,
    ]

    private static func digit(_ value: inout LongDouble, _ count: inout Int) -> UInt8 {
        if count <= 0 { return UInt8(ascii: "0") }
        count -= 1
        var d = 0
        if value >= 0 && value < 10 { d = Int(value) }
        let ld = LongDouble(d)
        value = (value - ld) * 10.0
        return UInt8(ascii: "0") + UInt8(truncatingIfNeeded: d)
    }

    /// printf's flags for a floating-point conversion, besides the precision.
    struct Style {
        /// The conversion letter's kind (`f`, `e`/`E`, `g`/`G`).
        var conversion: Conversion
        /// `!`: up to 26 significant digits, and a lone `.` becomes `.0`.
        var altForm2 = false
        /// `#`: always a decimal point, and `%g` keeps its trailing zeros.
        var alternate = false
        /// `+` or ` `: the character in front of a non-negative value.
        var signPrefix: UInt8? = nil
        /// `E`/`G`: an upper-case exponent letter.
        var uppercase = false
    }

    /// The largest precision SQLite's printf honours for floating-point conversions.
    static let maximumPrecision = 100_000_000

    /// `input` as SQLite's printf formats it with `precision`, `conversion` and (under `!`) `altForm2`.
    static func format(_ input: Double, precision: Int, conversion: Conversion, altForm2: Bool) -> String {
        var out: [UInt8] = []
        _ = append(input, precision: precision, style: Style(conversion: conversion, altForm2: altForm2), to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `input` formatted as SQLite's printf formats it with `precision` (negative: the default 6) and
    /// `style`; returns false when the result is `Inf` or `NaN`, which printf does not pad with zeros.
    /// Inlined so that `render` (every REAL shown as text) costs what it did before printf's flags existed.
    @inline(__always)
    static func append(_ input: Double, precision inputPrecision: Int, style: Style, to out: inout [UInt8]) -> Bool {
        var precision = inputPrecision < 0 ? 6 : min(inputPrecision, maximumPrecision)
        var realvalue = LongDouble(input)
        var prefix: UInt8? = style.signPrefix
        if realvalue < 0 {
            realvalue = -realvalue
            prefix = UInt8(ascii: "-")
        }
        var xtype = style.conversion
        if xtype == .generic && precision > 0 { precision -= 1 }
        var rounder = roundingOffset(precision: precision)
        if xtype == .float {
            let rx = Double(realvalue)
            let ex = -1023 + Int((rx.bitPattern >> 52) & 0x7ff)
            if precision + (ex / 3) < 15 { rounder += Double(realvalue * LongDouble(3e-16 as Double)) }
            realvalue += LongDouble(rounder)
        }
        if input.isNaN {
            out.append(contentsOf: "NaN".utf8)
            return false
        }
        var exp = 0
        if realvalue > 0 {
            exp = normalize(&realvalue)
            if exp > 350 {
                if let p = prefix { out.append(p) }
                out.append(contentsOf: "Inf".utf8)
                return false
            }
        }
        if xtype != .float {
            realvalue += LongDouble(rounder)
            if realvalue >= 10.0 {
                realvalue *= LongDouble(0.1 as Double)
                exp += 1
            }
        }
        var flagRTZ: Bool
        if xtype == .generic {
            flagRTZ = !style.alternate
            if exp < -4 || exp > precision {
                xtype = .exponent
            } else {
                precision -= exp
                xtype = .float
            }
        } else {
            flagRTZ = style.altForm2
        }
        var e2 = xtype == .exponent ? 0 : exp
        var nsd = 16 + (style.altForm2 ? 10 : 0)
        let flagDP = precision > 0 || style.alternate || style.altForm2
        let start = out.count
        out.reserveCapacity(start + 32 + max(e2, 0) + precision)
        if let p = prefix { out.append(p) }
        if e2 < 0 {
            out.append(UInt8(ascii: "0"))
        } else {
            while e2 >= 0 {
                out.append(digit(&realvalue, &nsd))
                e2 -= 1
            }
        }
        if flagDP { out.append(UInt8(ascii: ".")) }
        e2 += 1
        while e2 < 0 {
            out.append(UInt8(ascii: "0"))
            precision -= 1
            e2 += 1
        }
        while precision > 0 {
            out.append(digit(&realvalue, &nsd))
            precision -= 1
        }
        if flagRTZ && flagDP {
            while out.count > start, out[out.count - 1] == UInt8(ascii: "0") { out.removeLast() }
            if out.count > start, out[out.count - 1] == UInt8(ascii: ".") {
                if style.altForm2 { out.append(UInt8(ascii: "0")) } else { out.removeLast() }
            }
        }
        if xtype == .exponent { appendExponent(exp, uppercase: style.uppercase, to: &out) }
        return true
    }

    /// The half-unit of the last digit that `precision` digits after the point keep, which the digits are
    /// rounded with.
    @inline(__always)
    private static func roundingOffset(precision: Int) -> Double {
        var idx = precision & 0xfff
        var rounder = roundingTable[idx % 10]
        while idx >= 10 {
            rounder *= 1.0e-10
            idx -= 10
        }
        return rounder
    }

    /// Scales the positive `realvalue` into [1, 10) and returns its decimal exponent; past 350 (the value is
    /// then infinite) the scaling stops.
    @inline(__always)
    private static func normalize(_ realvalue: inout LongDouble) -> Int {
        var exp = 0
        var scale: LongDouble = 1.0
        while realvalue >= LongDouble(1e100 as Double) * scale && exp <= 350 {
            scale *= LongDouble(1e100 as Double)
            exp += 100
        }
        while realvalue >= 1e10 * scale && exp <= 350 {
            scale *= 1e10
            exp += 10
        }
        while realvalue >= 10.0 * scale && exp <= 350 {
            scale *= 10.0
            exp += 1
        }
        realvalue /= scale
        while realvalue < LongDouble(1e-8 as Double) {
            realvalue *= 1e8
            exp -= 8
        }
        while realvalue < 1.0 {
            realvalue *= 10.0
            exp -= 1
        }
        return exp
    }

    /// Appends the exponent `exp` as SQLite's printf writes it: `e` (or `E`), a sign and at least two digits.
    @inline(__always)
    private static func appendExponent(_ exp: Int, uppercase: Bool, to out: inout [UInt8]) {
        var e = exp
        out.append(uppercase ? UInt8(ascii: "E") : UInt8(ascii: "e"))
        if e < 0 {
            out.append(UInt8(ascii: "-"))
            e = -e
        } else {
            out.append(UInt8(ascii: "+"))
        }
        if e >= 100 {
            out.append(UInt8(ascii: "0") + UInt8(e / 100))
            e %= 100
        }
        out.append(UInt8(ascii: "0") + UInt8(e / 10))
        out.append(UInt8(ascii: "0") + UInt8(e % 10))
    }
}
