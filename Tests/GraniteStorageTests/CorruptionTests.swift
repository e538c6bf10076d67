import GraniteTestSupport
import XCTest

@testable import GraniteStorage

/// Damaged files must give thrown errors naming the page, never a crash.
final class CorruptionTests: XCTestCase {

    /// A database with every page type: multi-level table and index trees,
    /// overflow chains and freelist pages.
    static func makeSample() throws -> (bytes: [UInt8], report: IntegrityReport) {
        var options = StorageOptions()
        options.pageSize = 512
        let file = MemoryFile()
        let engine = try StorageEngine(file: file, options: options)
        try engine.beginWrite()
        let table = try engine.createTable(named: "t")
        let index = try engine.createIndex(named: "i")
        for i in 1...400 {
            let size = i % 25 == 0 ? 1_500 : 20 + i % 60
            try table.insert(rowid: Int64(i), payload: payloadBytes(size, seed: UInt64(i)))
            let key = KeyEncoding.encode([.text("name \(i % 97)"), .integer(Int64(i))])
            try index.insert(key: key, value: i % 50 == 0 ? payloadBytes(300, seed: 1) : [])
        }
        let scratch = try engine.createTable(named: "scratch")
        for i in 1...200 { try scratch.insert(rowid: Int64(i), payload: payloadBytes(100, seed: 2)) }
        try engine.dropTree(named: "scratch")
        try engine.commit()
        let report = engine.checkIntegrity()
        try engine.close()
        return (file.bytes, report)
    }

    /// Reads and writes everything it can; returns the errors met. Never traps.
    static func exercise(_ bytes: [UInt8]) -> [Error] {
        var errors: [Error] = []
        let engine: StorageEngine
        do {
            engine = try StorageEngine(file: MemoryFile(bytes: bytes))
        } catch {
            return [error]
        }
        let report = engine.checkIntegrity()
        for problem in report.problems { errors.append(StorageError.corrupt(page: 0, problem)) }
        for name in ["t", "i"] {
            do {
                try engine.ensureRead()
                guard let info = try engine.treeInfo(named: name) else { continue }
                let cursor =
                    info.kind == .table
                    ? try engine.table(named: name).makeCursor() : try engine.index(named: name).makeCursor()
                var ok = try cursor.first()
                var steps = 0
                while ok && steps < 5_000 {
                    _ = try cursor.payload()
                    ok = try cursor.next()
                    steps += 1
                }
                ok = try cursor.last()
                steps = 0
                while ok && steps < 5_000 {
                    ok = try cursor.previous()
                    steps += 1
                }
            } catch {
                errors.append(error)
            }
        }
        do {
            try engine.ensureWrite()
            let table = try engine.table(named: "t")
            for i in stride(from: 1, through: 400, by: 7) { _ = try table.get(rowid: Int64(i)) }
            for i in stride(from: 1, through: 400, by: 3) { _ = try table.delete(rowid: Int64(i)) }
            for i in 401...600 {
                try table.insert(rowid: Int64(i), payload: payloadBytes(i % 3 == 0 ? 700 : 50, seed: 3))
            }
            let index = try engine.index(named: "i")
            for i in 1...150 {
                _ = try index.replace(key: KeyEncoding.encode([.text("name \(i)"), .integer(-1)]), value: [1])
            }
            for i in stride(from: 2, through: 400, by: 5) {
                _ = try index.delete(key: KeyEncoding.encode([.text("name \(i % 97)"), .integer(Int64(i))]))
            }
            try engine.commit()
        } catch {
            errors.append(error)
        }
        return errors
    }

    func testSampleIsSoundAndHasEveryPageType() throws {
        let (bytes, report) = try Self.makeSample()
        XCTAssertTrue(report.isOK, report.problems.joined(separator: "\n"))
        let types = Set(report.owners.compactMap { $0?.type })
        for type in [
            PageType.header, .tableInterior, .tableLeaf, .indexInterior, .indexLeaf, .overflow, .freelistTrunk,
        ] {
            XCTAssertTrue(types.contains(type), "sample lacks \(type)")
        }
        XCTAssertTrue(report.owners.contains { $0?.isFreeLeaf == true })
        XCTAssertTrue(Self.exercise(bytes).isEmpty)
    }

    /// Flipping bytes of any page that is read makes the checksum fail and the
    /// error name that page.
    func testFlippedBytesAreReportedWithTheirPage() throws {
        let (bytes, report) = try Self.makeSample()
        let pageSize = 512
        var rng = SplitMix64(seed: testSeed())
        for page in 1..<report.owners.count {
            guard let owner = report.owners[page], !owner.isFreeLeaf else { continue }
            var damaged = bytes
            let offset = (page - 1) * pageSize + Int(rng.next(below: UInt64(pageSize)))
            damaged[offset] ^= UInt8(1 << rng.next(below: 8))
            let errors = Self.exercise(damaged)
            XCTAssertFalse(
                errors.isEmpty, "damage on page \(page) (\(owner.type.map { "\($0)" } ?? "?")) went unnoticed")
            // A flipped magic byte makes page 1 "not a Granite database" at all.
            let named = errors.contains {
                "\($0)".contains("page \(page)")
                    || (page == 1 && offset - (page - 1) * pageSize < 8 && "\($0)".contains("not a Granite database"))
            }
            XCTAssertTrue(named, "errors for damaged page \(page) do not name it: \(errors.prefix(3))")
        }
    }

