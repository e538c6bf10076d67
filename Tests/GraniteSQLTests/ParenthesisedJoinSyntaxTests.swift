import GraniteSQL
import XCTest

/// A parenthesised list as one item of `FROM`, parsed as SQLite's grammar reads it: unnamed at the head of the
/// clause it is the clause itself, a single item takes the group's alias for its own, several items become one
/// nested source; printed back in canonical form.
final class ParenthesisedJoinSyntaxTests: XCTestCase {
    func testGroupsOfSeveralItems() {
        assertCanonical("SELECT * FROM a, (b JOIN c ON b.x = c.x)", "SELECT * FROM a, (b JOIN c ON (b.x = c.x))")
        assertCanonical(
            "select * from a left join (b natural join c) as g on g.x = a.x",
            "SELECT * FROM a LEFT JOIN (b NATURAL JOIN c) AS g ON (g.x = a.x)")
        assertCanonical(
            "SELECT * FROM a, (b, (c JOIN d USING (x)) AS h) g",
            "SELECT * FROM a, (b, (c JOIN d USING (x)) AS h) AS g")
        assertCanonical("SELECT * FROM (a JOIN b) AS g", "SELECT * FROM (a JOIN b) AS g")
        assertCanonical(
            "UPDATE t SET v = 1 FROM u, (a JOIN b USING (x))", "UPDATE t SET v = 1 FROM u, (a JOIN b USING (x))")
        assertCanonical(
            "CREATE VIEW v AS SELECT * FROM a, (b CROSS JOIN c)", "CREATE VIEW v AS SELECT * FROM a, (b CROSS JOIN c)")
    }

    func testGroupsThatAreNoGroup() {
        // At the head of the clause, unnamed: the clause itself.
        assertCanonical(
            "SELECT * FROM (a JOIN b USING (x)) JOIN c ON c.y = a.y",
            "SELECT * FROM a JOIN b USING (x) JOIN c ON (c.y = a.y)")
        assertCanonical("SELECT * FROM ((a AS p))", "SELECT * FROM a AS p")
        // One item: the group's alias replaces the item's, and its index hint is dropped, as in SQLite.
        assertCanonical("SELECT * FROM a, (b AS q)", "SELECT * FROM a, b")
        assertCanonical("SELECT * FROM a, (b AS q INDEXED BY i) AS r", "SELECT * FROM a, b AS r")
        assertCanonical("SELECT * FROM (a) AS p", "SELECT * FROM a AS p")
        assertCanonical("SELECT * FROM a, ((SELECT 1) AS s)", "SELECT * FROM a, (SELECT 1)")
        assertCanonical("SELECT * FROM a, (json_each('[1]') AS j)", "SELECT * FROM a, json_each('[1]')")
        assertCanonical("SELECT * FROM a, (((b)))", "SELECT * FROM a, b")
    }

    func testSyntaxErrors() {
        assertSyntaxError("SELECT * FROM a, ()", "near \")\": syntax error", at: (1, 19))
        assertSyntaxError("SELECT * FROM a, (b JOIN c", "incomplete input", at: (1, 27))
        assertSyntaxError("SELECT * FROM a, (b JOIN c) INDEXED BY i", "near \"INDEXED\": syntax error", at: (1, 29))
        assertSyntaxError("SELECT * FROM (a JOIN b) ON 1", "a JOIN clause is required before ON", at: (1, 26))
        assertSyntaxError("SELECT * FROM a USING (x)", "a JOIN clause is required before USING", at: (1, 17))
        assertSyntaxError("SELECT * FROM a, (b JOIN c) AS", "incomplete input", at: (1, 31))
        // As deep as other nesting, then refused rather than overflowing the stack.
        let deep = String(repeating: "(", count: 300) + "a" + String(repeating: ")", count: 300)
        XCTAssertThrowsError(try Parser.parseStatement("SELECT * FROM b, \(deep)"))
    }
}
