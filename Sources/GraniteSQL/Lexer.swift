/// Splits SQL text into ``Token``s, skipping whitespace and comments.
///
/// The lexer works on UTF-8 bytes. Every malformed token (unterminated string or quoted identifier, malformed
/// blob or number, stray character) is reported as a thrown ``SQLSyntaxError``; the lexer never traps.
package struct Lexer: Sendable {
    private let source: [UInt8]
    private var offset = 0
    private var line = 1
    private var lineStart = 0

    /// Creates a lexer over `sql`.
    package init(_ sql: String) {
        self.source = Array(sql.utf8)
    }

    /// Creates a lexer over UTF-8 bytes.
    init(bytes: [UInt8]) {
        self.source = bytes
    }

    /// Tokenizes the whole input; the last token is always `.endOfInput`.
    package static func tokenize(_ sql: String) throws(SQLSyntaxError) -> [Token] {
        var lexer = Lexer(sql)
        return try lexer.tokenizeAll()
    }

    /// Tokenizes the remaining input; the last token is always `.endOfInput`.
    package mutating func tokenizeAll() throws(SQLSyntaxError) -> [Token] {
        var tokens: [Token] = []
        while true {
            let token = try next()
            tokens.append(token)
            if token.kind == .endOfInput { return tokens }
        }
    }

    private var location: SourceLocation {
        SourceLocation(offset: offset, line: line, column: offset - lineStart + 1)
    }

    private func byte(at index: Int) -> UInt8? {
        index < source.count ? source[index] : nil
    }

    private mutating func advance(_ count: Int = 1) {
        for _ in 0..<count where offset < source.count {
            let current = source[offset]
            offset += 1
            if current == 0x0A || (current == 0x0D && byte(at: offset) != 0x0A) {
                line += 1
                lineStart = offset
            }
        }
    }

    private func text(from start: Int) -> String {
        String(decoding: source[start..<offset], as: UTF8.self)
    }

    private func error(_ message: String, at location: SourceLocation) -> SQLSyntaxError {
        SQLSyntaxError(message, at: location, in: source)
    }

    static func isIdentifierStart(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || byte == 0x5F || byte >= 0x80
    }

    static func isIdentifierContinue(_ byte: UInt8) -> Bool {
        isIdentifierStart(byte) || isDigit(byte) || byte == 0x24
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte >= 0x61 && byte <= 0x66) || (byte >= 0x41 && byte <= 0x46)
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C || byte == 0x0B
    }

    /// Truncates token text for use in error messages.
    static func excerpt(_ text: String) -> String {
        text.count > 40 ? String(text.prefix(40)) + "…" : text
    }

    private mutating func skipTrivia() {
        while let current = byte(at: offset) {
            if Lexer.isSpace(current) {
                advance()
            } else if current == 0x2D && byte(at: offset + 1) == 0x2D {
                while let c = byte(at: offset), c != 0x0A { advance() }
            } else if current == 0x2F && byte(at: offset + 1) == 0x2A {
                // Like SQLite, an unterminated block comment extends to the end of the input.
                advance(2)
                while offset < source.count && !(source[offset] == 0x2A && byte(at: offset + 1) == 0x2F) {
                    advance()
                }
                advance(2)
            } else {
                return
            }
        }
    }

    private func makeToken(
        _ kind: TokenKind, from start: SourceLocation, value: String? = nil, keyword: String = ""
    ) -> Token {
        let text = self.text(from: start.offset)
        return Token(
            kind: kind, text: text, value: value ?? text, keyword: keyword,
            range: SourceRange(start: start, end: location))
    }

    /// Returns the next token, or `.endOfInput` at the end.
    package mutating func next() throws(SQLSyntaxError) -> Token {
        skipTrivia()
        let start = location
        guard let current = byte(at: offset) else {
            return Token(kind: .endOfInput, text: "", value: "", range: SourceRange(start: start, end: start))
        }
        switch current {
        case 0x27:  // '
            let value = try lexQuoted(close: 0x27, start: start, what: "string literal")
            return makeToken(.string, from: start, value: value)
        case 0x22, 0x60:  // " `
            let value = try lexQuoted(close: current, start: start, what: "quoted identifier")
            return makeToken(.quotedIdentifier, from: start, value: value)
        case 0x5B:  // [
            advance()
            let contentStart = offset
            while let c = byte(at: offset), c != 0x5D { advance() }
            guard offset < source.count else {
                throw error("unterminated quoted identifier: \(Lexer.excerpt(text(from: start.offset)))", at: start)
            }
            let value = String(decoding: source[contentStart..<offset], as: UTF8.self)
            advance()
            return makeToken(.quotedIdentifier, from: start, value: value)
        case _ where (current == 0x78 || current == 0x58) && byte(at: offset + 1) == 0x27:  // x'…'
            advance()
            let digits = try lexQuoted(close: 0x27, start: start, what: "blob literal")
            let valid = digits.utf8.allSatisfy(Lexer.isHexDigit)
            guard valid && digits.utf8.count % 2 == 0 else {
                let reason = valid ? "odd number of hex digits" : "non-hex character"
                throw error(
                    "malformed blob literal: \(Lexer.excerpt(text(from: start.offset))) (\(reason))", at: start)
            }
            return makeToken(.blob, from: start, value: digits)
        case _ where Lexer.isDigit(current) || (current == 0x2E && byte(at: offset + 1).map(Lexer.isDigit) == true):
            return try lexNumber(start: start)
        case _ where Lexer.isIdentifierStart(current):
            while let c = byte(at: offset), Lexer.isIdentifierContinue(c) { advance() }
            // ASCII letters upper-cased byte by byte (other bytes kept): mapping the word's scalars cost more than
            // the rest of lexing a script's INSERT statement.
            let word = source[start.offset..<offset]
            let upper = String(unsafeUninitializedCapacity: word.count) { buffer in
                for (index, byte) in word.enumerated() {
                    buffer[index] = byte >= 0x61 && byte <= 0x7A ? byte - 0x20 : byte
                }
                return word.count
            }
            return makeToken(.word, from: start, keyword: upper)
        case 0x3F:  // ?
            advance()
            while let c = byte(at: offset), Lexer.isDigit(c) { advance() }
            return makeToken(.parameter, from: start)
        case 0x3A, 0x40, 0x24:  // : @ $
            advance()
            while let c = byte(at: offset), Lexer.isIdentifierContinue(c) { advance() }
            guard offset - start.offset > 1 else {
                throw error("unrecognized token: \"\(text(from: start.offset))\"", at: start)
            }
            return makeToken(.parameter, from: start)
        default:
            return try lexSymbol(current, start: start)
        }
    }

    private mutating func lexQuoted(close: UInt8, start: SourceLocation, what: String) throws(SQLSyntaxError)
        -> String
    {
        advance()  // opening quote
        var bytes: [UInt8] = []
        while true {
            guard let c = byte(at: offset) else {
                throw error("unterminated \(what): \(Lexer.excerpt(text(from: start.offset)))", at: start)
            }
            advance()
            if c == close {
                if byte(at: offset) == close {
                    bytes.append(c)
                    advance()
                } else {
                    return String(decoding: bytes, as: UTF8.self)
                }
            } else {
                bytes.append(c)
            }
        }
    }

    private mutating func lexNumber(start: SourceLocation) throws(SQLSyntaxError) -> Token {
        var kind = TokenKind.integer
        if source[offset] == 0x30, let x = byte(at: offset + 1), x == 0x78 || x == 0x58,
            byte(at: offset + 2).map(Lexer.isHexDigit) == true
        {
            advance(2)
            while let c = byte(at: offset), Lexer.isHexDigit(c) { advance() }
        } else {
            while let c = byte(at: offset), Lexer.isDigit(c) { advance() }
            if byte(at: offset) == 0x2E {
                kind = .real
                advance()
                while let c = byte(at: offset), Lexer.isDigit(c) { advance() }
            }
            if let e = byte(at: offset), e == 0x65 || e == 0x45 {
                var probe = offset + 1
                if let sign = byte(at: probe), sign == 0x2B || sign == 0x2D { probe += 1 }
                if byte(at: probe).map(Lexer.isDigit) == true {
                    kind = .real
                    advance(probe - offset)
                    while let c = byte(at: offset), Lexer.isDigit(c) { advance() }
                } else {
                    advance()
                    throw error("unrecognized token: \"\(Lexer.excerpt(text(from: start.offset)))\"", at: start)
                }
            }
        }
        if let c = byte(at: offset), Lexer.isIdentifierContinue(c) || c == 0x2E {
            while let c = byte(at: offset), Lexer.isIdentifierContinue(c) || c == 0x2E { advance() }
            throw error("unrecognized token: \"\(Lexer.excerpt(text(from: start.offset)))\"", at: start)
        }
        return makeToken(kind, from: start)
    }

    private mutating func lexSymbol(_ current: UInt8, start: SourceLocation) throws(SQLSyntaxError) -> Token {
        let next = byte(at: offset + 1)
        let length: Int
        switch current {
        case 0x28, 0x29, 0x3B, 0x2B, 0x2A, 0x2F, 0x25, 0x2C, 0x26, 0x7E, 0x2E:  // ( ) ; + * / % , & ~ .
            length = 1
        case 0x2D:  // - -> ->>
            length = next == 0x3E ? (byte(at: offset + 2) == 0x3E ? 3 : 2) : 1
        case 0x3D:  // = ==
            length = next == 0x3D ? 2 : 1
        case 0x3C:  // < <= <> <<
            length = (next == 0x3D || next == 0x3E || next == 0x3C) ? 2 : 1
        case 0x3E:  // > >= >>
            length = (next == 0x3D || next == 0x3E) ? 2 : 1
        case 0x21 where next == 0x3D:  // !=
            length = 2
        case 0x7C:  // | ||
            length = next == 0x7C ? 2 : 1
        default:
            // Consume one whole UTF-8 scalar so the message shows a complete character.
            advance()
            while let c = byte(at: offset), c & 0xC0 == 0x80 { advance() }
            throw error("unrecognized token: \"\(text(from: start.offset))\"", at: start)
        }
        advance(length)
        return makeToken(.symbol, from: start)
    }
}
