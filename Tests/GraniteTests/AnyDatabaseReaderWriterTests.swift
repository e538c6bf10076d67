import Foundation
import Granite
import GraniteTestSupport
import XCTest

final class AnyDatabaseReaderWriterTests: XCTestCase {
    func testAnyDatabaseWriterForwardsToAQueue() throws {
        var configuration = Configuration()
        configuration.label = "Erased"
        let dbQueue = try DatabaseQueue(configuration: configuration)
        let writer = AnyDatabaseWriter(dbQueue)
        XCTAssertEqual(writer.path, ":memory:")
        XCTAssertEqual(writer.configuration.label, "Erased")
        try writer.write { db in try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        try writer.writeWithoutTransaction { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        try writer.barrierWriteWithoutTransaction { db in try db.execute(sql: "INSERT INTO t VALUES (3)") }
        XCTAssertEqual(try writer.read { db in try Int.fetchAll(db, sql: "SELECT a FROM t ORDER BY a") }, [1, 2, 3])
        XCTAssertEqual(try writer.unsafeRead { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") }, 3)
        XCTAssertEqual(try writer.unsafeReentrantWrite { db in try writer.unsafeReentrantRead { _ in 4 } }, 4)
        XCTAssertThrowsError(try writer.read { db in try db.execute(sql: "DELETE FROM t") }) { error in
            XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_READONLY)
        }
    }

    func testAnyDatabaseWriterAsyncAccesses() async throws {
        let directory = try makeTemporaryDirectory(prefix: "granite-any")
        let writer = AnyDatabaseWriter(try DatabasePool(path: directory.path("db.granite")))
        try await writer.write { db in try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        try await writer.writeWithoutTransaction { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        try await writer.barrierWriteWithoutTransaction { db in try db.execute(sql: "INSERT INTO t VALUES (3)") }
        let sum = try await writer.read { db in try Int.fetchOne(db, sql: "SELECT SUM(a) FROM t")! }
        XCTAssertEqual(sum, 6)
        let count = try await writer.unsafeRead { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t")! }
        XCTAssertEqual(count, 3)
        let viaCallback: Int = try await withCheckedThrowingContinuation { continuation in
            writer.asyncRead { result in
                continuation.resume(with: Result { try Int.fetchOne(result.get(), sql: "SELECT MAX(a) FROM t")! })
            }
        }
        XCTAssertEqual(viaCallback, 3)
        try writer.close()
        assertReadFails(writer)
    }

    private func assertReadFails(_ writer: AnyDatabaseWriter) {
        XCTAssertThrowsError(try writer.read { db in try db.execute(sql: "SELECT 1") })
    }

    func testAnyDatabaseReaderForwardsToASnapshot() throws {
        let directory = try makeTemporaryDirectory(prefix: "granite-any")
        let dbPool = try DatabasePool(path: directory.path("db.granite"))
        try dbPool.write { db in try db.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1)") }
        let reader = AnyDatabaseReader(try dbPool.makeSnapshot())
        try dbPool.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        XCTAssertEqual(reader.path, dbPool.path)
        XCTAssertEqual(try reader.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") }, 1)
        XCTAssertEqual(try reader.unsafeRead { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") }, 1)
        XCTAssertEqual(try reader.unsafeReentrantRead { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") }, 1)
        let erasedAgain = AnyDatabaseReader(AnyDatabaseReader(dbPool))
        XCTAssertEqual(try erasedAgain.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") }, 2)
    }
}
