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
    /// `sqlite3 -csv` compatible; `header` adds the column-name row (`sqlite3 -csv -header`).
    case csv(header: Bool)
    /// An array of objects, one per row (`sqlite3 -json` style).
    case json

    /// The formatter implementing this mode.
    var formatter: any ResultFormatter {
        switch self {
        case .table: return TableFormatter()
        case .csv(let header): return CSVFormatter(header: header)
        case .json: return JSONRowsFormatter()
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
