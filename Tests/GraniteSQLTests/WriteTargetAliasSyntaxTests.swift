import GraniteSQL
import XCTest

/// `AS alias` after the target of UPDATE and DELETE: parsed where SQLite's grammar takes it (only with `AS`, before
/// `INDEXED BY` / `NOT INDEXED`), printed back in canonical form, refused in trigger bodies.
final class WriteTargetAliasSyntaxTests: XCTestCase {
    func testUpdateTargets() {
        assertCanonical("UPDATE t AS x SET b = 1 WHERE x.a = 2", "UPDATE t AS x SET b = 1 WHERE (x.a = 2)")
        assertCanonical(
            "update or replace main.t as x indexed by t_a set b = x.b + 1 returning a",
            "UPDATE OR REPLACE main.t AS x INDEXED BY t_a SET b = (x.b + 1) RETURNING a")
        assertCanonical(
            "UPDATE t AS x NOT INDEXED SET (a, b) = (1, 2)", "UPDATE t AS x NOT INDEXED SET (a, b) = (1, 2)")
        assertCanonical(
            "UPDATE t AS x SET b = u.c FROM u WHERE u.a = x.a", "UPDATE t AS x SET b = u.c FROM u WHERE (u.a = x.a)")
        // SQLite takes a string literal as the alias; a keyword-like or odd alias is quoted when printed.
        assertCanonical("UPDATE t AS 'x' SET b = 1", "UPDATE t AS x SET b = 1")
        assertCanonical("UPDATE t AS \"odd name\" SET b = 1", "UPDATE t AS \"odd name\" SET b = 1")
        assertCanonical("UPDATE t AS indexed SET b = 1", "UPDATE t AS indexed SET b = 1")
        assertCanonical(
            "WITH c AS (SELECT 1) UPDATE t AS c SET b = 1", "WITH c AS (SELECT 1) UPDATE t AS c SET b = 1")
    }

    func testDeleteTargets() {
        assertCanonical("DELETE FROM t AS x WHERE x.a = 1", "DELETE FROM t AS x WHERE (x.a = 1)")
        assertCanonical(
            "delete from temp.t as x indexed by i where x.a = 1 returning *",
            "DELETE FROM temp.t AS x INDEXED BY i WHERE (x.a = 1) RETURNING *")
        assertCanonical("DELETE FROM t AS x NOT INDEXED", "DELETE FROM t AS x NOT INDEXED")
    }

    func testSyntaxErrors() {
        // As in SQLite: the alias needs AS, comes before the index clause, and the SET column takes no qualifier.
        assertSyntaxError("UPDATE t x SET b = 1", "near \"x\": syntax error", at: (1, 10))
        assertSyntaxError("DELETE FROM t x WHERE a = 1", "near \"x\": syntax error", at: (1, 15))
        assertSyntaxError("UPDATE t INDEXED BY i AS x SET b = 1", "near \"AS\": syntax error", at: (1, 23))
        assertSyntaxError("UPDATE t AS x SET x.b = 1", "near \".\": syntax error", at: (1, 20))
        assertSyntaxError("UPDATE t AS SET b = 1", "near \"SET\": syntax error", at: (1, 13))
        assertSyntaxError("DELETE FROM t AS", "incomplete input", at: (1, 17))
    }

    func testNotAllowedOnTriggerWrites() {
        assertSyntaxError(
            "CREATE TRIGGER tr AFTER INSERT ON u BEGIN UPDATE t AS x SET b = 1; END",
            "near \"AS\": syntax error", at: (1, 52))
        assertSyntaxError(
            "CREATE TRIGGER tr AFTER INSERT ON u BEGIN DELETE FROM main.t AS x WHERE x.a = new.a; END",
            "near \"AS\": syntax error", at: (1, 62))
        // Queries inside a trigger body take aliases.
        assertCanonical(
            "CREATE TRIGGER tr AFTER INSERT ON u BEGIN DELETE FROM t WHERE a IN (SELECT x.a FROM u AS x); END",
            "CREATE TRIGGER tr AFTER INSERT ON u BEGIN DELETE FROM t WHERE (a IN (SELECT x.a FROM u AS x)); END")
    }
}
