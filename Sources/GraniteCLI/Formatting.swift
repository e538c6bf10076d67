// Text formatting helpers: numbers, sizes, aligned tables, hex dumps, value previews.

import Foundation
import GraniteStorage

/// `n` with thousands separators: 1234567 → "1,234,567".
func grouped(_ n: some BinaryInteger) -> String {
    let digits = String(n.magnitude)
    var out = ""
    for (i, ch) in digits.enumerated() {
        if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
        out.append(ch)
    }
    return n < 0 ? "-" + out : out
}

/// A fraction 0...1 as a percentage with one decimal: 0.9512 → "95.1%".
func percent(_ fraction: Double) -> String {
    guard fraction.isFinite else { return "-" }
    return String(format: "%.1f%%", fraction * 100)
}

/// A byte count in a human unit: "512 B", "12.3 KiB", "4.5 MiB".
func byteSize(_ n: Int) -> String {
    let units = ["KiB", "MiB", "GiB", "TiB"]
    guard n >= 1024 else { return "\(n) B" }
    var value = Double(n) / 1024
    var unit = 0
    while value >= 1024 && unit < units.count - 1 {
        value /= 1024
        unit += 1
    }
    return String(format: "%.1f", value) + " " + units[unit]
}

/// Milliseconds in a duration.
func milliseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1_000 + Double(attoseconds) / 1e15
}

/// A table of text printed with aligned columns.
struct TextTable {
    /// Column titles.
    var header: [String]
    /// Indices of the columns aligned to the right (numbers).
    var rightAligned: Set<Int> = []
    /// The rows; each has as many cells as the header (missing cells print empty).
    var rows: [[String]] = []

    /// The table as lines, columns separated by two spaces, indented by `indent`.
    func render(indent: String = "") -> [String] {
        var widths = header.map(\.count)
        for row in rows {
            for (i, cell) in row.enumerated() where i < widths.count {
                widths[i] = max(widths[i], cell.count)
            }
        }
        func line(_ cells: [String]) -> String {
            var parts: [String] = []
            for i in widths.indices {
                let cell = i < cells.count ? cells[i] : ""
                let padding = String(repeating: " ", count: widths[i] - cell.count)
                parts.append(rightAligned.contains(i) ? padding + cell : cell + padding)
            }
            let text = indent + parts.joined(separator: "  ")
            return String(text.reversed().drop(while: { $0 == " " }).reversed())
        }
        return [line(header)] + rows.map(line)
    }
}

/// Label/value lines with the values aligned.
func aligned(_ pairs: [(String, String)], indent: String = "  ") -> [String] {
    let width = pairs.map(\.0.count).max() ?? 0
    return pairs.map { indent + $0.0 + String(repeating: " ", count: width - $0.0.count + 2) + $0.1 }
}

private let hexDigits = Array("0123456789abcdef")

/// Bytes as lowercase hex, at most `limit` bytes followed by "…" when cut.
func hexString(_ bytes: some Collection<UInt8>, limit: Int = .max) -> String {
    var out = ""
    for (i, byte) in bytes.enumerated() {
        if i == limit {
            out.append("…")
            break
        }
        out.append(hexDigits[Int(byte >> 4)])
        out.append(hexDigits[Int(byte & 0x0F)])
    }
    return out
}

/// A canonical hex dump (`hexdump -C` style): offset, 16 bytes in hex, the
/// printable ASCII; runs of identical lines collapse into one "*" line.
func hexDump(_ bytes: [UInt8]) -> [String] {
    var lines: [String] = []
    var previous: ArraySlice<UInt8>? = nil
    var repeating = false
    var offset = 0
    while offset < bytes.count {
        let chunk = bytes[offset..<min(offset + 16, bytes.count)]
        if let p = previous, p.elementsEqual(chunk), chunk.count == 16 {
            if !repeating { lines.append("*") }
            repeating = true
            offset += 16
            continue
        }
        repeating = false
        previous = chunk
        var hex = ""
        var ascii = ""
        for i in 0..<16 {
            if i == 8 { hex.append(" ") }
            if i < chunk.count {
                let byte = chunk[chunk.startIndex + i]
                hex.append(hexDigits[Int(byte >> 4)])
                hex.append(hexDigits[Int(byte & 0x0F)])
                hex.append(" ")
                ascii.append(byte >= 0x20 && byte < 0x7F ? Character(UnicodeScalar(byte)) : ".")
            } else {
                hex.append("   ")
            }
        }
        lines.append(String(format: "%08x", offset) + "  " + hex + " |" + ascii + "|")
        offset += 16
    }
    lines.append(String(format: "%08x", bytes.count))
    return lines
}

/// A short rendering of a value: text quoted and cut to `limit` characters,
/// blobs as hex with their length.
func preview(_ value: Value, limit: Int = 60) -> String {
    switch value {
    case .null, .integer, .real:
        return value.description
    case .text(let s):
        var shown = ""
        var count = 0
        for ch in s {
            if count == limit {
                shown.append("…")
                break
            }
            switch ch {
            case "\n": shown.append("\\n")
            case "\t": shown.append("\\t")
            case "'": shown.append("''")
            default: shown.append(ch)
            }
            count += 1
        }
        let total = s.count
        return "'\(shown)'" + (total > limit ? " (\(grouped(total)) chars)" : "")
    case .invalidUTF8Text(let b):
        return "CAST(x'\(hexString(b, limit: 16))' AS TEXT) (\(grouped(b.count)) bytes, not UTF-8)"
    case .blob(let b):
        return "x'\(hexString(b, limit: 16))' (\(grouped(b.count)) bytes)"
    }
}

/// Decodes the start of a key that ends early (an interior page's shortened
/// separator, or the local part of a long key): complete values as usual, the
/// cut one marked with "…". Nil when the bytes are not key-encoded.
func decodeKeyPrefix(_ key: [UInt8]) -> [String]? {
    var values: [String] = []
    var i = 0
    while i < key.count {
        let tag = key[i]
        switch tag {
        case KeyEncoding.nullTag:
            values.append("NULL")
            i += 1
        case let tag where KeyEncoding.isNumberTag(tag):
            let end = key.withUnsafeBytes { KeyEncoding.numberEnd($0, at: i) }
            guard let end else {
                values.append("number…")
                return values
            }
            guard let decoded = try? KeyEncoding.decode(Array(key[i..<end])), let value = decoded.first else {
                return values.isEmpty ? nil : values + ["number…"]
            }
            values.append(preview(value))
            i = end
        case KeyEncoding.textTag, KeyEncoding.blobTag:
            var bytes: [UInt8] = []
            var j = i + 1
            var terminated = false
            while j < key.count {
                if key[j] != 0 {
                    bytes.append(key[j])
                    j += 1
                } else if j + 1 < key.count && key[j + 1] == 0xFF {
                    bytes.append(0)
                    j += 2
                } else if j + 1 < key.count && key[j + 1] == 0x01 {
                    terminated = true
                    j += 2
                    break
                } else if j + 1 == key.count {
                    j += 1  // a cut escape: 0x00 and nothing after it
                } else {
                    return nil
                }
            }
            let value: Value =
                tag == KeyEncoding.blobTag ? .blob(bytes) : .text(utf8: bytes)
            guard terminated else {
                values.append(preview(value) + "…")
                return values
            }
            values.append(preview(value))
            i = j
        default:
            return nil
        }
    }
    return values
}

/// Prints each line on standard output.
func printLines(_ lines: [String]) {
    for line in lines { print(line) }
}
