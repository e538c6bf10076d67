import GraniteStorage

/// `LIKE` and `GLOB` (SQLite's `patternCompare`).
package enum SQLPatternMatching {
    private struct Info {
        var matchAll: UInt32
        var matchOne: UInt32
        var matchSet: UInt32
        var noCase: Bool
    }

    private enum Outcome { case match, noMatch, noWildcardMatch }

    /// The maximum pattern length in bytes (`SQLITE_LIMIT_LIKE_PATTERN_LENGTH`).
    package static let maximumPatternLength = 50_000

    /// `value LIKE pattern [ESCAPE escape]`: NULL if any operand is NULL. ASCII letters match case-insensitively.
    ///
    /// `blobsNeverMatch` models the `SQLITE_LIKE_DOESNT_MATCH_BLOBS` build option (on in Debian's SQLite):
    /// a BLOB operand or pattern then yields 0.
    package static func like(
        _ value: Value, pattern: Value, escape: Value? = nil, blobsNeverMatch: Bool = false
    ) throws -> Value {
        if blobsNeverMatch && (value.isBlob || pattern.isBlob) { return .integer(0) }
        var esc: UInt32 = 0
        if let e = escape {
            guard let eb = e.sqlTextBytes else { return .null }
            if SQLTextCharacters.count(eb) != 1 {
                throw SQLEvaluationError("ESCAPE expression must be a single character")
            }
            var start = 0
            esc = SQLTextCharacters.read(eb, at: &start)
        }
        return try run(value, pattern, Info(matchAll: 0x25, matchOne: 0x5f, matchSet: 0, noCase: true), esc)
    }

    /// `value GLOB pattern`: NULL if either operand is NULL.
    package static func glob(_ value: Value, pattern: Value, blobsNeverMatch: Bool = false) throws -> Value {
        if blobsNeverMatch && (value.isBlob || pattern.isBlob) { return .integer(0) }
        return try run(value, pattern, Info(matchAll: 0x2a, matchOne: 0x3f, matchSet: 0x5b, noCase: false), 0x5b)
    }

    private static func run(_ value: Value, _ pattern: Value, _ info: Info, _ other: UInt32) throws -> Value {
        guard let pb = pattern.sqlTextBytes else { return .null }
        if pb.count > maximumPatternLength { throw SQLEvaluationError("LIKE or GLOB pattern too complex") }
        guard let sb = value.sqlTextBytes else { return .null }
        let p = SQLTextCharacters.codePoints(pb)
        let s = SQLTextCharacters.codePoints(sb)
        return .integer(compare(p, 0, s, 0, info, other) == .match ? 1 : 0)
    }

    @inline(__always)
    private static func lower(_ c: UInt32) -> UInt32 { (c >= 0x41 && c <= 0x5a) ? c + 32 : c }

    private static func compare(
        _ p: [UInt32], _ pStart: Int, _ s: [UInt32], _ sStart: Int, _ info: Info, _ other: UInt32
    ) -> Outcome {
        var pi = pStart
        var si = sStart
        var escapedAt = -1
        func readP() -> UInt32 {
            let c = p[pi]
            if c != 0 { pi += 1 }
            return c
        }
        func readS() -> UInt32 {
            let c = s[si]
            if c != 0 { si += 1 }
            return c
        }
        while true {
            var c = readP()
            if c == 0 { break }
            if c == info.matchAll {
                while true {
                    c = readP()
                    if c == info.matchAll { continue }
                    if c == info.matchOne && info.matchOne != 0 {
                        if readS() == 0 { return .noWildcardMatch }
                        continue
                    }
                    break
                }
                if c == 0 { return .match }
                if c == other {
                    if info.matchSet == 0 {
                        c = readP()
                        if c == 0 { return .noWildcardMatch }
                    } else {
                        while s[si] != 0 {
                            let r = compare(p, pi - 1, s, si, info, other)
                            if r != .noMatch { return r }
                            si += 1
                        }
                        return .noWildcardMatch
                    }
                }
                if c < 0x80 {
                    let c1 = info.noCase ? lower(c) : c
                    while true {
                        while s[si] != 0 && (info.noCase ? lower(s[si]) : s[si]) != c1 { si += 1 }
                        if s[si] == 0 { break }
                        si += 1
                        let r = compare(p, pi, s, si, info, other)
                        if r != .noMatch { return r }
                    }
                } else {
                    while true {
                        let c2 = readS()
                        if c2 == 0 { break }
                        if c2 != c { continue }
                        let r = compare(p, pi, s, si, info, other)
                        if r != .noMatch { return r }
                    }
                }
                return .noWildcardMatch
            }
            if c == other {
                if info.matchSet == 0 {
                    c = readP()
                    if c == 0 { return .noMatch }
                    escapedAt = pi
                } else {
                    var prior: UInt32 = 0
                    var seen = false
                    var invert = false
                    let sc = readS()
                    if sc == 0 { return .noMatch }
                    var c2 = readP()
                    if c2 == 0x5e {
                        invert = true
                        c2 = readP()
                    }
                    if c2 == 0x5d {
                        if sc == 0x5d { seen = true }
                        c2 = readP()
                    }
                    while c2 != 0 && c2 != 0x5d {
                        if c2 == 0x2d && p[pi] != 0x5d && p[pi] != 0 && prior > 0 {
                            c2 = readP()
                            if sc >= prior && sc <= c2 { seen = true }
                            prior = 0
                        } else {
                            if sc == c2 { seen = true }
                            prior = c2
                        }
                        c2 = readP()
                    }
                    if c2 == 0 || seen == invert { return .noMatch }
                    continue
                }
            }
            let c2 = readS()
            if c == c2 { continue }
            if info.noCase && c < 0x80 && c2 < 0x80 && lower(c) == lower(c2) { continue }
            if c == info.matchOne && pi != escapedAt && c2 != 0 { continue }
            return .noMatch
        }
        return s[si] == 0 ? .match : .noMatch
    }
}
