/// Random inputs for the text→REAL and REAL→text differential tests: decimal texts of every shape SQLite's
/// converter distinguishes, texts that sit next to a rounding boundary, and doubles from every binade.
struct RealConversionGenerator {
    var src: ValueSource

    /// Texts whose conversion has a rule of its own: signs, spaces, missing digits on either side of the point,
    /// incomplete exponents, integers past Int64, exponents past the double range, words and hex.
    static let edgeTexts: [String] = [
        "567758.326114083", "-567758.326114083", "1e", "1e+", "1e-", "1.e5", ".5", "5.", "-0.0", "+0.0", "-0", "0",
        ".", "-", "+", "", " ", "e5", ".e5", "-.5e-3", " 1.5 ", "\t2.5e3\n", "1.5x", "1.5e3x", "12x", "1 2", "inf",
        "-inf", "nan", "Infinity", "0x10", "0x1p3", "1_000", "1e308", "1.7976931348623157e308",
        "1.7976931348623158e308", "1.7976931348623159e308", "2e308", "1e309", "-1e309", "1e400", "1e-400",
        "4.9406564584124654e-324", "2.4703282292062327e-324", "2.4703282292062328e-324", "5e-324", "3e-324",
        "2.2250738585072011e-308", "2.2250738585072014e-308", "2.225073858507201e-308", "1e-307", "1e-308",
        "1e-320", "1e-341", "1e-342", "1e-343", "9223372036854775807", "9223372036854775808",
        "-9223372036854775808", "-9223372036854775809", "18446744073709551616", "99999999999999999999",
        "123456789012345678901234567890", "0.1", "0.2", "0.3", "1.1", "2.675", "1.005", "9007199254740993",
        "9007199254740993.0", "1e22", "1e23", "8.98846567431158e307", "1e10000", "1e99999999999999999999",
        "1e-99999999999999999999", "0e999999", "00000000000000000000001.5", "1.50000000000000000000000000001",
        "0.000000000000000000000000000000000000000001",
    ]

    /// A decimal text: most are well-formed numbers, some carry spaces, signs or trailing junk.
    mutating func decimalText() -> String {
        switch src.int(0...9) {
        case 0: return src.pick(Self.edgeTexts)
        case 1: return nearBoundaryText()
        case 2: return "\(randomDouble())"
        case 3: return bigIntegerText()
        case 4: return decorated(randomDigitsText())
        default: return randomDigitsText()
        }
    }

    /// A token the SQL lexer reads as one numeric literal (no sign, no spaces).
    mutating func literalText() -> String {
        switch src.int(0...5) {
        case 0:
            let text = bigIntegerText()
            return text.hasPrefix("-") ? String(text.dropFirst()) : text
        case 1:
            let text = nearBoundaryText()
            return text.hasPrefix("-") ? String(text.dropFirst()) : text
        default: return randomDigitsText(signed: false)
        }
    }

    /// 1–25 random digits, with a decimal point somewhere (or none) and often an exponent.
    mutating func randomDigitsText(signed: Bool = true) -> String {
        var digits = ""
        let count = src.int(1...25)
        for k in 0..<count {
            let digit = k == 0 && src.int(0...9) > 0 ? src.int(1...9) : src.int(0...9)
            digits.append(Character(Unicode.Scalar(UInt8(0x30 + digit))))
        }
        var text = signed && src.int(0...3) == 0 ? "-" : ""
        if src.bool() {
            let point = digits.index(digits.startIndex, offsetBy: src.int(0...count))
            text += digits[..<point] + "." + digits[point...]
        } else {
            text += digits
        }
        if src.bool() {
            text += src.pick(["e", "E", "e+", "e-"]) + "\(exponent())"
        }
        return text
    }

    /// An exponent that mostly stays within the double range but sometimes crosses its ends.
    mutating func exponent() -> Int {
        switch src.int(0...3) {
        case 0: return src.int(290...345)
        case 1: return src.int(0...400)
        default: return src.int(0...30)
        }
    }

    /// Spaces around, a plus sign, or trailing text.
    mutating func decorated(_ text: String) -> String {
        switch src.int(0...3) {
        case 0: return " " + text + "  "
        case 1: return "+" + text
        case 2: return text + src.pick(["x", "e", ".", " 1", "e+"])
        default: return "\t" + text
        }
    }

    /// An integer of 19–25 digits: around and beyond Int64's range.
    mutating func bigIntegerText() -> String {
        var text = src.int(0...2) == 0 ? "-" : ""
        text += "\(src.int(1...9))"
        for _ in 0..<src.int(17...24) { text += "\(src.int(0...9))" }
        return text
    }

    /// A text within a few units of the 20th significant digit of the halfway point between two adjacent
    /// doubles, or that halfway point cut short: the inputs where rounding twice and rounding once part ways.
    mutating func nearBoundaryText() -> String {
        let d = abs(randomDouble())
        guard d.isFinite, d > 0, d.nextUp.isFinite else { return "0.5" }
        #if arch(x86_64) || arch(i386)
            let text = "\((Float80(d) + Float80(d.nextUp)) / 2)"
        #else
            let text = "\(d)" + "5"
        #endif
        switch src.int(0...2) {
        case 0: return text
        case 1:
            // Cut the mantissa digits short, keeping any exponent.
            let parts = text.split(separator: "e", maxSplits: 1)
            let mantissa = parts[0].prefix(src.int(1...max(1, parts[0].count)))
            return String(mantissa) + (parts.count > 1 ? "e" + parts[1] : "")
        default: return "-" + text
        }
    }

    /// A finite double from anywhere: random bits, subnormals, values near 1, short decimal fractions.
    mutating func randomDouble() -> Double {
        var bits = UInt64.random(in: 0...UInt64.max, using: &src.rng)
        switch src.int(0...5) {
        case 0: break
        case 1: bits &= 0x800F_FFFF_FFFF_FFFF  // subnormal or zero
        case 2: bits = bits & 0x800F_FFFF_FFFF_FFFF | UInt64(src.int(1000...1100)) << 52
        case 3: return Double(src.int(-10_000_000...10_000_000)) / src.pick([1, 10, 100, 1000, 1e6, 1e9, 1e15])
        case 4: return src.pick(ValueSource.edgeReals)
        default: bits = bits & 0x800F_FFFF_FFFF_FFFF | UInt64(src.int(1...2046)) << 52
        }
        let d = Double(bitPattern: bits)
        return d.isFinite ? d : 1.5
    }
}
