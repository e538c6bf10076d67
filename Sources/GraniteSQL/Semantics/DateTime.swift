import GraniteStorage

#if canImport(Glibc)
    import Glibc
#endif

/// SQLite's date and time functions: `date`, `time`, `datetime`, `julianday`, `unixepoch`, `strftime`.
///
/// A port of SQLite 3.40's `date.c`. Differences: the `localtime` and `utc` modifiers are accepted but are
/// no-ops (times are always UTC), and `'now'` reads the system clock on every call rather than once per statement.
package enum SQLDateTime {
    struct State {
        var iJD: Int64 = 0
        var Y = 0, M = 0, D = 0
        var h = 0, m = 0
        var tz = 0
        var s: Double = 0
        var validJD = false, rawS = false, validYMD = false, validHMS = false, validTZ = false
        var tzSet = false, isError = false

        mutating func setError() {
            self = State()
            isError = true
        }
    }

    static let maxJD: Int64 = 464_269_060_799_999

    @inline(__always) static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
    @inline(__always) static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || (c >= 0x09 && c <= 0x0d) }

    /// A NUL-terminated byte view so the C-style scanners can look one past the end.
    struct Bytes {
        var b: [UInt8]
        init(_ s: [UInt8]) {
            var a: [UInt8] = []
            for c in s {
                if c == 0 { break }
                a.append(c)
            }
            a.append(0)
            b = a
        }
        subscript(_ i: Int) -> UInt8 { i < b.count ? b[i] : 0 }
        var length: Int { b.count - 1 }
    }

    /// `getDigits`: spec is (digits, min, max, separator or 0).
    static func getDigits(_ z: Bytes, _ start: Int, _ specs: [(Int, Int, Int, UInt8)]) -> [Int]? {
        var i = start
        var out: [Int] = []
        for (n, lo, hi, next) in specs {
            var val = 0
            for _ in 0..<n {
                if !isDigit(z[i]) { return nil }
                val = val * 10 + Int(z[i] - 0x30)
                i += 1
            }
            if val < lo || val > hi || (next != 0 && next != z[i]) { return nil }
            out.append(val)
            i += 1
        }
        return out
    }

    static func parseTimezone(_ z: Bytes, _ start: Int, _ p: inout State) -> Bool {
        var i = start
        while isSpace(z[i]) { i += 1 }
        p.tz = 0
        let c = z[i]
        var sgn = 0
        if c == UInt8(ascii: "-") {
            sgn = -1
        } else if c == UInt8(ascii: "+") {
            sgn = 1
        } else if c == UInt8(ascii: "Z") || c == UInt8(ascii: "z") {
            i += 1
            while isSpace(z[i]) { i += 1 }
            p.tzSet = true
            return z[i] != 0
        } else {
            return c != 0
        }
        i += 1
        guard let d = getDigits(z, i, [(2, 0, 14, UInt8(ascii: ":")), (2, 0, 59, 0)]) else { return true }
        i += 5
        p.tz = sgn * (d[1] + d[0] * 60)
        while isSpace(z[i]) { i += 1 }
        p.tzSet = true
        return z[i] != 0
    }

    /// Returns true on error.
    static func parseHhMmSs(_ z: Bytes, _ start: Int, _ p: inout State) -> Bool {
        var i = start
        guard let hm = getDigits(z, i, [(2, 0, 24, UInt8(ascii: ":")), (2, 0, 59, 0)]) else { return true }
        i += 5
        var s = 0
        var ms = 0.0
        if z[i] == UInt8(ascii: ":") {
            i += 1
            guard let sv = getDigits(z, i, [(2, 0, 59, 0)]) else { return true }
            s = sv[0]
            i += 2
            if z[i] == UInt8(ascii: ".") && isDigit(z[i + 1]) {
                var scale = 1.0
                i += 1
                while isDigit(z[i]) {
                    ms = ms * 10.0 + Double(z[i] - 0x30)
                    scale *= 10.0
                    i += 1
                }
                ms /= scale
            }
        }
        p.validJD = false
        p.rawS = false
        p.validHMS = true
        p.h = hm[0]
        p.m = hm[1]
        p.s = Double(s) + ms
        if parseTimezone(z, i, &p) { return true }
        p.validTZ = p.tz != 0
        return false
    }

    static func computeJD(_ p: inout State) {
        if p.validJD { return }
        var Y = 2000
        var M = 1
        var D = 1
        if p.validYMD {
            Y = p.Y
            M = p.M
            D = p.D
        }
        if Y < -4713 || Y > 9999 || p.rawS {
            p.setError()
            return
        }
        if M <= 2 {
            Y -= 1
            M += 12
        }
        let A = Y / 100
        let B = 2 - A + (A / 4)
        let X1 = 36525 * (Y + 4716) / 100
        let X2 = 306001 * (M + 1) / 10000
        p.iJD = Int64((Double(X1 + X2 + D + B) - 1524.5) * 86_400_000)
        p.validJD = true
        if p.validHMS {
            p.iJD += Int64(p.h * 3_600_000 + p.m * 60000) + SQLNumberParsing.truncatingInt(p.s * 1000 + 0.5)
            if p.validTZ {
                p.iJD -= Int64(p.tz) * 60000
                p.validYMD = false
                p.validHMS = false
                p.validTZ = false
            }
        }
    }

    static func parseYyyyMmDd(_ z: Bytes, _ p: inout State) -> Bool {
        var i = 0
        var neg = false
        if z[0] == UInt8(ascii: "-") {
            i = 1
            neg = true
        }
        guard
            let d = getDigits(
                z, i, [(4, 0, 9999, UInt8(ascii: "-")), (2, 1, 12, UInt8(ascii: "-")), (2, 1, 31, 0)])
        else { return true }
        i += 10
        while isSpace(z[i]) || z[i] == UInt8(ascii: "T") { i += 1 }
        if !parseHhMmSs(z, i, &p) {
            // time parsed
        } else if z[i] == 0 {
            p.validHMS = false
        } else {
            return true
        }
        p.validJD = false
        p.validYMD = true
        p.Y = neg ? -d[0] : d[0]
        p.M = d[1]
        p.D = d[2]
        if p.validTZ { computeJD(&p) }
        return false
    }

    static func setRawDateNumber(_ p: inout State, _ r: Double) {
        p.s = r
        p.rawS = true
        if r >= 0.0 && r < 5373484.5 {
            p.iJD = Int64(r * 86_400_000.0 + 0.5)
            p.validJD = true
        }
    }

    static func currentJD() -> Int64 {
        #if canImport(Glibc)
            var ts = timespec()
            clock_gettime(CLOCK_REALTIME, &ts)
            return 210_866_760_000_000 + Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
        #else
            return 210_866_760_000_000
        #endif
    }

    static func lowerASCII(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        bytes.map { ($0 >= 0x41 && $0 <= 0x5a) ? $0 + 32 : $0 }
    }

    static func parseDateOrTime(_ z: Bytes, _ p: inout State) -> Bool {
        if !parseYyyyMmDd(z, &p) { return false }
        if !parseHhMmSs(z, 0, &p) { return false }
        if lowerASCII(z.b[0..<z.length]) == Array("now".utf8) {
            p.iJD = currentJD()
            p.validJD = true
            return false
        }
        let (r, rc) = SQLNumberParsing.atof(Array(z.b[0..<z.length]))
        if rc > 0 {
            setRawDateNumber(&p, r)
            return false
        }
        return true
    }

    static func validJulianDay(_ iJD: Int64) -> Bool { iJD >= 0 && iJD <= maxJD }

    static func computeYMD(_ p: inout State) {
        if p.validYMD { return }
        if !p.validJD {
            p.Y = 2000
            p.M = 1
            p.D = 1
        } else if !validJulianDay(p.iJD) {
            p.setError()
            return
        } else {
            let Z = Int((p.iJD + 43_200_000) / 86_400_000)
            var A = Int((Double(Z) - 1867216.25) / 36524.25)
            A = Z + 1 + A - (A / 4)
            let B = A + 1524
            let C = Int((Double(B) - 122.1) / 365.25)
            let D = (36525 * (C & 32767)) / 100
            let E = Int(Double(B - D) / 30.6001)
            let X1 = Int(30.6001 * Double(E))
            p.D = B - D - X1
            p.M = E < 14 ? E - 1 : E - 13
            p.Y = p.M > 2 ? C - 4716 : C - 4715
        }
        p.validYMD = true
    }

    static func computeHMS(_ p: inout State) {
        if p.validHMS { return }
        computeJD(&p)
        var s = Int((p.iJD + 43_200_000) % 86_400_000)
        p.s = Double(s) / 1000.0
        s = Int(p.s)
        p.s -= Double(s)
        p.h = s / 3600
        s -= p.h * 3600
        p.m = s / 60
        p.s += Double(s - p.m * 60)
        p.rawS = false
        p.validHMS = true
    }

    static func computeYMDHMS(_ p: inout State) {
        computeYMD(&p)
        computeHMS(&p)
    }

    static func clearYMDHMSTZ(_ p: inout State) {
        p.validYMD = false
        p.validHMS = false
        p.validTZ = false
    }

    /// `isDate`: the parsed and modified time, or `nil` (SQL NULL).
    static func isDate(_ args: ArraySlice<Value>) -> State? {
        var p = State()
        guard let first = args.first else {
            p.iJD = currentJD()
            p.validJD = true
            return p
        }
        switch first {
        case .integer, .real:
            setRawDateNumber(&p, first.sqlReal)
        default:
            guard let z = first.sqlTextBytes else { return nil }
            if parseDateOrTime(Bytes(z), &p) { return nil }
        }
        for (i, a) in args.dropFirst().enumerated() {
            guard let z = a.sqlTextBytes else { return nil }
            if parseModifier(Bytes(z), &p, i + 1) { return nil }
        }
        computeJD(&p)
        if p.isError || !validJulianDay(p.iJD) { return nil }
        return p
    }

    static func pad(_ v: Int, _ width: Int) -> String {
        let neg = v < 0
        var s = String(neg ? -v : v)
        while s.count < width - (neg ? 1 : 0) { s = "0" + s }
        return neg ? "-" + s : s
    }

    static func digits(_ v: Int) -> Character { Character(Unicode.Scalar(UInt8(48 + ((v % 10) + 10) % 10))) }

    static func dateString(_ x: State) -> String {
        let Y = abs(x.Y)
        var s = ""
        if x.Y < 0 { s.append("-") }
        for d in [Y / 1000, Y / 100, Y / 10, Y] { s.append(digits(d)) }
        s.append("-")
        s.append(digits(x.M / 10))
        s.append(digits(x.M))
        s.append("-")
        s.append(digits(x.D / 10))
        s.append(digits(x.D))
        return s
    }

    static func timeString(_ x: State) -> String {
        let sec = Int(x.s)
        var s = ""
        for (a, b) in [(x.h, ":"), (x.m, ":"), (sec, "")] {
            s.append(digits(a / 10))
            s.append(digits(a))
            s += b
        }
        return s
    }

    /// `julianday(time, modifiers…)`.
    package static func julianday(_ args: [Value]) -> Value {
        guard var x = isDate(args[...]) else { return .null }
        computeJD(&x)
        return .real(Double(x.iJD) / 86_400_000.0)
    }

    /// `unixepoch(time, modifiers…)`.
    package static func unixepoch(_ args: [Value]) -> Value {
        guard var x = isDate(args[...]) else { return .null }
        computeJD(&x)
        return .integer(x.iJD / 1000 - 210_866_760_000)
    }

    /// `date(time, modifiers…)`.
    package static func date(_ args: [Value]) -> Value {
        guard var x = isDate(args[...]) else { return .null }
        computeYMD(&x)
        return .text(dateString(x))
    }

    /// `time(time, modifiers…)`.
    package static func time(_ args: [Value]) -> Value {
        guard var x = isDate(args[...]) else { return .null }
        computeHMS(&x)
        return .text(timeString(x))
    }

    /// `datetime(time, modifiers…)`.
    package static func datetime(_ args: [Value]) -> Value {
        guard var x = isDate(args[...]) else { return .null }
        computeYMDHMS(&x)
        return .text(dateString(x) + " " + timeString(x))
    }

    /// `strftime(format, time, modifiers…)`.
    package static func strftime(_ args: [Value]) -> Value {
        guard let fmtValue = args.first, let fmt = fmtValue.sqlTextBytes else { return .null }
        guard var x = isDate(args.dropFirst()) else { return .null }
        computeJD(&x)
        computeYMDHMS(&x)
        var out: [UInt8] = []
        let f = Bytes(fmt)
        var i = 0
        while f[i] != 0 {
            if f[i] != UInt8(ascii: "%") {
                out.append(f[i])
                i += 1
                continue
            }
            i += 1
            var piece: String
            switch f[i] {
            case UInt8(ascii: "d"): piece = pad(x.D, 2)
            case UInt8(ascii: "f"):
                let s = min(x.s, 59.999)
                piece = SQLRealFormatting.fixed(s, digits: 3)
                while piece.utf8.count < 6 { piece = "0" + piece }
            case UInt8(ascii: "H"): piece = pad(x.h, 2)
            case UInt8(ascii: "W"), UInt8(ascii: "j"):
                var y = x
                y.validJD = false
                y.M = 1
                y.D = 1
                computeJD(&y)
                let nDay = Int((x.iJD - y.iJD + 43_200_000) / 86_400_000)
                if f[i] == UInt8(ascii: "W") {
                    let wd = Int(((x.iJD + 43_200_000) / 86_400_000) % 7)
                    piece = pad((nDay + 7 - wd) / 7, 2)
                } else {
                    piece = pad(nDay + 1, 3)
                }
            case UInt8(ascii: "J"):
                piece = SQLRealFormatting.format(
                    Double(x.iJD) / 86_400_000.0, precision: 16, conversion: .generic, altForm2: false)
            case UInt8(ascii: "m"): piece = pad(x.M, 2)
            case UInt8(ascii: "M"): piece = pad(x.m, 2)
            case UInt8(ascii: "s"): piece = String(x.iJD / 1000 - 210_866_760_000)
            case UInt8(ascii: "S"): piece = pad(Int(x.s), 2)
            case UInt8(ascii: "w"): piece = String((x.iJD + 129_600_000) / 86_400_000 % 7)
            case UInt8(ascii: "Y"): piece = pad(x.Y, 4)
            case UInt8(ascii: "%"): piece = "%"
            default: return .null
            }
            out.append(contentsOf: piece.utf8)
            i += 1
        }
        return .text(utf8: out)
    }
}
