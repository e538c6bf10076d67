import GraniteTestSupport
import XCTest

@testable import GraniteStorage

/// Randomized model-based test of index trees: byte keys (some long enough
/// to overflow), values, inserts, replaces, deletes, seeks and scans.
final class IndexTreeModelTests: XCTestCase {

    static func less(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.lexicographicallyPrecedes(b)
    }

    /// The position of the first of the sorted `keys` that is not below `key`.
    static func lowerBound(_ keys: [[UInt8]], _ key: [UInt8]) -> Int {
        var low = 0
        var high = keys.count
        while low < high {
            let mid = (low + high) / 2
            if less(keys[mid], key) { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// Checks that `cursor`, just positioned (`ok` is what the move returned), stands on `keys[position]` (the
    /// model's sorted keys) and steps through the next ones for `steps` entries, with `payload(key)` when given.
    func assertSteps(
        _ cursor: IndexCursor, _ ok: Bool, from position: Int, in keys: [[UInt8]], steps: Int,
        payload: (([UInt8]) -> [UInt8]?)? = nil, _ context: String
    ) throws {
        var ok = ok
        var position = position
        for _ in 0..<steps {
            XCTAssertEqual(ok, position < keys.count, context)
            guard ok, position < keys.count else { break }
            XCTAssertEqual(cursor.key, keys[position], context)
            if let payload { XCTAssertEqual(try cursor.payload(), payload(keys[position]), context) }
            ok = try cursor.next()
            position += 1
        }
    }

    func randomKey(_ rng: inout SplitMix64, pageSize: Int) -> [UInt8] {
        let length: Int
        switch rng.next(below: 100) {
        case 0..<70: length = Int(rng.next(below: 12))
        case 70..<95: length = Int(rng.next(below: 80))
        default: length = Int(rng.next(below: UInt64(pageSize * 3)))
        }
        // A small alphabet with shared prefixes makes separators interesting.
        var key = [UInt8]()
        key.reserveCapacity(length)
        let prefix = Int(rng.next(below: 4))
        for i in 0..<length { key.append(i < prefix ? 0x41 : UInt8(rng.next(below: 6)) * 40) }
        return key
    }

    func runIndexModel(seed: UInt64, operations: Int, pageSize: Int) throws {
        var rng = SplitMix64(seed: seed)
        var options = StorageOptions()
        options.pageSize = pageSize
        options.cacheSize = 128
        let engine = try StorageEngine.inMemory(options: options)
        try engine.beginWrite()
        let index = try engine.createIndex(named: "i")
        var model: [[UInt8]: [UInt8]] = [:]
        var keys: [[UInt8]] = []
        var pool: [[UInt8]] = []
        let context = "seed \(seed) (rerun with GRANITE_SEED=\(seed))"
        // A cursor kept across operations: its seeks start from wherever it stands, on a leaf the tree may have
        // changed since (a seek may then stay on the leaf, or must descend again).
        let kept = try index.makeCursor()

        func lowerBound(_ key: [UInt8]) -> Int { Self.lowerBound(keys, key) }

        for op in 0..<operations {
            let key: [UInt8]
            if !pool.isEmpty && rng.next(below: 2) == 0 {
                key = pool[Int(rng.next(below: UInt64(pool.count)))]
            } else {
                key = randomKey(&rng, pageSize: pageSize)
                if pool.count < 4000 { pool.append(key) }
            }
            switch rng.next(below: 100) {
            case 0..<45:
                let value = payloadBytes(Int(rng.next(below: 3)) * Int(rng.next(below: 50)), seed: rng.next())
                do {
                    try index.insert(key: key, value: value)
                    XCTAssertNil(model[key], context)
                    model[key] = value
                    keys.insert(key, at: lowerBound(key))
                } catch StorageError.duplicateKey {
                    XCTAssertNotNil(model[key], context)
                }
            case 45..<55:
                let value = payloadBytes(Int(rng.next(below: 200)), seed: rng.next())
                let existed = try index.replace(key: key, value: value)
                XCTAssertEqual(existed, model[key] != nil, context)
                if !existed { keys.insert(key, at: lowerBound(key)) }
                model[key] = value
            case 55..<80:
                let existed = model.removeValue(forKey: key) != nil
                XCTAssertEqual(try index.delete(key: key), existed, context)
                if existed { keys.remove(at: lowerBound(key)) }
            case 80..<90:
                XCTAssertEqual(try index.get(key: key), model[key], context)
            default:
                let ok: Bool
                let cursor: IndexCursor
                switch rng.next(below: 3) {
                case 0:
                    cursor = kept
                    ok = try cursor.seekNearby(atOrAfter: key)
                case 1:
                    cursor = kept
                    ok = try cursor.seek(atOrAfter: key)
                default:
                    cursor = try index.makeCursor()
                    ok = try cursor.seek(atOrAfter: key)
                }
                try assertSteps(
                    cursor, ok, from: lowerBound(key), in: keys, steps: Int(rng.next(below: 10)),
                    payload: { model[$0] }, context)
            }
            if (op + 1) % 2_000 == 0 || op == operations - 1 {
                assertSound(engine, "after \(op + 1) operations, \(context)")
                let cursor = try index.makeCursor()
                var ok = try cursor.first()
                var i = 0
                while ok {
                    guard i < keys.count else { break }
                    XCTAssertEqual(cursor.key, keys[i], context)
                    i += 1
                    ok = try cursor.next()
                }
                XCTAssertEqual(i, keys.count, context)
                XCTAssertFalse(ok, context)
            }
            if testRun?.failureCount ?? 0 > 0 { return }
        }
    }

    /// One cursor seeking keys of an index of many leaves, mostly a little further on (as a join does, once per
    /// outer row), sometimes far ahead, back, or to keys that fall between entries, before or after every entry:
    /// each seek must land where a search from the root does, and stepping on from there must too.
    func testSeeksFromTheCursorsPositionMatchTheModel() throws {
        let seed = testSeed()
        var rng = SplitMix64(seed: seed)
        let context = "seed \(seed) (rerun with GRANITE_SEED=\(seed))"
        var options = StorageOptions()
        options.pageSize = 512
        let engine = try StorageEngine.inMemory(options: options)
        try engine.beginWrite()
        let index = try engine.createIndex(named: "i")
        // Entries (group, rowid) as the SQL layer encodes them: groups of 0 to 12 entries, some groups empty.
        var keys: [[UInt8]] = []
        var rowid: Int64 = 0
        for group in 0..<(600 * stressFactor) {
            for _ in 0..<Int(rng.next(below: 13)) {
                rowid += 1
                var key: [UInt8] = []
                KeyEncoding.append(.integer(Int64(group * 2)), to: &key)
                KeyEncoding.append(.integer(rowid), to: &key)
                try index.insert(key: key, value: [])
                keys.append(key)
            }
        }
        keys.sort(by: Self.less)
        let cursor = try index.makeCursor()
        var group = -3
        for _ in 0..<(4_000 * stressFactor) {
            switch rng.next(below: 20) {
            case 0: group -= Int(rng.next(below: 40))
            case 1: group += Int(rng.next(below: 400))
            default: group += Int(rng.next(below: 3))
            }
            if group > 1_300 * stressFactor { group = -3 }
            // Even groups hold entries, odd ones fall between; a prefix alone seeks the group's first entry.
            var target: [UInt8] = []
            KeyEncoding.append(.integer(Int64(group)), to: &target)
            if rng.next(below: 4) == 0 { KeyEncoding.append(.integer(Int64(rng.next(below: 8_000))), to: &target) }
            let ok = try cursor.seekNearby(atOrAfter: target)
            try assertSteps(
                cursor, ok, from: Self.lowerBound(keys, target), in: keys, steps: Int(rng.next(below: 14)), context)
            if testRun?.failureCount ?? 0 > 0 { return }
        }
    }

    func testIndexModelSmallPages() throws {
        try runIndexModel(seed: testSeed(), operations: 30_000 * stressFactor, pageSize: 512)
    }

    func testIndexModelDefaultPages() throws {
        try runIndexModel(seed: testSeed(), operations: 20_000 * stressFactor, pageSize: 4096)
    }
}
