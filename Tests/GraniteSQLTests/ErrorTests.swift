import GraniteSQL
import XCTest

final class ErrorTests: XCTestCase {
    func testSyntaxErrors() {
        assertSyntaxError("SELECT * FORM t", "near \"FORM\": syntax error", at: (1, 10))
        assertSyntaxError("SELECT 'abc", "unterminated string literal: 'abc", at: (1, 8))
        assertSyntaxError("SELECT x'abc'", "malformed blob literal: x'abc' (odd number of hex digits)", at: (1, 8))
        assertSyntaxError("SELECT x'zz'", "malformed blob literal: x'zz' (non-hex character)", at: (1, 8))
        assertSyntaxError("SELECT (1 + 2", "incomplete input", at: (1, 14))
        assertSyntaxError("INSERT INTO t VALUES", "incomplete input", at: (1, 21))
        assertSyntaxError("SELECT 1 garbage more", "near \"more\": syntax error", at: (1, 18))
        assertSyntaxError("SELECT 1; SELECT 2", "near \"SELECT\": syntax error", at: (1, 11))
        assertSyntaxError("SELECT\n  a,\n  FROM t", "near \"FROM\": syntax error", at: (3, 3))
        assertSyntaxError("SELECT \"abc", "unterminated quoted identifier: \"abc", at: (1, 8))
        assertSyntaxError("SELECT [abc", "unterminated quoted identifier: [abc", at: (1, 8))
        assertSyntaxError("SELECT 12abc", "unrecognized token: \"12abc\"", at: (1, 8))
        assertSyntaxError("SELECT 1e+", "unrecognized token: \"1e\"", at: (1, 8))
        assertSyntaxError("SELECT #", "unrecognized token: \"#\"", at: (1, 8))
        assertSyntaxError("SELECT :", "unrecognized token: \":\"", at: (1, 8))
        assertSyntaxError("SELECT ?0", "variable number must be between ?1 and ?32766", at: (1, 8))
        assertSyntaxError("SELECT 0x10000000000000000", "hex literal too big: 0x10000000000000000", at: (1, 8))
        assertSyntaxError("", "incomplete input", at: (1, 1))
        assertSyntaxError("CREATE TABLE t (a) WITHOUT ROWS", "unknown table option: ROWS", at: (1, 20))
        assertSyntaxError("CREATE TABLE t (a, PRIMARY KEY (a), b)", "near \"b\": syntax error", at: (1, 37))
        assertSyntaxError("SELECT * FROM t WHERE", "incomplete input", at: (1, 22))
        assertSyntaxError("VALUES (1, 2), (3)", "all VALUES must have the same number of terms", at: (1, 16))
        assertSyntaxError("SELECT CASE END", "near \"END\": syntax error", at: (1, 13))
        assertSyntaxError("UPDATE t SET", "incomplete input", at: (1, 13))
        assertSyntaxError("SELECT * FROM a RIGHT JOIN b", "RIGHT and FULL OUTER JOINs are not supported", at: (1, 17))
        assertSyntaxError("WITH x AS (DELETE FROM t) SELECT 1", "near \"DELETE\": syntax error", at: (1, 12))
        assertSyntaxError("SELECT * FROM select", "near \"select\": syntax error", at: (1, 15))
    }

    func testDescriptionQuotesLineWithCaret() {
        do {
            _ = try Parser.parseStatement("SELECT a\nFROM t WHERE a = = 1")
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual(
                error.description,
                "near \"=\": syntax error (line 2, column 18)\n    FROM t WHERE a = = 1\n                     ^")
        }
    }

    func testLexerTokens() throws {
        let tokens = try Lexer.tokenize("SELECT a<=b, 'x' -- c\n/* d */ ?1")
        XCTAssertEqual(tokens.map(\.kind), [.word, .word, .symbol, .word, .symbol, .string, .parameter, .endOfInput])
        XCTAssertEqual(tokens.map(\.text), ["SELECT", "a", "<=", "b", ",", "'x'", "?1", ""])
        XCTAssertEqual(tokens[6].range.start, SourceLocation(offset: 30, line: 2, column: 9))
        XCTAssertEqual(tokens[0].keyword, "SELECT")
    }
}
