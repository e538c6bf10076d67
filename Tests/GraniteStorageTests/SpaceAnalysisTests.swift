import GraniteTestSupport
import XCTest

@testable import GraniteStorage

/// The space analysis behind `granite stats` agrees with the integrity check on every tree's shape, accounts for
/// every page once, counts the compressed values it was given, and survives damage.
final class SpaceAnalysisTests: XCTestCase {

    /// Random tables and indexes (rows of every size, some overflowing, some with compressible text), rows
    /// deleted and a tree dropped: the analysis and the integrity check see the same trees.
    func testAgreesWithTheIntegrityCheck() throws {
        let seed = testSeed()
        var rng = SplitMix64(seed: seed)
        let engine = try StorageEngine.inMemory()
        try engine.beginWrite()
        let encoder = RowEncoder()
        var compressedValues: [String: Int] = [:]
        var compressedPlain: [String: Int] = [:]
        for t in 0..<4 {
            let table = try engine.createTable(named: "t\(t)")
            let index = try engine.createIndex(named: "i\(t)")
            let rows = Int(rng.next() % 2_000) + 1
            for rowid in 1...rows {
                let text: String
                switch rng.next() % 4 {
                case 0: text = String(repeating: "granite ", count: Int(rng.next() % 40) + 20)  // compresses
                case 1: text = String(Int(rng.next() % 1_000))
                case 2: text = String(repeating: "x", count: Int(rng.next() % 9_000))  // may overflow
                default: text = ""
                }
                let blob = payloadBytes(Int(rng.next() % 300), seed: rng.next())
                let row = encoder.encode([.integer(Int64(rowid)), .text(text), .blob(blob)])
                try table.insert(rowid: Int64(rowid), payload: row)
                try index.insert(key: KeyEncoding.encode([.blob(blob), .integer(Int64(rowid))]))
                if try row.withUnsafeBytes({ try RowDecoder($0).isCompressed(at: 1) }) {
                    compressedValues["t\(t)", default: 0] += 1
                    compressedPlain["t\(t)", default: 0] += text.utf8.count
                }
            }
            for rowid in stride(from: 1, through: rows, by: Int(rng.next() % 5) + 2) {
                let stored = try XCTUnwrap(try table.get(rowid: Int64(rowid)))
                let compressedLength = try stored.withUnsafeBytes { bytes -> Int? in
                    let row = try RowDecoder(bytes)
                    return row.isCompressed(at: 1) ? row.textLength(at: 1) : nil
                }
                if let compressedLength {
                    compressedValues["t\(t)", default: 0] -= 1
                    compressedPlain["t\(t)", default: 0] -= compressedLength
                }
                XCTAssertTrue(try table.delete(rowid: Int64(rowid)))
            }
        }
        try engine.dropTree(named: "i1")
        try engine.commitAndRead()

        let check = engine.checkIntegrity()
        XCTAssertTrue(check.isOK, "seed \(seed): \(check.problems)")
        let analysis = try engine.analyzeSpace()
        XCTAssertEqual(analysis.problems, [], "seed \(seed)")
        XCTAssertEqual(analysis.unattributedPages, 0, "seed \(seed)")
        XCTAssertEqual(analysis.pages.count, Int(engine.pager.pageCount) + 1)
        XCTAssertEqual(analysis.trees.map(\.info), check.trees.map(\.info), "seed \(seed)")
        for (space, shape) in zip(analysis.trees, check.trees) {
            let name = space.info.name
            XCTAssertEqual(space.entries, shape.entries, "seed \(seed), \(name)")
            XCTAssertEqual(space.leafPages, shape.leafPages, "seed \(seed), \(name)")
            XCTAssertEqual(space.interiorPages, shape.interiorPages, "seed \(seed), \(name)")
            XCTAssertEqual(space.overflowPages, shape.overflowPages, "seed \(seed), \(name)")
            XCTAssertEqual(space.unreadablePages, 0)
            XCTAssertEqual(space.compressedValues, compressedValues[name] ?? 0, "seed \(seed), \(name)")
            XCTAssertEqual(space.compressedPlainBytes, compressedPlain[name] ?? 0, "seed \(seed), \(name)")
            XCTAssertLessThan(space.compressedStoredBytes, max(space.compressedPlainBytes, 1))
            XCTAssert((0...1).contains(space.fill) && (0...1).contains(space.fragmentation), "seed \(seed)")
        }
        // Every page is where the integrity check found it.
        for number in 1..<analysis.pages.count {
            let owner = try XCTUnwrap(check.owners[number], "page \(number)")
            switch analysis.pages[number] {
            case .header: XCTAssertEqual(owner.type, .header)
            case .freelistTrunk: XCTAssertEqual(owner.type, .freelistTrunk)
            case .free: XCTAssertTrue(owner.isFreeLeaf)
            case .tree(let index): XCTAssertEqual(analysis.trees[index].info.name, owner.tree, "page \(number)")
            case .unreadable, .unattributed: XCTFail("page \(number): \(analysis.pages[number])")
            }
        }
        XCTAssertGreaterThan(analysis.freelistPages, 0, "the dropped index's pages are free")
        XCTAssertEqual(analysis.freelistPages, Int(engine.pager.header.freelistCount))
    }

