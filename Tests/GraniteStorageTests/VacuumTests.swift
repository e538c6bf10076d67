import GraniteTestSupport
import XCTest

@testable import GraniteStorage

/// The storage side of VACUUM: a compact rebuild of every tree (`copyTrees`), installed over the database as one
/// commit (`replaceWithCompactImage`) or written to a new file (`writeCompactCopy`). The rebuilt database must hold
/// the same entries in fewer pages with an empty freelist, and a power cut at any changing call of a vacuum must
/// leave the old database or the new one, whole.
final class VacuumTests: XCTestCase {
    private static let path = "/data/vacuum.granite"

    /// Every entry of every tree: table rows by rowid (as 8 bytes), index keys with their values.
    private typealias Content = [String: [[UInt8]: [UInt8]]]

    private static var options: StorageOptions {
        var options = StorageOptions()
        options.pageSize = 512
        options.cacheSize = 16
        return options
    }

    /// Fills a table and an index with seeded rows (some spilling to overflow pages), then deletes most of them,
    /// so that the file keeps many free pages and half-empty leaves.
    private static func fill(_ write: WriteTransaction, seed: UInt64, rows: Int = 400) throws {
        var rng = SplitMix64(seed: seed)
        let items = try write.createTable(named: "items")
        let keys = try write.createIndex(named: "items_by_key")
        for rowid in 1...Int64(rows) {
            let length = rng.next(below: 8) == 0 ? 300 + Int(rng.next(below: 900)) : 20 + Int(rng.next(below: 80))
            let payload = (0..<length).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            try items.insert(rowid: rowid, payload: payload)
            try keys.insert(key: Array(payload.prefix(12)) + rowidBytes(rowid), value: [UInt8(rowid & 0xff)])
        }
        for rowid in 1...Int64(rows) where rng.next(below: 4) != 0 {
            let key = try items.get(rowid: rowid).map { Array($0.prefix(12)) + rowidBytes(rowid) }
            XCTAssertTrue(try items.delete(rowid: rowid))
            if let key { XCTAssertTrue(try keys.delete(key: key)) }
        }
        try write.setUserVersion(77)
    }

    private static func rowidBytes(_ rowid: Int64) -> [UInt8] {
        withUnsafeBytes(of: rowid.bigEndian) { Array($0) }
    }

    private static func content(_ transaction: StorageTransaction) throws -> Content {
        var content: Content = [:]
        for info in try transaction.trees() {
            var entries: [[UInt8]: [UInt8]] = [:]
            let cursor =
                info.kind == .table
                ? try transaction.table(named: info.name).makeCursor()
                : try transaction.index(named: info.name).makeCursor()
            var more = try cursor.first()
            while more {
                entries[info.kind == .table ? rowidBytes(cursor.rowid) : cursor.key] = try cursor.payload()
                more = try cursor.next()
            }
            content[info.name] = entries
        }
        return content
    }

    /// Marks every row of `items` (one byte appended), so that a vacuum's result tells itself from its input.
    private static func marking(
        _ tree: TreeInfo, _ rowid: Int64, _ payload: UnsafeRawBufferPointer, _ roots: [PageNumber: PageNumber]
    ) -> [UInt8]? {
        tree.name == "items" ? Array(payload) + [0xab] : nil
    }

    private static func marked(_ content: Content) -> Content {
        var content = content
        content["items"] = content["items"]?.mapValues { $0 + [0xab] }
        return content
    }

    /// An in-memory database filled by ``fill(_:seed:rows:)``, with its content, page count and free page count.
    private func makeFilledEngine() throws -> (
        engine: StorageEngine, content: Content, pages: UInt32, freePages: UInt32
    ) {
        let engine = try StorageEngine(file: MemoryFile(), options: Self.options)
        let write = try engine.beginWrite()
        try Self.fill(write, seed: testSeed())
        try write.commit()
        let read = try engine.beginRead()
        defer { try? read.commit() }
        return (engine, try Self.content(read), try read.pageCount, try read.freelistCount)
    }

    func testVacuumKeepsEveryEntryInFewerPagesWithAnEmptyFreelist() throws {
        let (engine, before, pagesBefore, freeBefore) = try makeFilledEngine()
        XCTAssertGreaterThan(freeBefore, 20, "the deletes freed pages")

        let vacuum = try engine.beginWrite()
        var reports: [CompactionProgress] = []
        var installed: [Int] = []
        try vacuum.replaceWithCompactImage(
            progress: { reports.append($0) }, pagesPerStep: 8,
            installProgress: { remaining, _ in installed.append(remaining) })
        try vacuum.commit()
        engine.pager.dropCache()

        let after = try engine.beginRead()
        XCTAssertEqual(try Self.content(after), before)
        XCTAssertEqual(try after.freelistCount, 0)
        XCTAssertLessThan(try after.pageCount, pagesBefore / 2, "the rebuilt database is much smaller")
        XCTAssertEqual(try after.userVersion, 77)
        try after.commit()
        XCTAssertEqual(reports.first?.treeCount, 2)
        XCTAssertEqual(Set(reports.map(\.tree)), ["items", "items_by_key"])
        XCTAssertGreaterThan(installed.count, 2)
        XCTAssertEqual(installed, installed.sorted(by: >), "the pages left to install only decrease")
        try closeChecked(engine, "after vacuum")
    }

