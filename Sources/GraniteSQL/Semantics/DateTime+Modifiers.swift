// The modifiers of SQLite's date and time functions (`+1 day`, `start of month`, `weekday 0`, `unixepoch`, …),
// ported from `parseModifier` in SQLite 3.40's date.c.

import GraniteStorage

extension SQLDateTime {
    static let transforms: [(name: String, limit: Double, xform: Double)] = [
        ("second", Double(Float(4.6427e+14)), 1.0), ("minute", Double(Float(7.7379e+12)), 60.0),
        ("hour", Double(Float(1.2897e+11)), 3600.0), ("day", Double(Float(5373485.0)), 86400.0),
        ("month", Double(Float(176546.0)), 2_592_000.0), ("year", Double(Float(14713.0)), 31_536_000.0),
    ]

    /// Applies the modifier `zIn` (argument number `idx`) to `p`, as SQLite's `parseModifier`; returns true on
    /// error.
    static func parseModifier(_ zIn: Bytes, _ p: inout State, _ idx: Int) -> Bool {
        let text = zIn.b[0..<zIn.length]
        let lower = lowerASCII(text)
        let first = lower.first ?? 0
        func equals(_ s: String) -> Bool { lower == Array(s.utf8) }
        switch first {
        case UInt8(ascii: "a"):
            guard equals("auto") else { return true }
            return autoModifier(&p, idx)
        case UInt8(ascii: "j"):
            guard equals("julianday") else { return true }
            if idx > 1 { return true }
            if p.validJD && p.rawS {
                p.rawS = false
                return false
            }
            return true
        case UInt8(ascii: "l"):
            return !equals("localtime")  // treated as a no-op: Granite works in UTC
        case UInt8(ascii: "u"):
            if equals("unixepoch") && p.rawS { return unixEpochModifier(&p, idx) }
            if equals("utc") { return utcModifier(&p) }
            return true
        case UInt8(ascii: "w"):
            return weekdayModifier(text, lower, &p)
        case UInt8(ascii: "s"):
            return startOfModifier(lower, &p)
        case UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return offsetModifier(zIn, lower, &p)
        default:
            return true
        }
    }

    /// `auto`: a raw number is read as a Julian day number or as Unix time, whichever is in range.
    static func autoModifier(_ p: inout State, _ idx: Int) -> Bool {
        if idx > 1 { return true }
        if !p.rawS || p.validJD {
            p.rawS = false
            return false
        }
        if p.s >= -210_866_760_000 && p.s <= 253_402_300_799 {
            setUnixTime(&p)
            return false
        }
        return true
    }

    /// `unixepoch` after a raw number: the number is Unix time.
    static func unixEpochModifier(_ p: inout State, _ idx: Int) -> Bool {
        if idx > 1 { return true }
        let r = p.s * 1000.0 + 210_866_760_000_000.0
        if r >= 0.0 && r < 464_269_060_800_000.0 {
            setUnixTime(&p)
            return false
        }
        return true
    }

    /// Takes the raw number `p.s` as Unix time in seconds: the time becomes its Julian day in milliseconds, and
    /// every broken-down field is cleared.
    static func setUnixTime(_ p: inout State) {
        let r = p.s * 1000.0 + 210_866_760_000_000.0
        clearYMDHMSTZ(&p)
        p.iJD = SQLNumberParsing.truncatingInt(r + 0.5)
        p.validJD = true
        p.rawS = false
    }

    /// `utc`: times being UTC already, it converts nothing.
    static func utcModifier(_ p: inout State) -> Bool {
        // No-op (see the type's documentation), but it does settle the time like SQLite's.
        if !p.tzSet {
            computeJD(&p)
            let jd = p.iJD
            p = State()
            p.iJD = jd
            p.validJD = true
            p.tzSet = true
        }
        return false
    }

