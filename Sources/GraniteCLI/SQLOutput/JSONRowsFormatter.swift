// `sqlite3 -json` style output: an array of objects, one per row.

import GraniteStorage

/// Rows as JSON objects whose keys are the column names in column order, shaped like
/// `sqlite3 -json`: `[{"a":1,"b":"x"},` LF `{"a":2,"b":null}]` LF.
///
/// Like sqlite3: duplicate column names are repeated as-is (no suffixes); integers are plain;
/// NULL is `null`; ±infinity is `1e999` / `-1e999`; strings escape `"` and `\` with a backslash,
/// BS/FF/LF/CR/TAB as `\b \f \n \r \t`, other bytes below 0x20 as `\u00XX`, and pass the rest through.
///
/// Deliberate differences from sqlite3 3.40 (which can emit invalid JSON):
/// - an empty result is `[]` (sqlite3 prints nothing);
/// - blobs are lowercase hex strings (`"00ff"`), not raw bytes inside a string;
/// - a NUL inside text is `\u0000` (sqlite3 cuts the text there);
/// - REALs use the shortest round-tripping digits with a `.0` for integral values (`0.1`,
///   `100.0`, `1e+16`), not sqlite3's `%!.20g` (`0.10000000000000000555`); NaN is `null`.
struct JSONRowsFormatter: ResultFormatter {
    func format(columns: [String], rows: [[Value]], into out: inout [UInt8]) {
        guard !rows.isEmpty else {
            out.append(contentsOf: "[]\n".utf8)
            return
        }
        for (r, row) in rows.enumerated() {
            out.append(contentsOf: (r == 0 ? "[{" : ",\n{").utf8)
            for (i, value) in row.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                Self.appendString(Array((i < columns.count ? columns[i] : "").utf8), to: &out)
                out.append(UInt8(ascii: ":"))
                switch value {
                case .null: out.append(contentsOf: "null".utf8)
                case .integer(let n): out.append(contentsOf: String(n).utf8)
                case .real(let d): out.append(contentsOf: Self.real(d).utf8)
                case .text(let s): Self.appendString(Array(s.utf8), to: &out)
                case .invalidUTF8Text(let bytes): Self.appendString(bytes, to: &out)
                case .blob(let bytes): Self.appendString(Array(ResultText.hex(bytes).utf8), to: &out)
                }
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(contentsOf: "]\n".utf8)
    }

    /// A JSON number for `d`.
    static func real(_ d: Double) -> String {
        if d.isNaN { return "null" }
        if d.isInfinite { return d < 0 ? "-1e999" : "1e999" }
        var text = d.description  // shortest round trip: "0.1", "100.0", "1e+16", "5e-324"
        if !text.contains(".") && !text.contains("e") { text += ".0" }
        return text
    }

    /// Appends `bytes` as a JSON string with sqlite3's escapes.
    static func appendString(_ bytes: [UInt8], to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for b in bytes {
            switch b {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                out.append(UInt8(ascii: "\\"))
                out.append(b)
            case 0x08: out.append(contentsOf: "\\b".utf8)
            case 0x0c: out.append(contentsOf: "\\f".utf8)
            case 0x0a: out.append(contentsOf: "\\n".utf8)
            case 0x0d: out.append(contentsOf: "\\r".utf8)
            case 0x09: out.append(contentsOf: "\\t".utf8)
            case 0..<0x20:
                out.append(contentsOf: "\\u00".utf8)
                out.append(contentsOf: ResultText.hex([b]).utf8)
            default: out.append(b)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
