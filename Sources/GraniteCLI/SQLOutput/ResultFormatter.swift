// Result formatters for `granite sql`: turn a result set (column names + rows of values)
// into output bytes. Bytes rather than text, because CSV emits blobs as raw bytes.

import GraniteSQL
import GraniteStorage

/// Renders a whole result set into a byte buffer.
protocol ResultFormatter {
    /// Appends the rendering of `rows` (each with `columns.count` values) to `out`.
    func format(columns: [String], rows: [[Value]], into out: inout [UInt8])
}

extension ResultFormatter {
    /// The rendering of the result set as bytes.
    func formatted(columns: [String], rows: [[Value]]) -> [UInt8] {
        var out: [UInt8] = []
        format(columns: columns, rows: rows, into: &out)
        return out
    }

    /// Renders the result set and hands the bytes to `sink` (e.g. a write to standard output).
    func write(columns: [String], rows: [[Value]], to sink: ([UInt8]) -> Void) {
        sink(formatted(columns: columns, rows: rows))
    }
}

/// The output modes of `granite sql`.
enum ResultFormat: Sendable, Equatable {
    /// Aligned columns with a header and a separator line (the default).
    case table
    /// `sqlite3 -csv` compatible; `header` adds the column-name row (`sqlite3 -csv -header`); `crlf` ends lines
    /// with CR LF, as the shell's `.mode csv` does.
    case csv(header: Bool, crlf: Bool = false)
    /// An array of objects, one per row (`sqlite3 -json` style).
    case json
    /// `sqlite3 -line`: one `name = value` line per column.
    case line
    /// `sqlite3 -list`: values separated by `|`; `header` adds the column names.
    case list(header: Bool)
    /// `sqlite3 -quote`: values as SQL literals; `header` adds the column names.
    case quote(header: Bool)
    /// `sqlite3 -box`: a grid drawn with box-drawing characters.
    case box
    /// `sqlite3 -markdown`: a pipe table.
    case markdown

    /// The names `.mode` accepts (`column` is Granite's aligned table, the default).
    static let modeNames = ["box", "column", "csv", "json", "line", "list", "markdown", "quote"]

    /// The mode named `name` (see ``modeNames``) as `.mode` sets it, with the column-name row when `header` and
    /// the mode has one.
    init?(mode name: String, header: Bool) {
        switch name {
        case "column", "table": self = .table
        case "csv": self = .csv(header: header, crlf: true)
        case "json": self = .json
        case "line": self = .line
        case "list": self = .list(header: header)
        case "quote": self = .quote(header: header)
        case "box": self = .box
        case "markdown": self = .markdown
        default: return nil
        }
    }

    /// The same mode, with or without the column-name row (modes without one are unchanged).
    func withHeader(_ header: Bool) -> ResultFormat {
        switch self {
        case .csv(_, let crlf): return .csv(header: header, crlf: crlf)
        case .list: return .list(header: header)
        case .quote: return .quote(header: header)
        case .table, .json, .line, .box, .markdown: return self
        }
    }

    /// The formatter implementing this mode.
    var formatter: any ResultFormatter {
        switch self {
        case .table: return TableFormatter()
        case .csv(let header, let crlf): return CSVFormatter(header: header, crlf: crlf)
        case .json: return JSONRowsFormatter()
        case .line: return LineFormatter()
        case .list(let header): return ListFormatter(header: header)
        case .quote(let header): return QuoteFormatter(header: header)
        case .box: return BoxFormatter(style: .box)
        case .markdown: return BoxFormatter(style: .markdown)
        }
    }
}

/// Value renderings shared by the formatters.
enum ResultText {
    /// SQLite's text for a REAL (`%!.15g`: `1.0`, `1.0e+15`, `Inf`); NaN (which SQLite stores as NULL) is nil.
    static func real(_ value: Double) -> String? {
        value.isNaN ? nil : SQLRealFormatting.render(value)
    }

    /// Lowercase hex digits of `bytes`.
    static func hex(_ bytes: some Collection<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0xf)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
