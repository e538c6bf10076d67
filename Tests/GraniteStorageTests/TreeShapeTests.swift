import GraniteTestSupport
import XCTest

@testable import GraniteStorage

/// Page fill, append fast path, merges, root stability, large payloads.
final class TreeShapeTests: XCTestCase {

    func testAscendingInsertFillsPages() throws {
        let engine = try StorageEngine.inMemory()
        try engine.beginWrite()
        let table = try engine.createTable(named: "t")
        let payload = payloadBytes(100, seed: 1)
        for rowid in 1...50_000 { try table.insert(rowid: Int64(rowid), payload: payload) }
        let report = engine.checkIntegrity()
        XCTAssertTrue(report.isOK, report.problems.joined(separator: "\n"))
        let stats = try XCTUnwrap(report.trees.first { $0.info.name == "t" })
        XCTAssertEqual(stats.entries, 50_000)
        XCTAssertGreaterThan(stats.leafFill, 0.97, "append path should fill leaves")
        XCTAssertGreaterThanOrEqual(stats.depth, 2)
        XCTAssertEqual(try table.count(), 50_000)
    }

    func testRandomInsertKeepsPagesReasonablyFull() throws {
        let engine = try StorageEngine.inMemory()
        try engine.beginWrite()
        let table = try engine.createTable(named: "t")
        var rng = SplitMix64(seed: 7)
        var rowids = Array(1...30_000).map(Int64.init)
        rowids.shuffle(using: &rng)
        for rowid in rowids { try table.insert(rowid: rowid, payload: payloadBytes(100, seed: UInt64(rowid))) }
        let stats = try XCTUnwrap(engine.checkIntegrity().trees.first { $0.info.name == "t" })
        XCTAssertGreaterThan(stats.leafFill, 0.6)
    }

    /// Rows that grow in place (an UPDATE lengthening a text column) overflow full leaves; a full leaf whose
    /// siblings have no room spreads its neighbourhood of up to five pages over one more, so that the table gains
    /// one page for about five full ones.
    func testRowsGrowingInPlaceKeepLeavesFull() throws {
        let engine = try StorageEngine.inMemory()
        try engine.beginWrite()
        let table = try engine.createTable(named: "t")
        let count = 20_000
        for rowid in 1...count { try table.insert(rowid: Int64(rowid), payload: payloadBytes(50, seed: UInt64(rowid))) }
        // One row in ten grows by 10 bytes, in a spread-out order.
        var grown = Set<Int>()
        for k in 0..<count / 10 {
            let rowid = (k * 7_919) % count + 1
            grown.insert(rowid)
            XCTAssertTrue(try table.replace(rowid: Int64(rowid), payload: payloadBytes(60, seed: UInt64(rowid))))
        }
        let report = engine.checkIntegrity()
        XCTAssertTrue(report.isOK, report.problems.joined(separator: "\n"))
        let stats = try XCTUnwrap(report.trees.first { $0.info.name == "t" })
        XCTAssertEqual(stats.entries, count)
        print("leaf fill after growing rows: \(stats.leafFill)")
        XCTAssertGreaterThan(stats.leafFill, 0.84, "a full leaf shares one new page with its full neighbours")
        for rowid in 1...count {
            let expected = payloadBytes(grown.contains(rowid) ? 60 : 50, seed: UInt64(rowid))
            let stored = try table.get(rowid: Int64(rowid))
            XCTAssertEqual(stored, expected, "row \(rowid)")
            if stored != expected { break }
        }
    }

    func testDeletesMergePagesAndCollapseRoot() throws {
        var options = StorageOptions()
        options.pageSize = 1024
        let engine = try StorageEngine.inMemory(options: options)
        try engine.beginWrite()
        let table = try engine.createTable(named: "t")
        let root = table.root
        for rowid in 1...20_000 {
            try table.insert(rowid: Int64(rowid), payload: payloadBytes(40, seed: UInt64(rowid)))
        }
        var rng = SplitMix64(seed: 3)
        var rowids = Array(1...20_000).map(Int64.init)
        rowids.shuffle(using: &rng)
        for (i, rowid) in rowids.enumerated() {
            XCTAssertTrue(try table.delete(rowid: rowid))
            if i == 15_000 {
                let report = engine.checkIntegrity()
                XCTAssertTrue(report.isOK, report.problems.joined(separator: "\n"))
                let stats = try XCTUnwrap(report.trees.first { $0.info.name == "t" })
                XCTAssertGreaterThan(stats.leafFill, 0.4, "merges keep leaves reasonably full")
            }
        }
        let report = engine.checkIntegrity()
        XCTAssertTrue(report.isOK, report.problems.joined(separator: "\n"))
        let stats = try XCTUnwrap(report.trees.first { $0.info.name == "t" })
        XCTAssertEqual(stats.depth, 1, "root collapses back to a leaf")
        XCTAssertEqual(stats.leafPages, 1)
        XCTAssertEqual(try engine.table(named: "t").root, root, "root page never moves")
        XCTAssertNil(try table.lastRowid())
    }

