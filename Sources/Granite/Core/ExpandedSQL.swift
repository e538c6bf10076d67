import GraniteSQL
import GraniteStorage

/// SQL text with its arguments inlined, as SQLite's `sqlite3_expanded_sql` writes it: NULL, integers, REAL as
/// `%!.15g`, `'text'` with quotes doubled, blobs as `x'0102ff'`.
enum ExpandedSQL {
    static func render(sql: String, parameters: ParameterList, values: [GraniteStorage.Value]) -> String {
        guard parameters.count > 0, let tokens = try? Lexer.tokenize(sql) else { return sql }
        let bytes = Array(sql.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16 * parameters.count)
        var position = 0
        var largest = 0
        for token in tokens where token.kind == .parameter {
            let range = token.range.offsets
            guard range.lowerBound >= position, range.upperBound <= bytes.count else { continue }
            let index: Int
            if token.text == "?" {
                index = largest + 1
            } else if token.text.hasPrefix("?") {
                index = Int(token.text.dropFirst()) ?? (largest + 1)
            } else {
                index = parameters.index(of: token.text) ?? (largest + 1)
            }
            largest = max(largest, index)
            out += bytes[position..<range.lowerBound]
            let value = index >= 1 && index <= values.count ? values[index - 1] : .null
            out += literal(value).utf8
            position = range.upperBound
        }
        out += bytes[position...]
        return String(decoding: out, as: UTF8.self)
    }

    static func literal(_ value: GraniteStorage.Value) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let v): return String(v)
        case .real(let v): return SQLRealFormatting.render(v)
        case .text, .invalidUTF8Text, .blob: return value.description
        }
    }
}
