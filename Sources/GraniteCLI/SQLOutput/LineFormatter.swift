// `sqlite3 -line` output (checked byte for byte against the sqlite3 3.40 shell).

import GraniteStorage

/// One `name = value` line per column, names right-aligned to the longest (at least 5 bytes), an empty line
/// between the rows of a statement; NULL is empty, text and blobs print as their bytes.
///
/// The shell measures names in bytes, not characters (its `%*s` pads to a byte count), so a non-ASCII name takes
/// fewer spaces than its character count suggests; doing the same keeps the output identical to sqlite3's.
struct LineFormatter: ResultFormatter {
    func format(columns: [String], rows: [[Value]], into out: inout [UInt8]) {
        let width = max(5, columns.map(\.utf8.count).max() ?? 0)
        for (position, row) in rows.enumerated() {
            if position > 0 { out.append(UInt8(ascii: "\n")) }
            for (name, value) in zip(columns, row) {
                out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: width - name.utf8.count))
                out.append(contentsOf: name.utf8)
                out.append(contentsOf: " = ".utf8)
                out.append(contentsOf: ShellText.bytes(value))
                out.append(UInt8(ascii: "\n"))
            }
        }
    }
}
