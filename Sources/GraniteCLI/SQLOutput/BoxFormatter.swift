// `sqlite3 -box` and `sqlite3 -markdown` output (checked byte for byte against the sqlite3 3.40 shell).

import GraniteStorage

/// A grid with the column names centered above left-aligned values, each column as wide as its widest line.
///
/// As in the shell: widths count UTF-8 characters; a tab moves to the next multiple of 8 columns; any other
/// control character breaks the value onto another line (CR LF counts as one break), except at the value's end,
/// where it starts no line of its own; NULL is empty. Box mode
/// draws with box-drawing characters and, when some value spans several lines, puts a rule between all rows;
/// markdown mode draws a pipe table.
struct BoxFormatter: ResultFormatter {
    enum Style { case box, markdown }
    var style: Style

    func format(columns: [String], rows: [[Value]], into out: inout [UInt8]) {
        guard !columns.isEmpty else { return }
        let names = columns.map { Self.lines(ArraySlice($0.utf8)) }
        let cells = rows.map { row in row.map { Self.lines(ShellText.bytes($0)) } }
        var widths = names.map { $0.map(\.width).max() ?? 0 }
        for row in cells {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.map(\.width).max() ?? 0)
            }
        }
        let hasMultilineRow = cells.contains { row in row.contains { $0.count > 1 } }

        switch style {
        case .box:
            rule("┌", "┬", "┐", widths, into: &out)
            row(names, widths, centered: true, separator: "│", into: &out)
            rule("├", "┼", "┤", widths, into: &out)
            for (position, cell) in cells.enumerated() {
                if position > 0 && hasMultilineRow { rule("├", "┼", "┤", widths, into: &out) }
                row(cell, widths, centered: false, separator: "│", into: &out)
            }
            rule("└", "┴", "┘", widths, into: &out)
        case .markdown:
            row(names, widths, centered: true, separator: "|", into: &out)
            rule("|", "|", "|", widths, line: "-", into: &out)
            for cell in cells { row(cell, widths, centered: false, separator: "|", into: &out) }
        }
    }

    /// A value's display lines, each with its width. A break that ends the value opens no empty last line: the
    /// shell stops at the end of the value, so `'a' || char(10)` and `x'01'` are one line, `'a' || char(10, 10)` two.
    private static func lines(_ bytes: ArraySlice<UInt8>) -> [(text: [UInt8], width: Int)] {
        var result: [(text: [UInt8], width: Int)] = []
        var line: [UInt8] = []
        var width = 0
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            index += 1
            if byte >= 0x20 {
                line.append(byte)
                if byte & 0xC0 != 0x80 { width += 1 }
            } else if byte == 0x09 {
                repeat {
                    line.append(0x20)
                    width += 1
                } while width % 8 != 0
            } else {
                if byte == 0x0D, index < bytes.endIndex, bytes[index] == 0x0A { index += 1 }
                result.append((line, width))
                line = []
                width = 0
                if index == bytes.endIndex { return result }
            }
        }
        result.append((line, width))
        return result
    }

    private func rule(
        _ left: String, _ middle: String, _ right: String, _ widths: [Int], line: String = "─",
        into out: inout [UInt8]
    ) {
        var text = left
        for (index, width) in widths.enumerated() {
            if index > 0 { text += middle }
            text += String(repeating: line, count: width + 2)
        }
        text += right + "\n"
        out.append(contentsOf: text.utf8)
    }

    private func row(
        _ cells: [[(text: [UInt8], width: Int)]], _ widths: [Int], centered: Bool, separator: String,
        into out: inout [UInt8]
    ) {
        let height = cells.map(\.count).max() ?? 1
        let bar = Array(separator.utf8)
        for lineIndex in 0..<height {
            out.append(contentsOf: bar)
            for (index, width) in widths.enumerated() {
                let cell = index < cells.count ? cells[index] : []
                let (text, textWidth) = lineIndex < cell.count ? cell[lineIndex] : ([], 0)
                let left = centered ? (width - textWidth) / 2 : 0
                out.append(contentsOf: repeatElement(0x20, count: 1 + left))
                out.append(contentsOf: text)
                out.append(contentsOf: repeatElement(0x20, count: width - textWidth - left + 1))
                out.append(contentsOf: bar)
            }
            out.append(UInt8(ascii: "\n"))
        }
    }
}
