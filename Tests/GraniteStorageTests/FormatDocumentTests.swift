import XCTest

@testable import GraniteStorage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// FORMAT.md's annotated hex dump must be the bytes of a real file: this test
/// builds the same tiny database and compares it with every `hexdump` block.
final class FormatDocumentTests: XCTestCase {

    /// The tiny database documented in FORMAT.md § "Annotated example".
    static func makeTinyDatabase() throws -> [UInt8] {
        var options = StorageOptions()
        options.pageSize = 512
        let file = MemoryFile(path: "tiny.granite")
        let engine = try StorageEngine(file: file, options: options)
        try engine.beginWrite()
        let table = try engine.createTable(named: "t")
        try table.insert(rowid: 1, payload: RowEncoder().encode([.text("Ada"), .integer(36)]))
        try table.insert(
            rowid: 2, payload: RowEncoder(compressionThreshold: 16).encode([.text("hello hello hello hello"), .null]))
        try table.insert(rowid: 3, payload: RowEncoder().encode([.blob(Array(repeating: 0xAB, count: 200))]))
        let index = try engine.createIndex(named: "i")
        try index.insert(key: KeyEncoding.encode([.text("Ada"), .integer(1)]), value: [])
        _ = try engine.createTable(named: "tmp")
        try engine.dropTree(named: "tmp")
        try engine.commit()
        try engine.close()
        return file.bytes
    }

    /// The tiny log documented in FORMAT.md § "The write-ahead log": a new
    /// database with 512-byte pages, checkpointed, then two commits left in the log.
    static func makeTinyLog() throws -> [UInt8] {
        var options = StorageOptions()
        options.pageSize = 512
        options.reproducibleSalts = true
        let db = MemoryFile(path: "tiny.granite")
        let wal = MemoryFile(path: "tiny.granite-wal")
        let engine = try StorageEngine(file: db, walFile: wal, options: options)
        // The creation's own commit is copied into the file and the log emptied, so that the example
        // starts at frame 0 with the transactions it describes.
        try engine.checkpoint(.truncate)
        try engine.beginWrite()
        try engine.createTable(named: "t").insert(rowid: 1, payload: RowEncoder().encode([.text("Ada")]))
        try engine.commit()
        try engine.beginWrite()
        try engine.table(named: "t").insert(rowid: 2, payload: RowEncoder().encode([.text("Bo")]))
        try engine.commit()
        return wal.bytes
    }

    /// Canonical hex dump lines: offset, 16 bytes, with `*` for repeated lines.
    static func hexDump(_ bytes: [UInt8], page: Int, pageSize: Int) -> [String] {
        hexDump(bytes, from: (page - 1) * pageSize, count: pageSize, absolute: false)
    }

    /// Dump lines for `count` bytes from `base`; offsets relative to `base`
    /// unless `absolute`. A trailing partial line is printed as is.
    static func hexDump(_ bytes: [UInt8], from base: Int, count: Int, absolute: Bool) -> [String] {
        var lines: [String] = []
        var previous: ArraySlice<UInt8>? = nil
        var starred = false
        for offset in stride(from: 0, to: count, by: 16) {
            let row = bytes[(base + offset)..<(base + min(offset + 16, count))]
            if let p = previous, p.elementsEqual(row), offset + 16 < count {
                if !starred { lines.append("*") }
                starred = true
                continue
            }
            starred = false
            previous = row
            let hex = row.map { String($0, radix: 16).leftPad(2) }
            let text =
                hex.prefix(8).joined(separator: " ") + (hex.count > 8 ? "  " + hex[8...].joined(separator: " ") : "")
            lines.append(String(absolute ? base + offset : offset, radix: 16).leftPad(4) + "  " + text)
        }
        return lines
    }

    func testAnnotatedDumpMatchesARealFile() throws {
        let bytes = try Self.makeTinyDatabase()
        let pageSize = 512
        let format = try String(contentsOfFile: Self.formatPath(), encoding: .utf8)
        var blocks: [(page: Int, lines: [String])] = []
        var current: (page: Int, lines: [String])? = nil
        for line in format.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```hexdump wal") {
                current = (0, [])
            } else if line.hasPrefix("```hexdump page=") {
                current = (Int(line.dropFirst("```hexdump page=".count))!, [])
            } else if line.hasPrefix("```"), let block = current {
                blocks.append(block)
                current = nil
            } else if current != nil {
                // Keep the dump columns; annotations follow two spaces and `#`.
                let content = line.split(separator: "#", maxSplits: 1).first.map(String.init) ?? ""
                let trimmed = content.trimmingTrailingSpaces()
                if !trimmed.isEmpty { current!.lines.append(trimmed) }
            }
        }
        XCTAssertEqual(bytes.count / pageSize, 6, "the tiny file has six pages")
        XCTAssertEqual(Set(blocks.map(\.page)), Set(0...6), "FORMAT.md dumps every page and the log")
        let log = try Self.makeTinyLog()
        for block in blocks where block.page == 0 {
            XCTAssertEqual(block.lines, Self.hexDump(log, from: 0, count: log.count, absolute: true), "the log")
        }
        for block in blocks where block.page > 0 {
            XCTAssertEqual(block.lines, Self.hexDump(bytes, page: block.page, pageSize: pageSize), "page \(block.page)")
        }
        if getenv("GRANITE_PRINT_DUMP") != nil {
            print("```hexdump wal")
            for line in Self.hexDump(log, from: 0, count: log.count, absolute: true) { print(line) }
            print("```")
            for page in 1...6 {
                print("```hexdump page=\(page)")
                for line in Self.hexDump(bytes, page: page, pageSize: pageSize) { print(line) }
                print("```")
            }
        }
    }

    /// The table of FORMAT.md § "Local payload and overflow".
    func testLocalPayloadTable() {
        let expected: [(Int, Int, Int, Int)] = [
            (512, 94, 39, 500), (1024, 222, 103, 1012), (4096, 990, 489, 4084), (65536, 16350, 8199, 65524),
        ]
        for (pageSize, maxLocal, minLocal, capacity) in expected {
            let g = TreeGeometry(pageSize: pageSize)
            XCTAssertEqual(
                [g.maxLocal, g.minLocal, g.overflowCapacity], [maxLocal, minLocal, capacity], "\(pageSize)")
        }
        XCTAssertEqual(TreeGeometry(pageSize: 4096).localLength(100), 100)
        XCTAssertEqual(TreeGeometry(pageSize: 4096).localLength(2000), 489)
        XCTAssertEqual(TreeGeometry(pageSize: 4096).overflowPageCount(2000), 1)
    }

    static func formatPath() -> String {
        var path = #filePath
        for _ in 0..<3 { path = String(path[..<path.lastIndex(of: "/")!]) }
        return path + "/FORMAT.md"
    }
}

extension String {
    fileprivate func leftPad(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }

    fileprivate func trimmingTrailingSpaces() -> String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}

extension String {
    fileprivate init(contentsOfFile path: String, encoding: Unicode.UTF8.Type) throws {
        guard let f = fopen(path, "rb") else { throw StorageError.io("open", path: path, errno: errno) }
        defer { fclose(f) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&chunk, 1, chunk.count, f)
            if n <= 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        self = String(decoding: bytes, as: UTF8.self)
    }
}
