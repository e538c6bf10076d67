import GraniteSQL
import GraniteStorage
import XCTest

/// The argument of `integrity_check` and `quick_check`, as a pragma and as a table-valued function: a number
/// (what an optional sign and digits start) limits the problems reported, anything else names a table, which
/// must exist.
final class IntegrityCheckArgumentDifferentialTests: XCTestCase {
    func testArgumentsMatchSQLite() throws {
        try TriggerDifferentialTests.check([
            "CREATE TABLE t(a)",
            "CREATE INDEX i ON t(a)",
            "CREATE VIEW v AS SELECT a FROM t",
            "INSERT INTO t VALUES (1), (2)",
            "SELECT * FROM pragma_integrity_check",
            "SELECT * FROM pragma_integrity_check('x')",
            "SELECT * FROM pragma_integrity_check('t')",
            "SELECT * FROM pragma_integrity_check(5)",
            "SELECT * FROM pragma_quick_check('nosuch')",
            "SELECT * FROM pragma_quick_check('T')",
            "PRAGMA integrity_check(x)",
            "PRAGMA integrity_check(t)",
            "PRAGMA integrity_check(sqlite_schema)",
            "PRAGMA quick_check(SQLITE_MASTER)",
            "PRAGMA integrity_check(i)",
            "CREATE TEMP TABLE tt(a)",
            "PRAGMA integrity_check(tt)",
            "PRAGMA integrity_check(3)",
            "PRAGMA integrity_check(-1)",
            "PRAGMA quick_check('v')",
            "PRAGMA integrity_check('+3')",
            "PRAGMA integrity_check('3abc')",
            "PRAGMA integrity_check(' 3')",
            "PRAGMA integrity_check('')",
            "SELECT * FROM pragma_integrity_check(2.5)",
            "SELECT * FROM pragma_integrity_check('1e3')",
            "SELECT * FROM pragma_integrity_check('99999999999')",
            "SELECT * FROM pragma_integrity_check WHERE arg IN (3, 'x')",
        ])
    }
}
