// `sqlite3 -list` and `sqlite3 -quote` output (checked byte for byte against the sqlite3 3.40 shell).

import GraniteSQL
import GraniteStorage

/// Values separated by `|`, one row per line, nothing escaped; NULL is empty. `header` adds the column names.
struct ListFormatter: ResultFormatter {
    var header = false

    func format(columns: [String], rows: [[Value]], into out: inout [UInt8]) {
        if header {
            out.append(contentsOf: columns.joined(separator: "|").utf8)
            out.append(UInt8(ascii: "\n"))
        }
        for row in rows {
            for (index, value) in row.enumerated() {
                if index > 0 { out.append(UInt8(ascii: "|")) }
                out.append(contentsOf: ShellText.bytes(value))
            }
            out.append(UInt8(ascii: "\n"))
        }
    }
}

/// Values as SQL literals separated by `,`: `NULL`, numbers (reals with `%!.20g`, infinities as `Inf`),
/// `'text'` with quotes doubled, `X'hex'` in lower case. `header` adds the names as quoted strings.
struct QuoteFormatter: ResultFormatter {
    var header = false

    func format(columns: [String], rows: [[Value]], into out: inout [UInt8]) {
        if header {
            for (index, name) in columns.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.appendQuoted(ArraySlice(name.utf8), to: &out)
            }
            out.append(UInt8(ascii: "\n"))
        }
        for row in rows {
            for (index, value) in row.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.append(value, to: &out)
            }
            out.append(UInt8(ascii: "\n"))
        }
    }

    private static func append(_ value: Value, to out: inout [UInt8]) {
        switch value {
        case .null:
            out.append(contentsOf: "NULL".utf8)
        case .integer(let integer):
            out.append(contentsOf: String(integer).utf8)
        case .real(let real):
            if case .text(let text) = SQLPrintf.format([.text("%!.20g"), .real(real)]) {
                out.append(contentsOf: text.utf8)
            }
        case .text, .invalidUTF8Text:
            appendQuoted(ShellText.bytes(value), to: &out)
        case .blob(let bytes):
            out.append(contentsOf: "X'".utf8)
            out.append(contentsOf: ResultText.hex(bytes).utf8)
            out.append(UInt8(ascii: "'"))
        }
    }

    private static func appendQuoted(_ bytes: ArraySlice<UInt8>, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "'"))
        for byte in bytes {
            if byte == UInt8(ascii: "'") { out.append(byte) }
            out.append(byte)
        }
        out.append(UInt8(ascii: "'"))
    }
}
