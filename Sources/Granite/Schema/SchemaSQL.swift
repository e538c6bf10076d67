import Foundation
import GraniteSQL

/// Helpers that render values and SQL literals inline, for schema statements (which take no arguments).
enum SchemaSQL {
    /// The SQL literal of a value: `NULL`, `1`, `1.0`, `'O''Brien'`, `X'666F6F'`.
    static func literal(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: return "NULL"
        case .int64(let int): return String(int)
        case .double: return ExpandedSQL.literal(value.engineValue)
        case .string(let string): return "'" + string.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let data):
            let digits = Array("0123456789ABCDEF")
            var hex = ""
            hex.reserveCapacity(data.count * 2 + 3)
            for byte in data {
                hex.append(digits[Int(byte >> 4)])
                hex.append(digits[Int(byte & 0x0F)])
            }
            return "X'" + hex + "'"
        }
    }

    /// The text of `sql` with its arguments written inline as literals; `db` renders what needs the schema
    /// (requests interpolated in a view definition).
    static func inline(_ sql: SQL, in db: Database? = nil) throws -> String {
        var text = ""
        for element in sql.elements {
            switch element {
            case .sql(let fragment, let arguments):
                text += try inline(fragment, arguments)
            case .identifier(let name):
                text += name.quotedDatabaseIdentifier
            case .expression(let expression):
                let context = SQLGenerationContext(db)
                let fragment = try expression.sql(context)
                text += try inline(fragment, StatementArguments(context.arguments))
            }
        }
        return text
    }

    /// The SQL text of an expression, with its values written inline.
    static func inline(_ expression: SQLExpression) throws -> String {
        try inline(SQL(elements: [.expression(expression)]))
    }

    /// Replaces the `?` placeholders of `sql` with the literals of `arguments`, in order.
    private static func inline(_ sql: String, _ arguments: StatementArguments) throws -> String {
        if arguments.isEmpty { return sql }
        guard arguments.namedValues.isEmpty else {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE, message: "schema definitions do not accept named arguments", sql: sql)
        }
        let tokens: [Token]
        do {
            tokens = try Lexer.tokenize(sql)
        } catch {
            throw DatabaseError.from(error, sql: sql)
        }
        let bytes = Array(sql.utf8)
        var output: [UInt8] = []
        var position = 0
        var next = 0
        for token in tokens where token.kind == .parameter {
            let range = token.range.offsets
            guard token.text == "?", next < arguments.values.count else {
                throw DatabaseError(
                    resultCode: .SQLITE_MISUSE, message: "wrong number of statement arguments", sql: sql,
                    arguments: arguments)
            }
            output += bytes[position..<range.lowerBound]
            output += literal(arguments.values[next]).utf8
            next += 1
            position = range.upperBound
        }
        guard next == arguments.values.count else {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE, message: "wrong number of statement arguments", sql: sql,
                arguments: arguments)
        }
        output += bytes[position...]
        return String(decoding: output, as: UTF8.self)
    }

    /// The `(a, b)` list of quoted column names.
    static func columnList(_ columns: [String]) -> String {
        "(" + columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ") + ")"
    }

    /// ` ON DELETE … ON UPDATE … DEFERRABLE INITIALLY DEFERRED`, or nothing.
    static func foreignKeyClauses(
        onDelete: Database.ForeignKeyAction?, onUpdate: Database.ForeignKeyAction?, deferred: Bool
    ) -> [String] {
        var chunks: [String] = []
        if let onDelete { chunks += ["ON DELETE", onDelete.rawValue] }
        if let onUpdate { chunks += ["ON UPDATE", onUpdate.rawValue] }
        if deferred { chunks.append("DEFERRABLE INITIALLY DEFERRED") }
        return chunks
    }
}
