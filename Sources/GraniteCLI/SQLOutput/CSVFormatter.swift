// `sqlite3 -csv` compatible output (verified byte for byte against the sqlite3 3.40 shell).

import GraniteStorage

/// CSV exactly as the `sqlite3 -csv [-header]` shell prints it.
///
/// Rules (from the 3.40 shell's `output_csv`, checked empirically):
/// - each field is the value's text as a C string: text and blob bytes are cut at the first NUL byte;
/// - NULL is an empty, unquoted field; integers are plain; REALs use SQLite's `%!.15g` text
///   (`1.0`, `1.0e+15`, `1.0e-07`, `Inf`, -0.0 as `0.0`);
/// - a field is wrapped in `"` (with each `"` doubled) when it is empty, contains a byte
///   0x00–0x20 (control bytes and space), `"`, or a byte 0x7F–0xFF, or contains the separator `,`;
/// - fields are separated by `,`; every row, the header row included, ends with LF.
struct CSVFormatter: ResultFormatter {
    /// Whether the first line holds the column names (quoted by the same rules).
    var header: Bool = false
    /// Whether lines end with CR LF, as after the shell's `.mode csv` (its `-csv` option keeps LF).
    var crlf: Bool = false

    func format(columns: [String], rows: [[Value]], into out: inout [UInt8]) {
        if header && !columns.isEmpty {
            for (i, name) in columns.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                Self.appendField(Array(name.utf8), to: &out)
            }
            endLine(&out)
        }
        for row in rows {
            for (i, value) in row.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                switch value {
                case .null: break
                case .integer(let n): out.append(contentsOf: String(n).utf8)
                case .real(let r):
                    if let text = ResultText.real(r) { out.append(contentsOf: text.utf8) }
                case .text(let s): Self.appendField(Array(s.utf8), to: &out)
                case .blob(let bytes), .invalidUTF8Text(let bytes): Self.appendField(bytes, to: &out)
                }
            }
            endLine(&out)
        }
    }

    private func endLine(_ out: inout [UInt8]) {
        if crlf { out.append(UInt8(ascii: "\r")) }
        out.append(UInt8(ascii: "\n"))
    }

    /// Whether a byte forces quoting (the shell's `needCsvQuote` table: 0x00–0x20, `"`, `'`, 0x7F–0xFF).
    @inline(__always)
    static func needsQuote(_ byte: UInt8) -> Bool {
        byte <= 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") || byte >= 0x7f
    }

    /// Appends one text/blob field: cut at the first NUL, quoted when the rules say so.
    static func appendField(_ bytes: [UInt8], to out: inout [UInt8]) {
        let end = bytes.firstIndex(of: 0) ?? bytes.count
        let field = bytes[..<end]
        let quote = field.isEmpty || field.contains { needsQuote($0) || $0 == UInt8(ascii: ",") }
        guard quote else {
            out.append(contentsOf: field)
            return
        }
        out.append(UInt8(ascii: "\""))
        for b in field {
            out.append(b)
            if b == UInt8(ascii: "\"") { out.append(b) }
        }
        out.append(UInt8(ascii: "\""))
    }
}
