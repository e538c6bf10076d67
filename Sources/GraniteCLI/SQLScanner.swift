// Where one statement of a script ends, as the sqlite3 shell decides it (`sqlite3_complete`): at a `;` outside
// quotes, identifiers and comments, except inside `CREATE [TEMP] TRIGGER … BEGIN … END`, whose body statements
// end with `;` too: there only the `;` after the final `END` ends the statement.
//
// The scanner reads bytes one at a time and keeps its whole state between calls, so a script can be fed in
// buffers of any size: a string, a quoted identifier, a comment or a word may straddle two buffers, and a long
// statement is never scanned twice.

/// Finds statement ends in SQL text fed in pieces.
struct SQLScanner {
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

    /// What the byte before the current one opened.
    private enum Lexical {
        case plain
        /// Inside a string or identifier quoted with this byte (`'`, `"` or `` ` ``); a doubled quote closes and
        /// reopens it, which reads the same.
        case quoted(UInt8)
        /// Inside `[…]`.
        case bracketed
        /// After a `-` that may start a `--` comment.
        case dash
        /// Inside a `--` comment.
        case lineComment
        /// After a `/` that may start a `/*` comment.
        case slash
        /// Inside a `/* … */` comment; `star` when the last byte was `*`.
        case blockComment(star: Bool)
        /// Inside a word.
        case word
    }

    /// The kinds of word the decision reads.
    private enum Word {
        case explain, create, temp, trigger, end, other

        /// The kind of the word whose first bytes (upper-cased, at most `Word.longest`) are `prefix`.
        init(_ prefix: [UInt8], length: Int) {
            guard length <= Word.longest else {
                self = .other
                return
            }
            switch String(decoding: prefix, as: UTF8.self) {
            case "EXPLAIN": self = .explain
            case "CREATE": self = .create
            case "TEMP", "TEMPORARY": self = .temp
            case "TRIGGER": self = .trigger
            case "END": self = .end
            default: self = .other
            }
        }

        /// The length of the longest word the decision reads (`TEMPORARY`).
        static let longest = 9
    }

    private var position = Position.start
    private var lexical = Lexical.plain
    /// The upper-cased first bytes of the word being read, and its length.
    private var wordPrefix: [UInt8] = []
    private var wordLength = 0
    /// Whether the current statement holds anything but whitespace and comments.
    private(set) var hasContent = false

    init() {
        wordPrefix.reserveCapacity(Word.longest)
    }

    /// Reads one byte; true when it is the `;` that ends the current statement (the scanner then starts the next).
    mutating func scan(_ byte: UInt8) -> Bool {
        switch lexical {
        case .plain:
            return scanPlain(byte)
        case .quoted(let quote):
            if byte == quote { lexical = .plain }
            return false
        case .bracketed:
            if byte == UInt8(ascii: "]") { lexical = .plain }
            return false
        case .dash:
            if byte == UInt8(ascii: "-") {
                lexical = .lineComment
                return false
            }
            markOther()
            return scanPlain(byte)
        case .lineComment:
            if byte == 0x0A { lexical = .plain }
            return false
        case .slash:
            if byte == UInt8(ascii: "*") {
                lexical = .blockComment(star: false)
                return false
            }
            markOther()
            return scanPlain(byte)
        case .blockComment(let star):
            if star && byte == UInt8(ascii: "/") {
                lexical = .plain
            } else {
                lexical = .blockComment(star: byte == UInt8(ascii: "*"))
            }
            return false
        case .word:
            if Self.isWordByte(byte) {
                if wordLength < Word.longest { wordPrefix.append(Self.upper(byte)) }
                wordLength += 1
                return false
            }
            position = Self.advance(position, Word(wordPrefix, length: wordLength))
            return scanPlain(byte)
        }
    }

    /// Reads a byte outside quotes, comments and words.
    private mutating func scanPlain(_ byte: UInt8) -> Bool {
        lexical = .plain
        switch byte {
        case 0x20, 0x09...0x0D:
            return false
        case UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "`"):
            markOther()
            lexical = .quoted(byte)
        case UInt8(ascii: "["):
            markOther()
            lexical = .bracketed
        case UInt8(ascii: "-"):
            lexical = .dash
        case UInt8(ascii: "/"):
            lexical = .slash
        case UInt8(ascii: ";"):
            switch position {
            case .trigger, .triggerSemicolon:
                position = .triggerSemicolon
                return false
            default:
                position = .start
                hasContent = false
                return true
            }
        default:
            hasContent = true
            if Self.isWordByte(byte) {
                lexical = .word
                wordPrefix.removeAll(keepingCapacity: true)
                wordPrefix.append(Self.upper(byte))
                wordLength = 1
            } else {
                position = Self.advance(position, .other)
            }
        }
        return false
    }

    /// Notes a byte that is neither a word nor a `;` (a quote, a bracket, an operator).
    private mutating func markOther() {
        hasContent = true
        position = Self.advance(position, .other)
    }

    /// The position after `word` (a semicolon is handled by ``scanPlain(_:)``).
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

    private static func upper(_ b: UInt8) -> UInt8 {
        b >= 0x61 && b <= 0x7A ? b - 0x20 : b
    }

    /// The complete statements of `text` (each with its `;` and the whitespace before it) and the incomplete rest.
    static func split(_ text: String) -> (complete: [String], rest: String) {
        var scanner = SQLScanner()
        let bytes = Array(text.utf8)
        var complete: [String] = []
        var start = 0
        for (index, byte) in bytes.enumerated() where scanner.scan(byte) {
            complete.append(String(decoding: bytes[start...index], as: UTF8.self))
            start = index + 1
        }
        return (complete, String(decoding: bytes[start...], as: UTF8.self))
    }

    /// Whether `text` holds nothing but whitespace and comments (an unfinished `/*` comment is not blank).
    static func isBlank(_ text: String) -> Bool {
        var scanner = SQLScanner()
        for byte in text.utf8 { _ = scanner.scan(byte) }
        return scanner.isBlank
    }

    /// Whether the current statement holds nothing but whitespace and complete comments so far (a `-` or `/` not
    /// yet known to start a comment, and an unfinished `/*` comment, are not blank: they need more input).
    var isBlank: Bool {
        guard !hasContent else { return false }
        switch lexical {
        case .dash, .slash, .blockComment: return false
        default: return true
        }
    }
}
