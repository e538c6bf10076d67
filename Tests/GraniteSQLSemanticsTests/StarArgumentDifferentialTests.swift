import GraniteSQL
import GraniteStorage
import XCTest

/// `f(*)` is a call of `f` without arguments, for every function: it works where `f()` does and is an error where
/// `f()` is one.
final class StarArgumentDifferentialTests: XCTestCase {
    func testStarCallsMatchSQLite() throws {
        try TriggerDifferentialTests.check([
            "SELECT typeof(random(*)), random(*) = random(*)",
            "SELECT changes(*), total_changes(*), last_insert_rowid(*)",
            "SELECT typeof(date(*)), length(datetime(*)), typeof(julianday(*))",
            "SELECT abs(*)",
            "SELECT upper(*)",
            "SELECT sum(*)",
            "SELECT nosuch(*)",
            "SELECT count(*), count()",
            "SELECT coalesce(*)",
            "SELECT char(*), printf(*)",
        ])
    }
}
