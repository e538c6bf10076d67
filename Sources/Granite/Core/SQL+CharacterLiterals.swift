// Single-character literals: Swift uses these initializers for a literal of one character, such as
// `let sql: SQL = "*"`. They build raw SQL, as string literals do.

extension SQL {
    /// Raw SQL made of one character, without arguments.
    public init(unicodeScalarLiteral: String) {
        self.init(sql: unicodeScalarLiteral)
    }

    /// Raw SQL made of one character, without arguments.
    public init(extendedGraphemeClusterLiteral: String) {
        self.init(sql: extendedGraphemeClusterLiteral)
    }
}

extension SQLRequest {
    /// A request for raw SQL made of one character, without arguments.
    public init(unicodeScalarLiteral: String) {
        self.init(sql: unicodeScalarLiteral)
    }

    /// A request for raw SQL made of one character, without arguments.
    public init(extendedGraphemeClusterLiteral: String) {
        self.init(sql: extendedGraphemeClusterLiteral)
    }
}
