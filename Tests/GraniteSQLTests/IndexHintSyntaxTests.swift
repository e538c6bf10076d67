import GraniteSQL
import XCTest

/// `INDEXED BY name` and `NOT INDEXED` after a table name in `FROM`, `UPDATE` and `DELETE`: parsed where SQLite's
/// grammar takes them, printed back in canonical form, refused where it refuses them.
final class IndexHintSyntaxTests: XCTestCase {
    func testSelectSources() {
        assertCanonical("SELECT * FROM t INDEXED BY t_a WHERE a = 1", "SELECT * FROM t INDEXED BY t_a WHERE (a = 1)")
        assertCanonical("select * from t not indexed", "SELECT * FROM t NOT INDEXED")
        assertCanonical("SELECT * FROM main.t AS x INDEXED BY i", "SELECT * FROM main.t AS x INDEXED BY i")
        assertCanonical("SELECT * FROM t x NOT INDEXED", "SELECT * FROM t AS x NOT INDEXED")
        assertCanonical(
            "SELECT * FROM t INDEXED BY \"odd name\", u NOT INDEXED JOIN v INDEXED BY v_b USING (b)",
            "SELECT * FROM t INDEXED BY \"odd name\", u NOT INDEXED JOIN v INDEXED BY v_b USING (b)")
        // SQLite takes a string literal as the index name.
        assertCanonical("SELECT * FROM t INDEXED BY 't_a'", "SELECT * FROM t INDEXED BY t_a")
        // After AS, `indexed` is an alias like any other word.
        assertCanonical("SELECT * FROM t AS indexed", "SELECT * FROM t AS indexed")
        assertCanonical(
            "SELECT (SELECT count(*) FROM u INDEXED BY u_a WHERE u.a = t.a) FROM t",
            "SELECT (SELECT count(*) FROM u INDEXED BY u_a WHERE (u.a = t.a)) FROM t")
    }

    func testWriteTargets() {
        assertCanonical(
            "UPDATE OR IGNORE t INDEXED BY t_a SET b = 1 WHERE a = 2",
            "UPDATE OR IGNORE t INDEXED BY t_a SET b = 1 WHERE (a = 2)")
        assertCanonical("UPDATE t NOT INDEXED SET b = 1", "UPDATE t NOT INDEXED SET b = 1")
        assertCanonical(
            "DELETE FROM t INDEXED BY t_a WHERE a = 2 RETURNING *",
            "DELETE FROM t INDEXED BY t_a WHERE (a = 2) RETURNING *")
        assertCanonical("DELETE FROM t NOT INDEXED", "DELETE FROM t NOT INDEXED")
    }

    func testViewsKeepTheClause() {
        assertCanonical(
            "CREATE VIEW v AS SELECT a FROM t INDEXED BY t_a WHERE a > 0",
            "CREATE VIEW v AS SELECT a FROM t INDEXED BY t_a WHERE (a > 0)")
    }

    func testSyntaxErrors() {
        // As in SQLite: INDEXED must be followed by BY, NOT by INDEXED; one clause only, after the alias; none
        // after a subquery or a table-valued function; the index name is not schema-qualified.
        assertSyntaxError("SELECT * FROM t INDEXED", "incomplete input", at: (1, 24))
        assertSyntaxError("SELECT * FROM t INDEXED WHERE a = 1", "near \"WHERE\": syntax error", at: (1, 25))
        assertSyntaxError("SELECT * FROM t NOT", "incomplete input", at: (1, 20))
        assertSyntaxError("SELECT * FROM t INDEXED BY i NOT INDEXED", "near \"NOT\": syntax error", at: (1, 30))
        assertSyntaxError("SELECT * FROM t NOT INDEXED INDEXED BY i", "near \"INDEXED\": syntax error", at: (1, 29))
        assertSyntaxError("SELECT * FROM t INDEXED BY i AS x", "near \"AS\": syntax error", at: (1, 30))
        assertSyntaxError("SELECT * FROM t INDEXED BY main.i", "near \".\": syntax error", at: (1, 32))
        assertSyntaxError("SELECT * FROM (SELECT 1) INDEXED BY i", "near \"BY\": syntax error", at: (1, 34))
        assertSyntaxError("SELECT * FROM json_each('[1]') NOT INDEXED", "near \"NOT\": syntax error", at: (1, 32))
    }

    func testNotAllowedOnTriggerWrites() {
        assertSyntaxError(
            "CREATE TRIGGER tr AFTER INSERT ON u BEGIN UPDATE t INDEXED BY t_a SET b = 1; END",
            "the INDEXED BY clause is not allowed on UPDATE or DELETE statements within triggers", at: (1, 43))
        assertSyntaxError(
            "CREATE TRIGGER tr AFTER INSERT ON u BEGIN DELETE FROM t NOT INDEXED WHERE a = new.a; END",
            "the NOT INDEXED clause is not allowed on UPDATE or DELETE statements within triggers", at: (1, 43))
        // Queries inside a trigger body take the clause.
        assertCanonical(
            "CREATE TRIGGER tr AFTER INSERT ON u BEGIN UPDATE t SET b = (SELECT count(*) FROM u INDEXED BY u_a); END",
            "CREATE TRIGGER tr AFTER INSERT ON u BEGIN UPDATE t SET b = (SELECT count(*) FROM u INDEXED BY u_a); END")
    }
}