    /// Leaves written in key order one after another are adjacent on disk; leaves whose pages were handed out in
    /// the opposite order are not.
    func testFragmentationFollowsTheLeafOrderOnDisk() throws {
        let engine = try StorageEngine.inMemory()
        try engine.beginWrite()
        let table = try engine.createTable(named: "t")
        let payload = payloadBytes(1_000, seed: 3)
        for rowid in 1...3 { try table.insert(rowid: Int64(rowid), payload: payload) }
        try engine.commitAndRead()
        let single = try XCTUnwrap(try engine.analyzeSpace().trees.last)
        XCTAssertEqual(single.leafPages, 1)
        XCTAssertEqual(single.fragmentation, 0)
        try engine.commitAndWrite()
        // Each new row goes to the front of the table: its leaf comes first in key order but last on disk.
        for rowid in stride(from: 0, through: -400, by: -1) { try table.insert(rowid: Int64(rowid), payload: payload) }
        try engine.commitAndRead()
        let reversed = try XCTUnwrap(try engine.analyzeSpace().trees.last)
        XCTAssertGreaterThan(reversed.leafPages, 10)
        XCTAssertGreaterThan(reversed.fragmentation, 0.5)
    }

    /// Damage that keeps each page's checksum valid (so that the decoders, not the checksum, meet it) never
    /// traps the walk, and every page still ends up counted exactly once.
    func testSealedDamageNeverTrapsAndEveryPageIsCountedOnce() throws {
        var options = StorageOptions()
        options.pageSize = 512
        let file = MemoryFile()
        let engine = try StorageEngine(file: file, options: options)
        try engine.beginWrite()
        let table = try engine.createTable(named: "t")
        let index = try engine.createIndex(named: "i")
        let encoder = RowEncoder()
        for i in 1...300 {
            let text = i % 3 == 0 ? String(repeating: "stone ", count: 40 + i % 30) : "row \(i)"
            let blob = payloadBytes(i % 40 == 0 ? 1_500 : i % 50, seed: UInt64(i))
            try table.insert(rowid: Int64(i), payload: encoder.encode([.text(text), .blob(blob)]))
            try index.insert(key: KeyEncoding.encode([.text(text), .integer(Int64(i))]))
        }
        let scratch = try engine.createTable(named: "scratch")
        for i in 1...100 {
            try scratch.insert(rowid: Int64(i), payload: encoder.encode([.blob(payloadBytes(90, seed: 2))]))
        }
        try engine.dropTree(named: "scratch")
        try engine.commit()
        try engine.close()
        let bytes = file.bytes
        let pageCount = bytes.count / 512

        let seed = testSeed()
        var rng = SplitMix64(seed: seed)
        var detected = 0
        let scenarios = 300 * stressFactor
        for _ in 0..<scenarios {
            var damaged = bytes
            let page = 2 + Int(rng.next(below: UInt64(pageCount - 1)))
            let base = (page - 1) * 512
            for _ in 0..<(1 + Int(rng.next(below: 3))) {
                let offset =
                    rng.next(below: 2) == 0 ? Int(rng.next(below: 40)) : Int(rng.next(below: UInt64(512 - 4)))
                damaged[base + offset] = rng.next(below: 3) == 0 ? 0xFF : UInt8(truncatingIfNeeded: rng.next())
            }
            damaged.withUnsafeMutableBytes {
                PageLayout.seal($0.baseAddress! + base, number: PageNumber(page), pageSize: 512)
            }
            guard let reopened = try? StorageEngine(file: MemoryFile(bytes: damaged)) else { continue }
            let analysis = try reopened.analyzeSpace()
            XCTAssertEqual(analysis.pages.count, analysis.pageCount + 1, "seed \(seed)")
            let counted =
                analysis.trees.reduce(0) { $0 + $1.pages } + analysis.freelistPages + analysis.count(.header)
                + analysis.unattributedPages
            XCTAssertEqual(counted, analysis.pageCount, "seed \(seed), page \(page)")
            if !analysis.problems.isEmpty { detected += 1 }
        }
        XCTAssertGreaterThan(detected, scenarios / 10, "seed \(seed): the walk should notice damage")
    }

