/// The lexical category of a ``Token``.
package enum TokenKind: Sendable, Hashable {
    /// A bare word: a keyword or an unquoted identifier (keywords are recognised by the parser).
    case word
    /// An identifier quoted with `"…"`, `` `…` `` or `[…]`.
    case quotedIdentifier
    /// A `'…'` string literal.
    case string
    /// A decimal or `0x…` hexadecimal integer literal.
    case integer
    /// A real literal (with a fraction and/or exponent).
    case real
    /// An `X'…'` blob literal.
    case blob
    /// A bound parameter: `?`, `?NNN`, `:name`, `@name` or `$name`.
    case parameter
    /// An operator or punctuation symbol such as `(`, `<=` or `||`.
    case symbol
    /// The end of the input.
    case endOfInput
}

/// One lexical token with its source range.
package struct Token: Sendable, Hashable {
    /// The token's category.
    package var kind: TokenKind
    /// The exact source text of the token.
    package var text: String
    /// The decoded value: the identifier name (unquoted, escapes resolved), the string contents, the hex
    /// digits of a blob, or the text itself for other kinds.
    package var value: String
    /// For `.word` tokens, the ASCII-uppercased text used for keyword matching; empty otherwise.
    package var keyword: String
    /// Where the token appears in the source.
    package var range: SourceRange

    /// Creates a token.
    package init(kind: TokenKind, text: String, value: String, keyword: String = "", range: SourceRange) {
        self.kind = kind
        self.text = text
        self.value = value
        self.keyword = keyword
        self.range = range
    }
}
