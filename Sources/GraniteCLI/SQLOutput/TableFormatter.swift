// Aligned-table output, the default mode of `granite sql`.

import GraniteStorage

/// A header row, a dashed separator line and the rows, columns padded to the widest cell.
///
/// Widths count `Character`s (grapheme clusters), not bytes. Numbers are right-aligned, other
/// cells left-aligned; columns are separated by two spaces and lines carry no trailing spaces.
/// NULL shows as `NULL`, blobs as `x'…'` hex, REALs as SQLite's text; control characters in
/// text are shown escaped (`\n`, `\t`, `\r`, `\x1B`) so a row stays on one line; a cell longer
/// than `maxWidth` characters is cut to `maxWidth - 1` characters followed by `…`.
/// An empty column list prints nothing; an empty row list prints the header and separator.
struct TableFormatter: ResultFormatter {
    /// The longest cell, in characters, before truncation.
    var maxWidth: Int = 60

    /// One rendered cell.
    struct Cell {
        var text: String
        var width: Int
        var rightAligned: Bool
    }

    func cell(_ value: Value) -> Cell {
        switch value {
        case .null: return make("NULL", right: false)
        case .integer(let n): return make(String(n), right: true)
        case .real(let r): return make(ResultText.real(r) ?? "NULL", right: r.isNaN == false)
        case .text(let s): return make(Self.escaped(s), right: false)
        case .invalidUTF8Text(let bytes):
            // A table cell is a Swift string: invalid sequences show as U+FFFD.
            return make(Self.escaped(String(decoding: bytes, as: UTF8.self)), right: false)
        case .blob(let bytes):
            // Only render as many bytes as can show: 2 hex digits per byte plus `x''`.
            let shown = bytes.prefix(max(0, maxWidth))
            let text = "x'" + ResultText.hex(shown) + (shown.count < bytes.count ? "…" : "'")
            return make(text, right: false)
        }
    }

    private func make(_ text: String, right: Bool) -> Cell {
        let count = text.count
        if count > maxWidth {
            let cut = String(text.prefix(max(0, maxWidth - 1))) + "…"
            return Cell(text: cut, width: cut.count, rightAligned: right)
        }
        return Cell(text: text, width: count, rightAligned: right)
    }

    /// `s` with control characters escaped so it fits on one line.
    static func escaped(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) else { return s }
        var out = ""
        for scalar in s.unicodeScalars {
            switch scalar.value {
            case 0x0a: out += "\\n"
            case 0x09: out += "\\t"
            case 0x0d: out += "\\r"
            case 0..<0x20, 0x7f:
                let h = ResultText.hex([UInt8(scalar.value)]).uppercased()
                out += "\\x" + h
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    func format(columns: [String], rows: [[Value]], into out: inout [UInt8]) {
        guard !columns.isEmpty else { return }
        let header = columns.map { make(Self.escaped($0), right: false) }
        let body = rows.map { $0.map(cell) }
        var widths = header.map(\.width)
        for row in body {
            for (i, c) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], c.width) }
        }
        func emit(_ cells: [Cell]) {
            var line = ""
            for (i, c) in cells.enumerated() where i < widths.count {
                if i > 0 { line += "  " }
                let pad = String(repeating: " ", count: widths[i] - c.width)
                line += c.rightAligned ? pad + c.text : c.text + pad
            }
            while line.hasSuffix(" ") { line.removeLast() }
            out.append(contentsOf: line.utf8)
            out.append(UInt8(ascii: "\n"))
        }
        emit(header)
        let dashes = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        out.append(contentsOf: dashes.utf8)
        out.append(UInt8(ascii: "\n"))
        for row in body { emit(row) }
    }
}
