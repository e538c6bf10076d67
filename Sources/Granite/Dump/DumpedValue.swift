import Foundation
import GraniteSQL
import GraniteStorage

// How the built-in dump formats read and render the values of the current row.

extension Statement {
    /// The value of column `index` of the row the statement is positioned on.
    func dumpedValue(at index: Int) -> GraniteStorage.Value {
        prepared.column(at: index)
    }

    /// The indexes of the columns the built-in formats print: all but those whose name starts with `grdb_`.
    var dumpedColumnIndexes: [Int] {
        columnNames.indices.filter { !columnNames[$0].hasPrefix("grdb_") }
    }
}

extension GraniteStorage.Value {
    /// The value read as text, the way C's string functions see it: text or blob bytes up to the first NUL,
    /// ill-formed UTF-8 replaced with U+FFFD; nil for NULL, integers and reals.
    var dumpedText: String? {
        switch self {
        case .null, .integer, .real:
            return nil
        case .text(let string):
            guard let nul = string.utf8.firstIndex(of: 0) else { return string }
            return String(string[..<nul])
        case .invalidUTF8Text(let bytes), .blob(let bytes):
            return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    /// The value as SQL's `quote()` renders it: `NULL`, a number, a quoted string or a blob literal.
    var quotedSQL: String {
        switch SQLScalarFunctions.quote(self) {
        case .text(let string): return string
        case let other: return other.dumpedText ?? ""
        }
    }
}
