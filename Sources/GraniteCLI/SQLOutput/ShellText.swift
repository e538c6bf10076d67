// How the `sqlite3` shell's line, list, box and markdown modes see a value: the column's text as a C string.

import GraniteStorage

enum ShellText {
    /// The bytes `sqlite3_column_text` gives for `value`, up to the first NUL: empty for NULL, SQLite's
    /// `%!.15g` for reals, blobs and text as their bytes.
    static func bytes(_ value: Value) -> ArraySlice<UInt8> {
        switch value {
        case .null: return []
        case .integer(let integer): return ArraySlice(String(integer).utf8)
        case .real(let real): return ArraySlice((ResultText.real(real) ?? "").utf8)
        case .text(let text):
            let utf8 = Array(text.utf8)
            return utf8.prefix { $0 != 0 }
        case .invalidUTF8Text(let bytes), .blob(let bytes):
            return bytes.prefix { $0 != 0 }
        }
    }

    /// The display width `sqlite3` counts for `bytes`: one column per UTF-8 character.
    static func width(_ bytes: some Collection<UInt8>) -> Int {
        bytes.reduce(0) { $0 + (($1 & 0xC0) == 0x80 ? 0 : 1) }
    }
}
