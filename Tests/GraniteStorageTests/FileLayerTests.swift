import Dispatch
import GraniteTestSupport
import XCTest

@testable import GraniteStorage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Tests of the file layer: POSIXFile, MemoryFile, FaultInjectingFile, SplitMix64.
final class FileLayerTests: XCTestCase {
    // MARK: - Helpers

    private func assertIOError(
        _ body: @autoclosure () throws -> some Any, operation: String, errno code: Int32? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            guard case .io(let op, _, let got)? = error as? StorageError else {
                return XCTFail("expected StorageError.io, got \(error)", file: file, line: line)
            }
            XCTAssertEqual(op, operation, file: file, line: line)
            if let code {
                XCTAssertEqual(got, code, file: file, line: line)
            }
        }
    }

    // MARK: - POSIXFile

    func testPOSIXRoundTrip() throws {
        let path = try makeTemporaryDirectory(prefix: "granite-file-tests").path + "/db"
        XCTAssertFalse(POSIXFile.exists(path: path))
        do {
            let file = try POSIXFile(path: path)
            XCTAssertTrue(POSIXFile.exists(path: path))
            XCTAssertEqual(try file.size(), 0)
            try file.write([1, 2, 3, 4, 5], at: 0)
            try file.write([9, 9], at: 10)  // leaves a hole of zeros
            XCTAssertEqual(try file.size(), 12)
            XCTAssertEqual(try file.read(count: 12, at: 0), [1, 2, 3, 4, 5, 0, 0, 0, 0, 0, 9, 9])
            try file.sync()
            try file.truncate(to: 3)
            XCTAssertEqual(try file.size(), 3)
            try file.truncate(to: 6)
            XCTAssertEqual(try file.read(count: 6, at: 0), [1, 2, 3, 0, 0, 0])

            // A large buffer goes through the loop intact.
            let big = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            try file.write(big, at: 4096)
            XCTAssertEqual(try file.read(count: big.count, at: 4096), big)
            try file.sync()
            file.close()
            file.close()  // idempotent
            XCTAssertTrue(file.isClosed)
            assertIOError(try file.read(count: 1, at: 0), operation: "read", errno: EBADF)
        }
        let reopened = try POSIXFile(path: path, create: false, readOnly: true)
        XCTAssertEqual(try reopened.size(), 4096 + 200_000)
        XCTAssertEqual(try reopened.read(count: 3, at: 0), [1, 2, 3])
        assertIOError(try reopened.write([1], at: 0), operation: "write", errno: EBADF)
        reopened.close()

        try POSIXFile.remove(path: path)
        XCTAssertFalse(POSIXFile.exists(path: path))
        try POSIXFile.remove(path: path)  // missing file: no error
    }

    func testPOSIXReadPastEndIsShort() throws {
        let file = try POSIXFile(path: try makeTemporaryDirectory(prefix: "granite-file-tests").path + "/short")
        try file.write([1, 2, 3, 4], at: 0)
        var buffer = [UInt8](repeating: 0xEE, count: 10)
        let n = try buffer.withUnsafeMutableBytes { try file.read(into: $0, at: 2) }
        XCTAssertEqual(n, 2)
        XCTAssertEqual(Array(buffer[0..<3]), [3, 4, 0xEE])
        XCTAssertEqual(try file.read(count: 5, at: 100), [])
        let full = try buffer.withUnsafeMutableBytes { try file.readFully(into: $0, at: 0) }
        XCTAssertFalse(full)
    }

    func testPOSIXOpenFailureAndBadArguments() throws {
        let directory = try makeTemporaryDirectory(prefix: "granite-file-tests").path
        assertIOError(try POSIXFile(path: directory + "/missing", create: false), operation: "open", errno: ENOENT)
        assertIOError(try POSIXFile(path: directory + "/no/such/dir/db"), operation: "open", errno: ENOENT)
        assertIOError(try POSIXFile(path: directory + "/ro", readOnly: true), operation: "open", errno: ENOENT)
        XCTAssertThrowsError(try POSIXFile(path: ""))

        let file = try POSIXFile(path: directory + "/db")
        XCTAssertThrowsError(try file.read(count: 1, at: -1)) { error in
            guard case .invalidArgument = error as? StorageError else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try file.write([1], at: -5))
        XCTAssertThrowsError(try file.write([1, 2], at: Int64.max - 1))
        XCTAssertThrowsError(try file.truncate(to: -1))
    }

    func testPOSIXOpenFileDescriptionLocks() throws {
        let path = try makeTemporaryDirectory(prefix: "granite-file-tests").path + "/locked"
        let a = try POSIXFile(path: path)
        let b = try POSIXFile(path: path)

        // Exclusive blocks exclusive and shared.
        XCTAssertTrue(try a.tryLock(.exclusive))
        XCTAssertTrue(try a.tryLock(.exclusive))  // re-asking is fine
        XCTAssertFalse(try b.tryLock(.exclusive))
        XCTAssertFalse(try b.tryLock(.shared))

        // Unlock releases.
        try a.unlock()
        XCTAssertTrue(try b.tryLock(.shared))

        // Shared + shared coexist; exclusive is then refused.
        XCTAssertTrue(try a.tryLock(.shared))
        XCTAssertFalse(try a.tryLock(.exclusive))  // failed upgrade keeps the shared lock
        XCTAssertFalse(try b.tryLock(.exclusive))
        try b.unlock()
        XCTAssertFalse(try b.tryLock(.exclusive))  // a still holds shared

        // Upgrade shared → exclusive once alone.
        XCTAssertTrue(try a.tryLock(.exclusive))
        XCTAssertFalse(try b.tryLock(.shared))

        // Downgrade lets a reader in again.
        XCTAssertTrue(try a.tryLock(.shared))
        XCTAssertTrue(try b.tryLock(.shared))
        try b.unlock()

        // Closing the holder releases its lock.
        XCTAssertTrue(try a.tryLock(.exclusive))
        a.close()
        XCTAssertTrue(try b.tryLock(.exclusive))
        try b.unlock()

        // An exclusive lock needs write access.
        let reader = try POSIXFile(path: path, readOnly: true)
        XCTAssertTrue(try reader.tryLock(.shared))
        XCTAssertFalse(try b.tryLock(.exclusive))
        assertIOError(try reader.tryLock(.exclusive), operation: "lock", errno: EBADF)
    }

    // MARK: - MemoryFile

    func testMemoryFileReadWriteTruncate() throws {
        let file = MemoryFile(bytes: [1, 2, 3])
        XCTAssertEqual(file.path, ":memory:")
        XCTAssertEqual(try file.size(), 3)
        try file.write([7, 8], at: 6)  // gap 3..<6 zero-filled
        XCTAssertEqual(file.bytes, [1, 2, 3, 0, 0, 0, 7, 8])
        XCTAssertEqual(try file.read(count: 4, at: 5), [0, 7, 8])
        XCTAssertEqual(try file.read(count: 4, at: 50), [])
        try file.write([], at: 100)  // an empty write does not grow the file
        XCTAssertEqual(try file.size(), 8)
        try file.write([5], at: 1)
        try file.sync()
        try file.truncate(to: 2)
        XCTAssertEqual(file.bytes, [1, 5])
        try file.truncate(to: 4)
        XCTAssertEqual(file.bytes, [1, 5, 0, 0])

        var snapshot = file.bytes
        snapshot[0] = 99
        XCTAssertEqual(file.bytes[0], 1)  // the getter returns a copy

        XCTAssertThrowsError(try file.read(count: 1, at: -1))
        assertIOError(try file.write([1], at: MemoryFile.maximumSize), operation: "write", errno: EFBIG)
        assertIOError(try file.truncate(to: MemoryFile.maximumSize + 1), operation: "truncate", errno: EFBIG)
    }

    func testMemoryFileSharedHandlesAndLocks() throws {
        let a = MemoryFile(path: "mem")
        let b = MemoryFile(sharing: a)
        XCTAssertEqual(b.path, "mem")
        try a.write([1, 2, 3], at: 0)
        XCTAssertEqual(b.bytes, [1, 2, 3])
        try b.truncate(to: 1)
        XCTAssertEqual(a.bytes, [1])

        XCTAssertTrue(try a.tryLock(.exclusive))
        XCTAssertFalse(try b.tryLock(.exclusive))
        XCTAssertFalse(try b.tryLock(.shared))
        try a.unlock()
        XCTAssertTrue(try b.tryLock(.shared))
        XCTAssertTrue(try a.tryLock(.shared))
        XCTAssertFalse(try a.tryLock(.exclusive))
        try b.unlock()
        XCTAssertTrue(try a.tryLock(.exclusive))  // upgrade
        XCTAssertFalse(try b.tryLock(.shared))
        XCTAssertTrue(try a.tryLock(.shared))  // downgrade
        XCTAssertTrue(try b.tryLock(.shared))
        try a.unlock()
        try b.unlock()

        // A handle that goes away releases its lock.
        do {
            let c = MemoryFile(sharing: a)
            XCTAssertTrue(try c.tryLock(.exclusive))
            XCTAssertFalse(try a.tryLock(.shared))
        }
        XCTAssertTrue(try a.tryLock(.exclusive))

        // Unrelated MemoryFiles never conflict.
        let other = MemoryFile(path: "mem")
        XCTAssertTrue(try other.tryLock(.exclusive))
    }

    func testConcurrentWritersOnEveryFileKind() throws {
        let files: [any StorageFile] = [
            try POSIXFile(path: try makeTemporaryDirectory(prefix: "granite-file-tests").path + "/concurrent"),
            MemoryFile(), FaultInjectingFile(),
        ]
        for file in files {
            DispatchQueue.concurrentPerform(iterations: 8) { worker in
                let chunk = [UInt8](repeating: UInt8(worker + 1), count: 1000)
                for round in 0..<20 {
                    try? file.write(chunk, at: Int64((round * 8 + worker) * 1000))
                }
            }
            XCTAssertEqual(try file.size(), 160_000)
            for slot in 0..<160 {
                XCTAssertEqual(
                    try file.read(count: 1000, at: Int64(slot * 1000)),
                    [UInt8](repeating: UInt8(slot % 8 + 1), count: 1000))
            }
        }
    }

    // MARK: - FaultInjectingFile

    func testFaultInjectedWriteFailure() throws {
        let file = FaultInjectingFile(bytes: [0, 0, 0, 0])
        file.failWrite(after: 2)
        try file.write([1], at: 0)
        try file.write([2], at: 1)
        assertIOError(try file.write([3], at: 2), operation: "write", errno: EIO)
        XCTAssertEqual(try file.read(count: 4, at: 0), [1, 2, 0, 0])  // the failed write is not applied
        XCTAssertEqual(file.writeCount, 2)
        XCTAssertEqual(file.pendingOperationCount, 2)
        try file.write([4], at: 3)  // the fault fired once
        XCTAssertEqual(file.writeCount, 3)
        XCTAssertEqual(try file.read(count: 4, at: 0), [1, 2, 0, 4])

        file.failWrite(after: 0)
        assertIOError(try file.write([5], at: 0), operation: "write")
        file.failAllWrites = true
        assertIOError(try file.write([5], at: 0), operation: "write")
        assertIOError(try file.write([5], at: 1), operation: "write")
        file.failAllWrites = false
        file.failWrite(after: 0)
        file.clearFaults()
        try file.write([5], at: 0)
        XCTAssertEqual(file.writeCount, 4)
        XCTAssertEqual(file.crashImage(.keepUnsynced), [5, 2, 0, 4])
        XCTAssertEqual(file.crashImage(.dropUnsynced), [0, 0, 0, 0])
    }

    func testFaultInjectedSyncTruncateAndReadFailures() throws {
        let file = FaultInjectingFile(path: "f")
        try file.write([1, 2, 3], at: 0)
        file.failSync(after: 0)
        assertIOError(try file.sync(), operation: "sync", errno: EIO)
        XCTAssertEqual(file.syncCount, 0)
        XCTAssertEqual(file.pendingOperationCount, 1)
        XCTAssertEqual(file.crashImage(.dropUnsynced), [])
        try file.sync()
        XCTAssertEqual(file.syncCount, 1)
        XCTAssertEqual(file.pendingOperationCount, 0)
        XCTAssertEqual(file.crashImage(.dropUnsynced), [1, 2, 3])

        file.failTruncate(after: 1)
        try file.truncate(to: 5)
        assertIOError(try file.truncate(to: 1), operation: "truncate", errno: EIO)
        XCTAssertEqual(try file.size(), 5)
        XCTAssertEqual(file.pendingOperationCount, 1)

        file.failRead(after: 0)
        assertIOError(try file.read(count: 1, at: 0), operation: "read", errno: EIO)
        XCTAssertEqual(try file.read(count: 9, at: 0), [1, 2, 3, 0, 0])

        XCTAssertTrue(try file.tryLock(.exclusive))
        XCTAssertTrue(try file.tryLock(.shared))
        try file.unlock()
    }

    func testCrashDropAndKeepUnsynced() throws {
        let file = FaultInjectingFile(bytes: [1, 1, 1, 1])
        XCTAssertEqual(file.crashImage(.dropUnsynced), [1, 1, 1, 1])  // initial bytes are durable
        try file.write([2, 2], at: 2)
        try file.sync()
        let synced: [UInt8] = [1, 1, 2, 2]
        try file.write([3, 3, 3], at: 3)
        try file.truncate(to: 5)
        try file.write([4], at: 0)
        XCTAssertEqual(file.pendingOperationCount, 3)
        XCTAssertEqual(file.crashImage(.dropUnsynced), synced)
        XCTAssertEqual(file.crashImage(.keepUnsynced), [4, 1, 2, 3, 3])
        XCTAssertEqual(file.crashImage(.keepUnsynced), try file.read(count: 100, at: 0))

        let afterCrash = file.crash(.dropUnsynced)
        XCTAssertEqual(afterCrash.path, file.path)
        XCTAssertEqual(afterCrash.bytes, synced)
        XCTAssertEqual(file.crash(.keepUnsynced).bytes, [4, 1, 2, 3, 3])
        XCTAssertEqual(file.pendingOperationCount, 3)  // crashing is only a view
    }

    func testRandomCrashIsDeterministicAndSectorAligned() throws {
        let sector = 512
        let base = [UInt8](repeating: 0xAA, count: 3000)
        // Non-overlapping writes, each with its own fill byte: aligned, unaligned, inside one
        // sector, spanning several sectors, and extending the file.
        let writes: [(offset: Int, count: Int, fill: UInt8)] = [
            (0, 512, 1), (700, 100, 2), (1000, 1100, 3), (2200, 700, 4), (3100, 1500, 5), (5000, 300, 6),
        ]
        let file = FaultInjectingFile(bytes: base)
        for w in writes {
            try file.write([UInt8](repeating: w.fill, count: w.count), at: Int64(w.offset))
        }

        var seen: Set<String> = []
        var distinctImages: Set<[UInt8]> = []
        for seed in UInt64(0)..<200 {
            let image = file.crashImage(.random(seed: seed, sectorSize: sector))
            XCTAssertEqual(image, file.crashImage(.random(seed: seed, sectorSize: sector)), "seed \(seed)")
            distinctImages.insert(image)
            var expectedCount = base.count
            var covered = [Bool](repeating: false, count: image.count)
            for w in writes {
                // This write's range must hold a run of `fill`, then the prior content.
                var applied = 0
                while applied < w.count, w.offset + applied < image.count, image[w.offset + applied] == w.fill {
                    applied += 1
                }
                for position in w.offset..<max(w.offset, min(w.offset + w.count, image.count)) {
                    covered[position] = true
                    if position >= w.offset + applied {
                        let prior: UInt8 = position < base.count ? 0xAA : 0
                        XCTAssertEqual(image[position], prior, "seed \(seed), write at \(w.offset)")
                    }
                }
                let aligned = (w.offset + applied) % sector == 0
                XCTAssertTrue(
                    applied == 0 || applied == w.count || aligned,
                    "seed \(seed): write at \(w.offset) torn after \(applied) bytes, not at a sector boundary")
                if applied > 0 {
                    expectedCount = max(expectedCount, w.offset + applied)
                }
                seen.insert(applied == 0 ? "absent" : applied == w.count ? "whole" : "torn")
            }
            XCTAssertEqual(image.count, expectedCount, "seed \(seed)")
            for position in 0..<image.count where !covered[position] {
                XCTAssertEqual(image[position], position < base.count ? 0xAA : 0, "seed \(seed) at \(position)")
            }
        }
        XCTAssertEqual(seen, ["absent", "whole", "torn"])
        XCTAssertGreaterThan(distinctImages.count, 50)
        XCTAssertNotEqual(
            file.crashImage(.random(seed: 1, sectorSize: sector)), file.crashImage(.random(seed: 2, sectorSize: sector))
        )

        // Extremes of the sector size still give valid images; default sector size is 512.
        XCTAssertEqual(file.crashImage(.random(seed: 7)), file.crashImage(.random(seed: 7, sectorSize: 512)))
        _ = file.crashImage(.random(seed: 7, sectorSize: 0))
        _ = file.crashImage(.random(seed: 7, sectorSize: 1 << 20))
    }

    func testRandomCrashWithTruncation() throws {
        let file = FaultInjectingFile(bytes: [UInt8](repeating: 1, count: 1024))
        try file.truncate(to: 10)
        var sizes: Set<Int> = []
        for seed in UInt64(0)..<50 {
            sizes.insert(file.crashImage(.random(seed: seed)).count)
        }
        XCTAssertEqual(sizes, [10, 1024])
    }

    // MARK: - SplitMix64

    func testSplitMix64ReferenceSequence() {
        var rng = SplitMix64(seed: 0)
        XCTAssertEqual(rng.next(), 0xE220_A839_7B1D_CDAF)
        XCTAssertEqual(rng.next(), 0x6E78_9E6A_A1B9_65F4)
        XCTAssertEqual(rng.next(), 0x06C4_5D18_8009_454F)
        var a = SplitMix64(seed: 99)
        var b = SplitMix64(seed: 99)
        for _ in 0..<100 {
            XCTAssertEqual(a.next(below: 10), b.next(below: 10))
        }
        XCTAssertEqual(a.next(below: 0), 0)
        for _ in 0..<1000 {
            XCTAssertLessThan(a.next(below: 3), 3)
        }
        let roll = Int.random(in: 1...6, using: &a)
        XCTAssertTrue((1...6).contains(roll))
    }
}
