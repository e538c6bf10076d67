import GraniteTestSupport
import XCTest

@testable import GraniteStorage

/// Commit, reopen, rollback, freelist reuse, page sizes, file locking.
final class PersistenceTests: XCTestCase {

    func testReopenAndVerifyAcrossPageSizes() throws {
        for pageSize in [512, 1024, 4096, 16384, 65536] {
            let (path, cleanup) = temporaryPath()
            defer { cleanup() }
            var rng = SplitMix64(seed: UInt64(pageSize))
            var model: [Int64: [UInt8]] = [:]
            var keys: [[UInt8]: [UInt8]] = [:]
            var options = StorageOptions()
            options.pageSize = pageSize
            options.cacheSize = 32
            for round in 0..<4 {
                let engine = try StorageEngine(path: path, options: options)
                XCTAssertEqual(engine.pager.pageSize, pageSize)
                try engine.beginWrite()
                let table = round == 0 ? try engine.createTable(named: "t") : try engine.table(named: "t")
                let index = round == 0 ? try engine.createIndex(named: "i") : try engine.index(named: "i")
                for (rowid, payload) in model { XCTAssertEqual(try table.get(rowid: rowid), payload) }
                for (key, value) in keys { XCTAssertEqual(try index.get(key: key), value) }
                for _ in 0..<2_000 {
                    let rowid = Int64(rng.next(below: 3_000))
                    if rng.next(below: 3) == 0 {
                        XCTAssertEqual(try table.delete(rowid: rowid), model.removeValue(forKey: rowid) != nil)
                    } else {
                        let payload = payloadBytes(Int(rng.next(below: UInt64(pageSize))), seed: rng.next())
                        try table.replace(rowid: rowid, payload: payload)
                        model[rowid] = payload
                    }
                    let key = payloadBytes(Int(rng.next(below: 20)) + 1, seed: rng.next(below: 500))
                    try index.replace(key: key, value: [UInt8(round)])
                    keys[key] = [UInt8(round)]
                }
                try engine.commit()
                assertSound(engine, "page size \(pageSize), round \(round)")
                try engine.close()
            }
        }
    }

    func testRollbackDropsChanges() throws {
        let engine = try StorageEngine.inMemory()
        try engine.beginWrite()
        let table = try engine.createTable(named: "t")
        for i in 1...500 { try table.insert(rowid: Int64(i), payload: payloadBytes(50, seed: UInt64(i))) }
        try engine.commitAndWrite()
        let pageCount = engine.pager.pageCount
        for i in 501...2_000 { try table.insert(rowid: Int64(i), payload: payloadBytes(50, seed: UInt64(i))) }
        for i in 1...250 { try table.delete(rowid: Int64(i)) }
        _ = try engine.createTable(named: "other")
        try engine.rollback()
        try engine.beginRead()
        XCTAssertEqual(engine.pager.pageCount, pageCount)
        XCTAssertEqual(try table.count(), 500)
        XCTAssertNil(try engine.treeInfo(named: "other"))
        for i in 1...500 { XCTAssertEqual(try table.get(rowid: Int64(i)), payloadBytes(50, seed: UInt64(i))) }
        assertSound(engine, "after rollback")
    }

    func testDeleteReinsertCyclesKeepFileSizeBounded() throws {
        let (path, cleanup) = temporaryPath()
        defer { cleanup() }
        let engine = try StorageEngine(path: path)
        try engine.beginWrite()
        let table = try engine.createTable(named: "t")
        var sizes: [Int64] = []
        for cycle in 0..<12 {
            for i in 1...1_500 {
                try table.insert(
                    rowid: Int64(i), payload: payloadBytes(100 + (i * 37 + cycle) % 3_000, seed: UInt64(i)))
            }
            try engine.commitAndWrite()
            sizes.append(try engine.file.size())
            var rng = SplitMix64(seed: UInt64(cycle))
            var rowids = Array(1...1_500).map(Int64.init)
            rowids.shuffle(using: &rng)
            for rowid in rowids { XCTAssertTrue(try table.delete(rowid: rowid)) }
            try engine.commitAndWrite()
            XCTAssertGreaterThan(engine.pager.header.freelistCount, 0)
        }
        assertSound(engine, "after cycles")
        XCTAssertLessThanOrEqual(sizes.last!, sizes.first! + sizes.first! / 10, "sizes per cycle: \(sizes)")
    }

