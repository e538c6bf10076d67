import XCTest

@testable import GraniteStorage

/// The rowid search of table pages guesses a position by interpolating between a page's first and last rowids
/// (``BTree/searchRowid(_:_:)``): these tests check that every seek finds what a binary search finds, for rowid
/// layouts where the guess is exact, close, far off, or meaningless (rowids near the ends of the Int64 range,
/// whose differences lose precision as doubles).
final class RowidSearchTests: XCTestCase {
    /// A table holding `rowids` (small payloads, so leaves hold many cells), checked with seeks to every rowid,
    /// to the values between and around them, and to the ends of the Int64 range.
    func check(_ rowids: [Int64], pageSize: Int = 4096, payload: Int = 8, _ name: String) throws {
        var options = StorageOptions()
        options.pageSize = pageSize
        let engine = try StorageEngine.inMemory(options: options)
        try engine.beginWrite()
        let table = try engine.createTable(named: "t")
        var inserted = Set<Int64>()
        for rowid in rowids where inserted.insert(rowid).inserted {
            try table.insert(rowid: rowid, payload: [UInt8](repeating: 7, count: payload))
        }
        let keys = Set(rowids).sorted()
        var targets: Set<Int64> = [Int64.min, Int64.min + 1, Int64.max, Int64.max - 1, 0, -1, 1]
        for key in keys {
            targets.insert(key)
            if key > Int64.min { targets.insert(key - 1) }
            if key < Int64.max { targets.insert(key + 1) }
        }
        for k in keys.indices.dropFirst() where keys[k] &- keys[k - 1] > 2 {
            // A value strictly inside each gap, computed without overflow.
            targets.insert(keys[k - 1] + (keys[k] - keys[k - 1]) / 2)
        }
        let cursor = try table.makeCursor()
        for target in targets.sorted() {
            var low = 0
            var high = keys.count
            while low < high {
                let mid = (low + high) / 2
                if keys[mid] < target { low = mid + 1 } else { high = mid }
            }
            let exists = low < keys.count && keys[low] == target
            XCTAssertEqual(try cursor.seek(rowid: target), exists, "\(name): seek(rowid: \(target))")
            if exists { XCTAssertEqual(cursor.rowid, target, "\(name): seek(rowid: \(target))") }
            let valid = try cursor.seek(atOrAfter: target)
            XCTAssertEqual(valid, low < keys.count, "\(name): seek(atOrAfter: \(target))")
            if valid, low < keys.count {
                XCTAssertEqual(cursor.rowid, keys[low], "\(name): seek(atOrAfter: \(target))")
            }
            if testRun?.failureCount ?? 0 > 0 { return }
        }
    }

    func testDenseRowids() throws {
        try check(Array(1...5_000), "1...5000")
        try check(Array(1...5_000), pageSize: 512, "1...5000, 512-byte pages")
        try check(Array(-2_000...2_000), "-2000...2000")
        try check(Array(1...7), "seven rows (binary search only)")
        try check([], "empty")
    }

    func testGapsAndSkew() throws {
        try check((1...6_000).filter { $0 % 3 != 0 }.map { Int64($0) }, "every third deleted")
        try check((1...3_000).map { Int64($0) * Int64($0) }, "squares")
        try check((0..<2_000).map { Int64(1) << Int64($0 % 62) &+ Int64($0) }, "powers of two")
        try check(Array(1...2_000) + Array(1_000_000...1_002_000), "two dense runs far apart")
        var rng = SplitMix64(seed: 0x5EA2_C4)
        try check((0..<4_000).map { _ in Int64(bitPattern: rng.next()) }, "random 64-bit rowids")
        try check((0..<4_000).map { _ in Int64(rng.next(below: 1_000_000)) }, pageSize: 1024, "random below 10^6")
    }

    func testRowidsAtTheEndsOfTheRange() throws {
        let low = (0..<1_000).map { Int64.min + $0 * 3 }
        let high = (0..<1_000).map { Int64.max - $0 * 5 }
        try check(low + high, "both ends of Int64")
        try check(low + [0] + high, pageSize: 512, "both ends and zero, 512-byte pages")
        try check((0..<500).map { Int64.max - $0 }, "top 500")
        try check((0..<500).map { (1 << 62) + $0 }, "spacing below double precision")
    }
}
