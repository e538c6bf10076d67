// `sqlite3 -line` output (checked byte for byte against the sqlite3 3.40 shell).

import GraniteStorage

/// One `name = value` line per column, names right-aligned to the longest (at least 5 characters), an empty
/// line between the rows of a statement; NULL is empty, text and blobs print as their bytes.
struct LineFormatter: ResultFormatter {
    func format(columns: [String], rows: [[Value]], into out: inout [UInt8]) {
        let width = max(5, columns.map { ShellText.width($0.utf8) }.max() ?? 0)
        for (position, row) in rows.enumerated() {
            if position > 0 { out.append(UInt8(ascii: "\n")) }
            for (name, value) in zip(columns, row) {
                out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: width - ShellText.width(name.utf8)))
                out.append(contentsOf: name.utf8)
                out.append(contentsOf: " = ".utf8)
                out.append(contentsOf: ShellText.bytes(value))
                out.append(UInt8(ascii: "\n"))
            }
        }
    }
}
