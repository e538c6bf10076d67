import GraniteTestSupport
import XCTest

@testable import GraniteStorage

/// Randomized model-based tests: every operation is applied to a tree and to
/// a sorted in-memory model, and the two are compared.
final class BTreeModelTests: XCTestCase {

    /// A sorted map model of a table tree.
    struct Model {
        var rows: [Int64: [UInt8]] = [:]
        var keys: [Int64] = []

        func lowerBound(_ key: Int64) -> Int {
            var low = 0
            var high = keys.count
            while low < high {
                let mid = (low + high) / 2
                if keys[mid] < key { low = mid + 1 } else { high = mid }
            }
            return low
        }

        mutating func set(_ key: Int64, _ value: [UInt8]) {
            if rows.updateValue(value, forKey: key) == nil { keys.insert(key, at: lowerBound(key)) }
        }

        mutating func remove(_ key: Int64) -> Bool {
            guard rows.removeValue(forKey: key) != nil else { return false }
            keys.remove(at: lowerBound(key))
            return true
        }
    }

    func randomPayloadSize(_ rng: inout SplitMix64, pageSize: Int) -> Int {
        switch rng.next(below: 100) {
        case 0..<60: return Int(rng.next(below: 64))
        case 60..<90: return Int(rng.next(below: UInt64(pageSize / 4)))
        case 90..<98: return Int(rng.next(below: UInt64(pageSize * 2)))
        default: return Int(rng.next(below: UInt64(pageSize * 6)))
        }
    }

    func runTableModel(seed: UInt64, operations: Int, pageSize: Int, keySpace: UInt64, cacheSize: Int) throws {
        var rng = SplitMix64(seed: seed)
        var options = StorageOptions()
        options.pageSize = pageSize
        options.cacheSize = cacheSize
        let engine = try StorageEngine.inMemory(options: options)
        try engine.beginWrite()
        let table = try engine.createTable(named: "t")
        var model = Model()
        let batch = 2_000
        let context = "seed \(seed) (rerun with GRANITE_SEED=\(seed))"
        for op in 0..<operations {
            let key = Int64(rng.next(below: keySpace)) - Int64(keySpace / 8)
            switch rng.next(below: 100) {
            case 0..<40:
                let payload = payloadBytes(randomPayloadSize(&rng, pageSize: pageSize), seed: rng.next())
                do {
                    try table.insert(rowid: key, payload: payload)
                    XCTAssertNil(model.rows[key], "insert of existing key succeeded, \(context)")
                    model.set(key, payload)
                } catch StorageError.duplicateKey {
                    XCTAssertNotNil(model.rows[key], "duplicate reported for absent key, \(context)")
                }
            case 40..<55:
                let payload = payloadBytes(randomPayloadSize(&rng, pageSize: pageSize), seed: rng.next())
                let replaced = try table.replace(rowid: key, payload: payload)
                XCTAssertEqual(replaced, model.rows[key] != nil, context)
                model.set(key, payload)
            case 55..<80:
                XCTAssertEqual(try table.delete(rowid: key), model.remove(key), "delete \(key), \(context)")
            case 80..<92:
                XCTAssertEqual(try table.get(rowid: key), model.rows[key], "get \(key), \(context)")
            default:
                // Range scan from a random start, forward or backward, a few steps.
                let cursor = try table.makeCursor()
                let steps = Int(rng.next(below: 20))
                var position = model.lowerBound(key)
                var ok = try cursor.seek(atOrAfter: key)
                if rng.next(below: 2) == 0 {
                    for _ in 0..<steps {
                        XCTAssertEqual(ok, position < model.keys.count, context)
                        guard ok, position < model.keys.count else { break }
                        XCTAssertEqual(cursor.rowid, model.keys[position], context)
                        XCTAssertEqual(try cursor.payload(), model.rows[cursor.rowid], context)
                        ok = try cursor.next()
                        position += 1
                    }
                } else if ok {
                    for _ in 0..<steps {
                        guard ok else {
                            XCTAssertEqual(position, -1, context)
                            break
                        }
                        XCTAssertEqual(cursor.rowid, model.keys[position], context)
                        ok = try cursor.previous()
                        position -= 1
                    }
                }
            }
            if (op + 1) % batch == 0 || op == operations - 1 {
                assertSound(engine, "after \(op + 1) operations, \(context)")
                try Self.compareAll(table, model, context)
                if rng.next(below: 4) == 0 { try engine.commitAndWrite() }
            }
            if testRun?.failureCount ?? 0 > 0 { return }
        }
        // Full table leaves whose siblings had no room were rebuilt with their neighbourhood (BTree.balanceLeaves).
        XCTAssertGreaterThan(engine.treeContext.leafBalances.overflow, 0, "multi-page balances on overflow, \(context)")
    }

    /// Compares every row of `table` with `model`, forward and backward, and the table's count.
    static func compareAll(_ table: TableTree, _ model: Model, _ context: String) throws {
        let cursor = try table.makeCursor()
        var ok = try cursor.first()
        var i = 0
        while ok {
            guard i < model.keys.count else {
                XCTFail("tree has more rows than the model, \(context)")
                return
            }
            XCTAssertEqual(cursor.rowid, model.keys[i], context)
            XCTAssertEqual(try cursor.payload(), model.rows[model.keys[i]], context)
            if let local = try cursor.localPayload() {
                XCTAssertEqual([UInt8](local), model.rows[model.keys[i]], "local payload, \(context)")
            }
            i += 1
            ok = try cursor.next()
        }
        XCTAssertEqual(i, model.keys.count, "row count, \(context)")
        XCTAssertEqual(try table.count(), model.keys.count, context)
        // Backward too.
        ok = try cursor.last()
        var j = model.keys.count - 1
        while ok {
            XCTAssertEqual(cursor.rowid, model.keys[j], context)
            j -= 1
            ok = try cursor.previous()
        }
    }

    func testTableModelSmallPages() throws {
        let seed = testSeed()
        try runTableModel(seed: seed, operations: 60_000 * stressFactor, pageSize: 512, keySpace: 3_000, cacheSize: 64)
    }

    func testTableModelDefaultPages() throws {
        let seed = testSeed()
        try runTableModel(
            seed: seed, operations: 40_000 * stressFactor, pageSize: 4096, keySpace: 20_000, cacheSize: 2000)
    }
}