    func testDropTreeFreesItsPages() throws {
        let engine = try StorageEngine.inMemory()
        try engine.beginWrite()
        let table = try engine.createTable(named: "t")
        for i in 1...3_000 {
            try table.insert(rowid: Int64(i), payload: payloadBytes(i % 7 == 0 ? 5_000 : 80, seed: 1))
        }
        let used = engine.pager.pageCount
        try engine.dropTree(named: "t")
        XCTAssertThrowsError(try engine.table(named: "t"))
        assertSound(engine, "after drop")
        XCTAssertGreaterThan(Int(engine.pager.header.freelistCount), Int(used) - 10)
        let again = try engine.createTable(named: "t")
        for i in 1...3_000 {
            try again.insert(rowid: Int64(i), payload: payloadBytes(i % 7 == 0 ? 5_000 : 80, seed: 1))
        }
        XCTAssertLessThanOrEqual(engine.pager.pageCount, used + 2)
        assertSound(engine, "after re-creating")
    }

    func testCatalogNamesAndErrors() throws {
        let engine = try StorageEngine.inMemory()
        try engine.beginWrite()
        _ = try engine.createTable(named: "b")
        _ = try engine.createIndex(named: "a")
        XCTAssertThrowsError(try engine.createTable(named: "b")) {
            XCTAssertEqual($0 as? StorageError, .alreadyExists("tree 'b'"))
        }
        XCTAssertThrowsError(try engine.table(named: "a"))
        XCTAssertThrowsError(try engine.index(named: "zzz"))
        XCTAssertEqual(try engine.trees().map(\.name), ["a", "b"])
        XCTAssertEqual(try engine.trees().map(\.kind), [.index, .table])
        try engine.setUserVersion(42)
        try engine.commit()
        XCTAssertEqual(engine.pager.committedHeader.userVersion, 42)
    }

    func testConnectionsInOneProcessShareTheDatabase() throws {
        let (path, cleanup) = temporaryPath()
        defer { cleanup() }
        let first = try StorageEngine(path: path)
        let second = try StorageEngine(path: path)
        try first.beginWrite()
        try first.createTable(named: "t").insert(rowid: 1, payload: [1])
        try first.commit()
        try second.beginRead()
        XCTAssertEqual(try second.table(named: "t").get(rowid: 1), [1])
        try second.close()
        try first.close()
        XCTAssertFalse(POSIXFile.exists(path: path + "-wal"), "the last connection removes the log")
        let third = try StorageEngine(path: path)
        try third.beginWrite()
        XCTAssertEqual(try third.table(named: "t").get(rowid: 1), [1])
        try third.close()
    }

    func testReadOnlyRefusesWrites() throws {
        let (path, cleanup) = temporaryPath()
        defer { cleanup() }
        do {
            let engine = try StorageEngine(path: path)
            try engine.beginWrite()
            try engine.createTable(named: "t").insert(rowid: 1, payload: [1])
            try engine.commit()
            try engine.close()
        }
        var options = StorageOptions()
        options.readOnly = true
        let engine = try StorageEngine(path: path, options: options)
        XCTAssertThrowsError(try engine.beginWrite()) { XCTAssertEqual($0 as? StorageError, .readOnly) }
        try engine.beginRead()
        let table = try engine.table(named: "t")
        XCTAssertEqual(try table.get(rowid: 1), [1])
        XCTAssertThrowsError(try table.insert(rowid: 2, payload: [2])) {
            XCTAssertEqual($0 as? StorageError, .readOnly)
        }
    }

    func testInvalidPageSizeAndNonDatabase() throws {
        var options = StorageOptions()
        options.pageSize = 1000
        XCTAssertThrowsError(try StorageEngine.inMemory(options: options))
        let junk = MemoryFile(bytes: Array(repeating: 0x41, count: 8192))
        XCTAssertThrowsError(try StorageEngine(file: junk)) { error in
            guard case StorageError.notADatabase = error else { return XCTFail("got \(error)") }
        }
        let short = MemoryFile(bytes: Array("Granite".utf8))
        XCTAssertThrowsError(try StorageEngine(file: short))
    }

