import GraniteStorage

extension SQLConnection {
    /// Hands each statement of `sql` to `body`, in order, prepared only when its turn comes: a statement may use a
    /// table an earlier one created once `body` has run it. A statement that fails to prepare is handed over as its
    /// error, and the next one still comes; `body` returns `false` to stop. Throws only when `sql` does not parse.
    ///
    /// For the fuzzers, a separate package that sees only public declarations: the parsed statements it
    /// walks are `package`, so that their names stay out of an embedder's way.
    @_spi(Fuzzing) public func forEachStatement(
        in sql: String, _ body: (Result<PreparedStatement, any Error>) -> Bool
    ) throws(SQLSyntaxError) {
        for statement in try Parser.parseScript(sql) {
            let prepared = Result<PreparedStatement, any Error> { try prepare(parsed: statement) }
            guard body(prepared) else { return }
        }
    }
}