    func testPayloadSizesFromZeroTo16MiB() throws {
        let (path, cleanup) = temporaryPath()
        defer { cleanup() }
        let sizes = [0, 1, 100, 989, 990, 991, 4000, 4085, 4096, 10_000, 100_000, 1 << 20, 16 << 20]
        do {
            let engine = try StorageEngine(path: path)
            try engine.beginWrite()
            let table = try engine.createTable(named: "blobs")
            for (i, size) in sizes.enumerated() {
                try table.insert(rowid: Int64(i), payload: payloadBytes(size, seed: UInt64(size)))
            }
            try engine.commit()
            assertSound(engine, "after inserting large payloads")
            try engine.close()
        }
        let engine = try StorageEngine(path: path)
        try engine.beginWrite()
        let table = try engine.table(named: "blobs")
        for (i, size) in sizes.enumerated() {
            XCTAssertEqual(try table.get(rowid: Int64(i)), payloadBytes(size, seed: UInt64(size)), "size \(size)")
        }
        // Replacing and deleting the big ones frees their overflow pages.
        let before = engine.pager.header.freelistCount
        XCTAssertTrue(try table.delete(rowid: Int64(sizes.count - 1)))
        XCTAssertGreaterThan(engine.pager.header.freelistCount, before + 4000)
        assertSound(engine, "after deleting the 16 MiB payload")
        try engine.commit()
    }

    func testLargeKeysInIndex() throws {
        var options = StorageOptions()
        options.pageSize = 512
        let engine = try StorageEngine.inMemory(options: options)
        try engine.beginWrite()
        let index = try engine.createIndex(named: "i")
        var keys: [[UInt8]] = []
        for i in 0..<300 {
            var key = [UInt8](repeating: 0x61, count: 700 + i % 50)
            key.append(contentsOf: Array(String(i).utf8))
            keys.append(key)
            try index.insert(key: key, value: [UInt8(i % 256)])
        }
        assertSound(engine, "after long keys")
        keys.sort { $0.lexicographicallyPrecedes($1) }
        let cursor = try index.makeCursor()
        var ok = try cursor.first()
        var i = 0
        while ok {
            XCTAssertEqual(cursor.key, keys[i])
            i += 1
            ok = try cursor.next()
        }
        XCTAssertEqual(i, 300)
        for key in keys { XCTAssertTrue(try index.delete(key: key)) }
        assertSound(engine, "after deleting long keys")
        XCTAssertEqual(try index.count(), 0)
    }
}

/// Index trees ordered by the key encoding return values in SQL order.
final class KeyOrderInTreeTests: XCTestCase {
    func testMixedTypeKeysScanInSQLOrder() throws {
        let seed = testSeed()
        var rng = SplitMix64(seed: seed)
        let engine = try StorageEngine.inMemory()
        try engine.beginWrite()
        let index = try engine.createIndex(named: "mixed")
        var values: [Value] = [
            .null, .integer(3), .real(2.5), .integer(2), .real(-0.0), .integer(.min), .integer(.max),
            .real(.infinity), .real(-.infinity), .real(9_007_199_254_740_992), .real(9_007_199_254_740_994),
            .integer(9_007_199_254_740_993),
            .text(""), .text("a"), .text("a\u{0}b"), .text("ab"), .text("é"), .blob([]), .blob([0]), .blob([0, 0]),
            .blob([1]),
        ]
        for _ in 0..<2_000 {
            switch rng.next(below: 4) {
            case 0: values.append(.integer(Int64(bitPattern: rng.next()) >> Int64(rng.next(below: 64))))
            case 1:
                values.append(
                    .real(Double(bitPattern: rng.next() & 0x7FEF_FFFF_FFFF_FFFF) * (rng.next(below: 2) == 0 ? 1 : -1)))
            case 2:
                values.append(
                    .text(
                        String(
                            decoding: payloadBytes(Int(rng.next(below: 8)), seed: rng.next()).map { $0 % 128 },
                            as: UTF8.self)))
            default: values.append(.blob(payloadBytes(Int(rng.next(below: 8)), seed: rng.next())))
            }
        }
        // Each entry is (value, position) so equal values (3 and 3.0) stay distinct.
        for (position, value) in values.enumerated() {
            try index.insert(key: KeyEncoding.encode([value, .integer(Int64(position))]), value: [])
        }
        let cursor = try index.makeCursor()
        var ok = try cursor.first()
        var scanned: [Value] = []
        while ok {
            let decoded = try KeyEncoding.decode(cursor.key)
            scanned.append(
                values[Int(try XCTUnwrap({ if case .integer(let p) = decoded[1] { return p } else { return nil } }()))])
            ok = try cursor.next()
        }
        XCTAssertEqual(scanned.count, values.count)
        for (a, b) in zip(scanned, scanned.dropFirst()) {
            XCTAssertLessThanOrEqual(Value.compare(a, b), 0, "\(a) before \(b), seed \(seed)")
        }
        assertSound(engine, "mixed keys")
    }
}