    /// `weekday N`: advances to the next day that is weekday N (0 is Sunday), unless the date already is.
    static func weekdayModifier(_ text: ArraySlice<UInt8>, _ lower: [UInt8], _ p: inout State) -> Bool {
        guard lower.count >= 8, Array(lower[0..<8]) == Array("weekday ".utf8) else { return true }
        let (r, rc) = SQLNumberParsing.atof(Array(text.dropFirst(8)))
        guard rc > 0, r >= 0.0, r < 7.0, Double(Int(r)) == r else { return true }
        let n = Int64(r)
        computeYMDHMS(&p)
        p.validTZ = false
        p.validJD = false
        computeJD(&p)
        var Z = ((p.iJD + 129_600_000) / 86_400_000) % 7
        if Z > n { Z -= 7 }
        p.iJD += (n - Z) * 86_400_000
        clearYMDHMSTZ(&p)
        return false
    }

    /// `start of month`, `start of year`, `start of day`.
    static func startOfModifier(_ lower: [UInt8], _ p: inout State) -> Bool {
        guard lower.count >= 9, Array(lower[0..<9]) == Array("start of ".utf8) else { return true }
        if !p.validJD && !p.validYMD && !p.validHMS { return true }
        computeYMD(&p)
        p.validHMS = true
        p.h = 0
        p.m = 0
        p.s = 0
        p.rawS = false
        p.validTZ = false
        p.validJD = false
        let rest = Array(lower[9...])
        if rest == Array("month".utf8) {
            p.D = 1
            return false
        } else if rest == Array("year".utf8) {
            p.M = 1
            p.D = 1
            return false
        } else if rest == Array("day".utf8) {
            return false
        }
        return true
    }

    /// `±N unit` (seconds to years) or `±HH:MM[:SS.SSS]`: shifts the time.
    static func offsetModifier(_ zIn: Bytes, _ lower: [UInt8], _ p: inout State) -> Bool {
        var n = 1
        while zIn[n] != 0 && zIn[n] != UInt8(ascii: ":") && !isSpace(zIn[n]) { n += 1 }
        let (r0, rc) = SQLNumberParsing.atof(Array(zIn.b[0..<n]))
        if rc <= 0 { return true }
        var r = r0
        if zIn[n] == UInt8(ascii: ":") {
            let start = isDigit(zIn[0]) ? 0 : 1
            var tx = State()
            if parseHhMmSs(zIn, start, &tx) { return true }
            computeJD(&tx)
            tx.iJD -= 43_200_000
            let day = tx.iJD / 86_400_000
            tx.iJD -= day * 86_400_000
            if zIn[0] == UInt8(ascii: "-") { tx.iJD = -tx.iJD }
            computeJD(&p)
            clearYMDHMSTZ(&p)
            p.iJD = p.iJD &+ tx.iJD
            return false
        }
        var k = n
        while isSpace(zIn[k]) { k += 1 }
        var unit = Array(lower[k...])
        if unit.count > 10 || unit.count < 3 { return true }
        if unit.last == UInt8(ascii: "s") { unit.removeLast() }
        computeJD(&p)
        var failed = true
        let rounder = r < 0 ? -0.5 : 0.5
        for (i, t) in transforms.enumerated() where Array(t.name.utf8) == unit && r > -t.limit && r < t.limit {
            if i == 4 {
                computeYMDHMS(&p)
                p.M += Int(r)
                let x = p.M > 0 ? (p.M - 1) / 12 : (p.M - 12) / 12
                p.Y += x
                p.M -= x * 12
                p.validJD = false
                r -= Double(Int(r))
            } else if i == 5 {
                computeYMDHMS(&p)
                p.Y += Int(r)
                p.validJD = false
                r -= Double(Int(r))
            }
            computeJD(&p)
            p.iJD = p.iJD &+ SQLNumberParsing.truncatingInt(r * 1000.0 * t.xform + rounder)
            failed = false
            break
        }
        clearYMDHMSTZ(&p)
        return failed
    }
}