    func testAVacuumStoppedByItsProgressLeavesTheDatabaseAsItWas() throws {
        let (engine, before, pagesBefore, _) = try makeFilledEngine()
        struct Stop: Error {}
        for stopInstalling in [false, true] {
            let vacuum = try engine.beginWrite()
            XCTAssertThrowsError(
                try vacuum.replaceWithCompactImage(
                    progress: { if !stopInstalling, $0.entriesCopied > 0 { throw Stop() } }, pagesPerStep: 16,
                    installProgress: { _, _ in if stopInstalling { throw Stop() } }))
            try vacuum.rollback()
            let again = try engine.beginRead()
            XCTAssertEqual(try Self.content(again), before)
            XCTAssertEqual(try again.pageCount, pagesBefore)
            try again.commit()
        }
        try closeChecked(engine, "after stopped vacuums")
    }

    func testACompactCopyIsANewDatabaseWithTheSameEntries() throws {
        let disk = SimulatedFileSystem()
        let engine = try StorageEngine(path: Self.path, options: Self.options, fileSystem: disk)
        let write = try engine.beginWrite()
        try Self.fill(write, seed: testSeed())
        try write.commit()
        let read = try engine.beginRead()
        XCTAssertFalse(try engine.fileHasContent(at: "/data/copy.granite"))
        try read.writeCompactCopy(toPath: "/data/copy.granite", rewrite: Self.marking)
        let expected = Self.marked(try Self.content(read))
        try read.commit()
        XCTAssertTrue(try engine.fileHasContent(at: "/data/copy.granite"))
        XCTAssertFalse(disk.exists("/data/copy.granite-wal"), "the copy's close removed its log")
        // A power cut right after the copy returned keeps it: it was synced.
        let crashed = disk.crash(.posix, .dropUnsynced)
        let copy = try StorageEngine(path: "/data/copy.granite", fileSystem: crashed)
        let copyRead = try copy.beginRead()
        XCTAssertEqual(try Self.content(copyRead), expected)
        XCTAssertEqual(try copyRead.freelistCount, 0)
        XCTAssertEqual(try copyRead.userVersion, 77)
        try copyRead.commit()
        try closeChecked(copy, "the copy")
        try closeChecked(engine, "the source")
    }

    // MARK: Power cuts

    /// The database before the vacuum, written and closed on `disk`.
    private func prepare(_ disk: SimulatedFileSystem, seed: UInt64) throws -> (content: Content, pages: UInt32) {
        let engine = try StorageEngine(path: Self.path, options: Self.options, fileSystem: disk)
        let write = try engine.beginWrite()
        try Self.fill(write, seed: seed, rows: 160)
        try write.commit()
        let read = try engine.beginRead()
        let state = (try Self.content(read), try read.pageCount)
        try read.commit()
        try engine.close()
        return state
    }

    /// Runs a marking vacuum, then a truncating checkpoint and a close; returns whether its commit returned.
    private func vacuum(_ disk: SimulatedFileSystem) -> Bool {
        var committed = false
        do {
            let engine = try StorageEngine(path: Self.path, options: Self.options, fileSystem: disk)
            defer { try? engine.close() }
            let write = try engine.beginWrite()
            try write.replaceWithCompactImage(rewrite: Self.marking)
            try write.commit()
            committed = true
            engine.pager.dropCache()
            try engine.checkpoint(.truncate)
            try engine.close()
        } catch {
            XCTAssertTrue(disk.isPowerCut, "an error without a power cut: \(error)")
        }
        return committed
    }

    /// A power cut after every changing call of a vacuum (its commit, the checkpoint that shrinks the file, the
    /// close that removes the log), each leaving several disks: every one must open on the old database or the
    /// new one, whole and sound, and on the new one once the vacuum's commit returned.
    func testAPowerCutAnywhereInAVacuumLeavesTheOldDatabaseOrTheNew() throws {
        let seed = testSeed()
        var rng = SplitMix64(seed: seed)
        let reference = SimulatedFileSystem()
        let old = try prepare(reference, seed: seed)
        XCTAssertTrue(vacuum(reference))
        let new = try StorageEngine(path: Self.path, options: Self.options, fileSystem: reference)
        let newPages = try new.beginRead().pageCount
        try new.endRead()
        try new.close()
        XCTAssertLessThan(newPages, old.pages)
        var point = 0
        var checked = 0
        var sawNew = 0
        while true {
            let disk = SimulatedFileSystem()
            _ = try prepare(disk, seed: seed)
            disk.cutPower(afterOperations: point)
            let committed = vacuum(disk)
            if !disk.isPowerCut { break }
            for (label, crashed) in PowerLossWorkload.crashStates(of: disk, randomStates: 2 * stressFactor, &rng) {
                let context = "seed \(seed), power cut after call \(point), \(label)"
                let engine = try StorageEngine(path: Self.path, options: Self.options, fileSystem: crashed)
                let read = try engine.beginRead()
                let content = try Self.content(read)
                let pages = try read.pageCount
                try read.commit()
                if content == old.content && !committed {
                    XCTAssertEqual(pages, old.pages, context)
                } else {
                    XCTAssertEqual(content, Self.marked(old.content), context + ": neither the old nor the new")
                    XCTAssertEqual(pages, newPages, context)
                    sawNew += 1
                }
                try closeChecked(engine, context)
                checked += 1
            }
            if testRun?.failureCount ?? 0 > 0 { return XCTFail("rerun with GRANITE_SEED=\(seed)") }
            point += 1
        }
        XCTAssertGreaterThan(point, 20, "the vacuum makes few changing calls")
        XCTAssertGreaterThan(sawNew, 0, "no crash state held the vacuumed database")
        print("vacuum power loss: \(point) crash points, \(checked) crash states checked")
    }
}