    /// Every region of the header page: magic, fields, header checksum, padding, trailer.
    func testFlippedHeaderPageBytes() throws {
        let (bytes, _) = try Self.makeSample()
        for offset in [0, 7, 8, 13, 17, 21, 25, 29, 33, 41, 50, 61, 64, 300, 508, 511] {
            var damaged = bytes
            damaged[offset] ^= 0x04
            let errors = Self.exercise(damaged)
            XCTAssertEqual(errors.count, 1, "offset \(offset): the open fails, nothing else runs")
            let message = errors.first.map { "\($0)" } ?? ""
            XCTAssertTrue(
                message.contains("page 1") || (offset < 8 && message.contains("not a Granite database")),
                "offset \(offset): \(message)")
        }
    }

    /// Damage with valid checksums (as a buggy writer would leave it) is
    /// caught by the structural checks or harmless, and never traps.
    func testStructuralDamageNeverTraps() throws {
        let (bytes, report) = try Self.makeSample()
        let pageSize = 512
        let seed = testSeed()
        var rng = SplitMix64(seed: seed)
        var detected = 0
        let scenarios = 600 * stressFactor
        for _ in 0..<scenarios {
            var damaged = bytes
            let page = 2 + Int(rng.next(below: UInt64(report.owners.count - 2)))
            let base = (page - 1) * pageSize
            for _ in 0..<(1 + Int(rng.next(below: 3))) {
                // Bias towards headers and cell pointers, where damage matters most.
                let offset =
                    rng.next(below: 2) == 0 ? Int(rng.next(below: 40)) : Int(rng.next(below: UInt64(pageSize - 4)))
                damaged[base + offset] = rng.next(below: 3) == 0 ? 0xFF : UInt8(truncatingIfNeeded: rng.next())
            }
            damaged.withUnsafeMutableBytes {
                PageLayout.seal($0.baseAddress! + base, number: PageNumber(page), pageSize: pageSize)
            }
            if !Self.exercise(damaged).isEmpty { detected += 1 }
        }
        // Much damage lands in payload bytes or free space and is harmless;
        // what matters is that nothing trapped. Still, the checks must bite.
        XCTAssertGreaterThan(detected, scenarios / 10, "seed \(seed): structural damage should be detected")
    }

    /// Damage to a tree page header (valid checksum) is always detected.
    func testDamagedTreePageHeaderIsDetected() throws {
        let (bytes, report) = try Self.makeSample()
        for page in 2..<report.owners.count {
            guard let type = report.owners[page]?.type, type.isTreePage else { continue }
            // Type, cell count, content start (both bytes), fragmented bytes.
            for (offset, mask) in [
                (0, UInt8(0x0F)), (3, UInt8(0x7F)), (5, UInt8(0x01)), (4, UInt8(0x01)), (6, UInt8(0x03)),
            ] {
                var damaged = bytes
                let base = (page - 1) * 512
                damaged[base + offset] ^= mask
                damaged.withUnsafeMutableBytes {
                    PageLayout.seal($0.baseAddress! + base, number: PageNumber(page), pageSize: 512)
                }
                let errors = Self.exercise(damaged)
                XCTAssertTrue(
                    errors.contains { "\($0)".contains("page \(page)") },
                    "page \(page) offset \(offset): \(errors.prefix(2))")
            }
        }
    }

    func testDamagedHeader() throws {
        let (bytes, _) = try Self.makeSample()
        var badMagic = bytes
        badMagic[0] = 0x67
        XCTAssertThrowsError(try StorageEngine(file: MemoryFile(bytes: badMagic))) { error in
            guard case StorageError.notADatabase = error else { return XCTFail("got \(error)") }
        }
        var badCount = bytes
        badCount[16] = 0xFF
        XCTAssertThrowsError(try StorageEngine(file: MemoryFile(bytes: badCount))) { error in
            XCTAssertTrue("\(error)".contains("page 1"), "\(error)")
        }
        /// `bytes` with the 32-bit header field at `offset` set to `value`, header checksum and page 1 resealed.
        func consistentHeader(_ offset: Int, _ value: UInt32) -> [UInt8] {
            var copy = bytes
            copy.withUnsafeMutableBytes { buffer in
                let base = buffer.baseAddress!
                base.setU32(offset, value)
                base.setU32(60, Checksum.checksum32(base, count: 60))
                PageLayout.seal(base, number: 1, pageSize: 512)
            }
            return copy
        }
        // A consistent header that claims more pages than the file holds.
        XCTAssertThrowsError(try StorageEngine(file: MemoryFile(bytes: consistentHeader(16, 100_000)))) { error in
            XCTAssertTrue("\(error)".contains("page 1"), "\(error)")
        }
        // A consistent header of format version 1, whose index keys this version cannot read.
        XCTAssertThrowsError(try StorageEngine(file: MemoryFile(bytes: consistentHeader(8, 1)))) { error in
            guard case StorageError.notADatabase(let message) = error else { return XCTFail("got \(error)") }
            XCTAssertEqual(message, "unsupported format version 1")
        }
        let truncated = Array(bytes[0..<(bytes.count - 700)])
        XCTAssertThrowsError(try StorageEngine(file: MemoryFile(bytes: truncated)))
    }
}
