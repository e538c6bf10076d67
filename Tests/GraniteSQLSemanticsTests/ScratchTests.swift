import CSQLiteOracle
import Foundation
import GraniteSQL
import GraniteStorage
import XCTest

final class ScratchTests: XCTestCase {
    func testScratch() throws {
        guard let path = ProcessInfo.processInfo.environment["SCRATCH"] else { return }
        let script = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        let oracle = Oracle()
        oracle.execute("PRAGMA foreign_keys=ON")
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        for sql in script where !sql.isEmpty {
            let e = oracle.all(sql, [])
            let a = StatementOutcome.granite(db, sql, [])
            print(sql)
            print("  sqlite:", e, sqlite3_changes(oracle.db), sqlite3_total_changes(oracle.db))
            print("  granite:", a, db.changes, db.totalChanges)
        }
    }
}
