import GraniteStorage

extension SQLDateTime {
    /// The date and time function names.
    static let functionNames: Set<String> = ["date", "time", "datetime", "julianday", "unixepoch", "strftime"]

    /// Whether calling the date and time function `name` with `args` reads the clock (no time value, or `'now'`)
    /// or the time zone (`localtime`, `utc`): what SQLite's `sqlite3NotPureFunc` refuses in indexes and `CHECK`
    /// constraints. As in SQLite's `isDate`, a call that returns NULL before reaching such an argument (a NULL
    /// or unparsable value, a bad modifier before it) does not.
    static func readsClockOrZone(_ name: String, _ args: [Value]) -> Bool {
        var values = args[...]
        if name == "strftime" {
            guard let format = values.first, format.sqlTextBytes != nil else { return false }
            values = values.dropFirst()
        }
        var p = State()
        guard let first = values.first else { return true }
        switch first {
        case .integer, .real:
            setRawDateNumber(&p, first.sqlReal)
        default:
            guard let z = first.sqlTextBytes else { return false }
            let bytes = Bytes(z)
            if lowerASCII(bytes.b[0..<bytes.length]) == Array("now".utf8) { return true }
            if parseDateOrTime(bytes, &p) { return false }
        }
        for (i, a) in values.dropFirst().enumerated() {
            guard let z = a.sqlTextBytes else { return false }
            let bytes = Bytes(z)
            let lower = lowerASCII(bytes.b[0..<bytes.length])
            if lower == Array("localtime".utf8) || lower == Array("utc".utf8) { return true }
            if parseModifier(bytes, &p, i + 1) { return false }
        }
        return false
    }
}
