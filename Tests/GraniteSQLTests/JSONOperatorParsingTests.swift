import GraniteSQL
import XCTest

/// `->` and `->>` parse with the precedence of `||` (left-associative, tighter than `*`), and print back to
/// text that parses to the same tree.
final class JSONOperatorParsingTests: XCTestCase {
    func testArrowOperatorsShareConcatenationPrecedence() {
        assertExpression("a -> 'b'", "(a -> 'b')")
        assertExpression("a ->> 0", "(a ->> 0)")
        assertExpression("a -> 'b' ->> '$.c[1]'", "((a -> 'b') ->> '$.c[1]')")
        assertExpression("a -> 'b' || 'c'", "((a -> 'b') || 'c')")
        assertExpression("a || 'b' -> 'c'", "((a || 'b') -> 'c')")
        assertExpression("1 + a ->> 'b' * 2", "(1 + ((a ->> 'b') * 2))")
        assertExpression("-a -> 'b'", "((-a) -> 'b')")
        assertExpression("a -> 'b' = 1", "((a -> 'b') = 1)")
        assertExpression("a COLLATE nocase -> 'b'", "((a COLLATE nocase) -> 'b')")
    }
}
