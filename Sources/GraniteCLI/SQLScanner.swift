// Where one statement of a script ends, as the sqlite3 shell decides it (`sqlite3_complete`): at a `;` outside
// quotes, identifiers and comments, except inside `CREATE [TEMP] TRIGGER … BEGIN … END`, whose body statements
// end with `;` too: there only the `;` after the final `END` ends the statement.

/// Splits SQL text into complete statements.
enum SQLScanner {
    /// Where the scan is in the current statement, read word by word.
    private enum Position {
        /// Nothing but whitespace and comments yet.
        case start
        /// After a leading `EXPLAIN` (and any words of `EXPLAIN QUERY PLAN`).
        case explain
        /// After a leading `CREATE` (and `TEMP`).
        case create
        /// In any other statement: its next `;` ends it.
        case statement
        /// In a `CREATE TRIGGER` statement, before its body's last `;`.
        case trigger
        /// In a trigger, right after a `;` (only whitespace and further `;` since).
        case triggerSemicolon
        /// In a trigger, after `; END`: a `;` now ends the statement.
        case triggerEnd
    }

    /// The kinds of word the decision reads.
    private enum Word {
        case explain, create, temp, trigger, end, other

        init(_ word: ArraySlice<UInt8>) {
            switch String(decoding: word, as: UTF8.self).uppercased() {
            case "EXPLAIN": self = .explain
            case "CREATE": self = .create
            case "TEMP", "TEMPORARY": self = .temp
            case "TRIGGER": self = .trigger
            case "END": self = .end
            default: self = .other
            }
        }
    }

    /// The position after `word` (a semicolon is handled by ``split(_:)``).
    private static func advance(_ position: Position, _ word: Word) -> Position {
        switch (position, word) {
        case (.start, .explain): return .explain
        case (.start, .create), (.explain, .create): return .create
        case (.explain, .other): return .explain
        case (.create, .temp): return .create
        case (.create, .trigger): return .trigger
        case (.triggerSemicolon, .end): return .triggerEnd
        case (.trigger, _), (.triggerSemicolon, _), (.triggerEnd, _): return .trigger
        default: return .statement
        }
    }

    private static func isWordByte(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F || b == 0x24
            || b >= 0x80
    }

    /// The complete statements (each with its `;`) and the incomplete rest.
    static func split(_ text: String) -> (complete: [String], rest: String) {
        let bytes = Array(text.utf8)
        var complete: [String] = []
        var start = 0
        var position = Position.start
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            switch b {
            case UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "`"):
                i += 1
                while i < bytes.count {
                    if bytes[i] == b {
                        if i + 1 < bytes.count && bytes[i + 1] == b {
                            i += 2
                            continue
                        }
                        break
                    }
                    i += 1
                }
                position = advance(position, .other)
            case UInt8(ascii: "["):
                while i < bytes.count && bytes[i] != UInt8(ascii: "]") { i += 1 }
                position = advance(position, .other)
            case UInt8(ascii: "-") where i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "-"):
                while i < bytes.count && bytes[i] != 0x0A { i += 1 }
            case UInt8(ascii: "/") where i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "*"):
                i += 2
                while i < bytes.count
                    && !(bytes[i] == UInt8(ascii: "*") && i + 1 < bytes.count
                        && bytes[i + 1] == UInt8(ascii: "/"))
                {
                    i += 1
                }
                i += 1
            case UInt8(ascii: ";"):
                switch position {
                case .trigger, .triggerSemicolon:
                    position = .triggerSemicolon
                default:
                    complete.append(String(decoding: bytes[start...i], as: UTF8.self))
                    start = i + 1
                    position = .start
                }
            case 0x20, 0x09...0x0D:
                break
            default:
                if isWordByte(b) {
                    var end = i + 1
                    while end < bytes.count && isWordByte(bytes[end]) { end += 1 }
                    position = advance(position, Word(bytes[i..<end]))
                    i = end - 1
                } else {
                    position = advance(position, .other)
                }
            }
            i += 1
        }
        let rest = start < bytes.count ? String(decoding: bytes[start...], as: UTF8.self) : ""
        return (complete, rest)
    }

    /// Whether `text` holds nothing but whitespace and comments.
    static func isBlank(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x20 || (b >= 0x09 && b <= 0x0D) {
                i += 1
            } else if b == UInt8(ascii: "-") && i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "-") {
                while i < bytes.count && bytes[i] != 0x0A { i += 1 }
            } else if b == UInt8(ascii: "/") && i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "*") {
                i += 2
                while i < bytes.count
                    && !(bytes[i] == UInt8(ascii: "*") && i + 1 < bytes.count
                        && bytes[i + 1] == UInt8(ascii: "/"))
                {
                    i += 1
                }
                if i >= bytes.count { return false }
                i += 2
            } else {
                return false
            }
        }
        return true
    }
}