    /// A page whose bytes were overwritten is counted as unreadable and named; the walk goes on.
    func testDamagedPageIsCountedAsUnreadable() throws {
        let directory = try makeTemporaryDirectory(prefix: "granite-space")
        let path = directory.url.appendingPathComponent("damaged.granite").path
        let engine = try StorageEngine(path: path)
        try engine.beginWrite()
        let table = try engine.createTable(named: "t")
        let index = try engine.createIndex(named: "i")
        for rowid in 1...2_000 {
            try table.insert(rowid: Int64(rowid), payload: RowEncoder().encode([.blob(payloadBytes(60, seed: 1))]))
            try index.insert(key: KeyEncoding.encode([.integer(Int64(rowid))]))
        }
        try engine.commit()
        _ = try engine.checkpoint()
        let before = try engine.analyzeSpace()
        XCTAssertEqual(before.problems, [])
        let t = try XCTUnwrap(before.trees.firstIndex { $0.info.name == "t" })
        let victim = try XCTUnwrap((1..<before.pages.count).last { before.pages[$0] == .tree(t) }, "a page of t")
        try engine.close()

        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: UInt64((victim - 1) * 4096 + 20))
        try handle.write(contentsOf: Data(repeating: 0xEE, count: 100))
        try handle.close()

        let reopened = try StorageEngine(path: path)
        defer { try? reopened.close() }
        let after = try reopened.analyzeSpace()
        XCTAssertEqual(after.pages[victim], .unreadable(tree: t))
        XCTAssertEqual(after.trees[t].unreadablePages, 1)
        XCTAssertEqual(after.problems.count, 1, "\(after.problems)")
        XCTAssertTrue(after.problems.contains { $0.contains("page \(victim)") }, "\(after.problems)")
        // The rest of the table and the whole index are measured.
        XCTAssertEqual(after.trees[t].leafPages, before.trees[t].leafPages - 1)
        XCTAssertEqual(after.trees.first { $0.info.name == "i" }?.entries, 2_000)
        XCTAssertEqual(after.unattributedPages, 0)
        // Problems past the limit are counted, not listed, and the walk still goes over the whole file.
        let limited = try reopened.analyzeSpace(maxProblems: 0)
        XCTAssertEqual(limited.problems, [])
        XCTAssertEqual(limited.omittedProblems, 1)
        XCTAssertEqual(limited.trees, after.trees)
    }
}
