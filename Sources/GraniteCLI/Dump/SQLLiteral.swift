// SQL text for names and values in a dump: text that `granite sql` and `sqlite3` read back as the same name
// and the same value, type and bytes.

import GraniteSQL
import GraniteStorage

enum SQLLiteral {
    /// `name` as an identifier: bare when it is a plain ASCII word that is not a keyword, double-quoted
    /// otherwise.
    static func identifier(_ name: String) -> String {
        let bytes = Array(name.utf8)
        let isPlain = !bytes.isEmpty && !isDigit(bytes[0]) && bytes.allSatisfy { isLetter($0) || isDigit($0) || $0 == 0x5F }
        let upper = String(decoding: bytes.map { ($0 >= 0x61 && $0 <= 0x7A) ? $0 - 0x20 : $0 }, as: UTF8.self)
        if isPlain && !Parser.reservedWords.contains(upper) { return name }
        return "\"" + name.replacing("\"", with: "\"\"") + "\""
    }

    /// `text` as a single-quoted string literal.
    static func string(_ text: String) -> String {
        "'" + text.replacing("'", with: "''") + "'"
    }

    /// Appends the literal of `value` to `out`.
    ///
    /// Reals get the digits SQL's `quote()` gives, which read back exactly, and infinities an out-of-range
    /// literal (`1e999`) as `sqlite3` writes them. Text that a quoted string cannot carry byte for byte (a NUL,
    /// ill-formed UTF-8) is written as a blob cast to text, which both shells read back with the same bytes.
    static func append(_ value: Value, to out: inout [UInt8]) {
        switch value {
        case .null:
            out.append(contentsOf: "NULL".utf8)
        case .integer(let integer):
            out.append(contentsOf: String(integer).utf8)
        case .real(let real):
            if real.isInfinite {
                out.append(contentsOf: (real < 0 ? "-1e999" : "1e999").utf8)
            } else if case .text(let literal) = SQLScalarFunctions.quote(.real(real)) {
                out.append(contentsOf: literal.utf8)
            }
        case .text(let text):
            appendText(text, to: &out)
        case .invalidUTF8Text(let bytes):
            appendTextCast(bytes, to: &out)
        case .blob(let bytes):
            out.append(contentsOf: "X'".utf8)
            appendHex(bytes, to: &out)
            out.append(0x27)
        }
    }

    /// A quoted string; line feeds and carriage returns, which the shells' line reading may not keep, as
    /// `sqlite3` writes them: `replace(replace('a\r\nb','\r',char(13)),'\n',char(10))`. Text that already holds
    /// those two-character escapes, or a NUL, goes as a blob cast to text.
    private static func appendText(_ text: String, to out: inout [UInt8]) {
        let utf8 = text.utf8
        let hasCR = utf8.contains(0x0D)
        let hasLF = utf8.contains(0x0A)
        if utf8.contains(0) || ((hasCR || hasLF) && (text.contains("\\r") || text.contains("\\n"))) {
            appendTextCast(Array(utf8), to: &out)
            return
        }
        if hasLF { out.append(contentsOf: "replace(".utf8) }
        if hasCR { out.append(contentsOf: "replace(".utf8) }
        out.append(0x27)
        for byte in utf8 {
            switch byte {
            case 0x27: out.append(contentsOf: [0x27, 0x27])
            case 0x0D: out.append(contentsOf: "\\r".utf8)
            case 0x0A: out.append(contentsOf: "\\n".utf8)
            default: out.append(byte)
            }
        }
        out.append(0x27)
        if hasCR { out.append(contentsOf: ",'\\r',char(13))".utf8) }
        if hasLF { out.append(contentsOf: ",'\\n',char(10))".utf8) }
    }

    private static func appendTextCast(_ bytes: [UInt8], to out: inout [UInt8]) {
        out.append(contentsOf: "CAST(X'".utf8)
        appendHex(bytes, to: &out)
        out.append(contentsOf: "' AS TEXT)".utf8)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// Upper-case hex digits of `bytes`.
    static func hex(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        appendHex(bytes, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private static func appendHex(_ bytes: [UInt8], to out: inout [UInt8]) {
        for byte in bytes {
            out.append(hexDigits[Int(byte >> 4)])
            out.append(hexDigits[Int(byte & 15)])
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }
}