    func testCursorSurvivesDeletesWhileScanning() throws {
        let engine = try StorageEngine.inMemory()
        try engine.beginWrite()
        let table = try engine.createTable(named: "t")
        for i in 1...5_000 { try table.insert(rowid: Int64(i), payload: payloadBytes(60, seed: UInt64(i))) }
        let cursor = try table.makeCursor()
        var ok = try cursor.first()
        var seen = 0
        while ok {
            seen += 1
            if cursor.rowid % 2 == 0 { XCTAssertTrue(try table.delete(rowid: cursor.rowid)) }
            ok = try cursor.next()
        }
        XCTAssertEqual(seen, 5_000)
        XCTAssertEqual(try table.count(), 2_500)
        assertSound(engine, "after deleting while scanning")
    }
}

/// I/O errors from the file surface as thrown errors and leave the engine usable.
final class IOErrorTests: XCTestCase {
    func testFailedWriteOrSyncFailsTheCommitAndARetrySucceeds() throws {
        let file = FaultInjectingFile()
        let wal = FaultInjectingFile(path: "fault-wal")
        let engine = try StorageEngine(file: file, walFile: wal)
        try engine.beginWrite()
        let table = try engine.createTable(named: "t")
        try engine.commitAndWrite()
        for i in 1...300 { try table.insert(rowid: Int64(i), payload: payloadBytes(200, seed: UInt64(i))) }
        // A failed commit rolls the transaction back and leaves the database as it was.
        wal.failWrite(after: 0)
        XCTAssertThrowsError(try engine.commit()) { error in
            guard case StorageError.io("write", _, 5) = error else { return XCTFail("got \(error)") }
        }
        XCTAssertFalse(engine.isInTransaction)
        try engine.beginWrite()
        XCTAssertEqual(try table.count(), 0)
        for i in 1...300 { try table.insert(rowid: Int64(i), payload: payloadBytes(200, seed: UInt64(i))) }
        wal.failSync(after: 0)
        XCTAssertThrowsError(try engine.commit()) { error in
            guard case StorageError.io("sync", _, 5) = error else { return XCTFail("got \(error)") }
        }
        try engine.beginWrite()
        XCTAssertEqual(try table.count(), 0)
        for i in 1...300 { try table.insert(rowid: Int64(i), payload: payloadBytes(200, seed: UInt64(i))) }
        try engine.commitAndRead()
        XCTAssertEqual(try engine.table(named: "t").count(), 300)
        // The log alone carries the commit: recovery from the synced state finds it.
        let reopened = try StorageEngine(
            file: MemoryFile(bytes: file.crashImage(.dropUnsynced)),
            walFile: MemoryFile(bytes: wal.crashImage(.dropUnsynced)))
        try reopened.beginRead()
        XCTAssertEqual(try reopened.table(named: "t").count(), 300)
        assertSound(reopened, "after retried commit")
    }

    func testReadErrorsAreThrown() throws {
        let file = FaultInjectingFile()
        do {
            let engine = try StorageEngine(file: file, walFile: MemoryFile())
            try engine.beginWrite()
            let table = try engine.createTable(named: "t")
            for i in 1...3_000 { try table.insert(rowid: Int64(i), payload: payloadBytes(100, seed: 1)) }
            try engine.commit()
            try engine.close()
        }
        var options = StorageOptions()
        options.cacheSize = 16
        let engine = try StorageEngine(file: file, options: options)
        try engine.beginWrite()
        let table = try engine.table(named: "t")
        file.failRead(after: 2)
        var sawError = false
        for i in stride(from: 1, through: 3_000, by: 97) {
            do { _ = try table.get(rowid: Int64(i)) } catch StorageError.io("read", _, _) { sawError = true }
        }
        XCTAssertTrue(sawError)
        for i in stride(from: 1, through: 3_000, by: 97) { XCTAssertNotNil(try table.get(rowid: Int64(i))) }
    }
}
