import GraniteSQL
import GraniteStorage
import XCTest

/// FORMAT.md § "The SQL schema" must describe what the SQL layer really stores: this test builds the example
/// database of § "Schema example", checks its `granite_schema` rows and storage tree names, and compares every
/// line of the document's `entries` block with the bytes of the trees.
final class SchemaFormatDocumentTests: XCTestCase {
    /// The statements of FORMAT.md § "Schema example", in order.
    static let statements = [
        "CREATE TABLE person(id INTEGER PRIMARY KEY, email TEXT UNIQUE, name TEXT COLLATE NOCASE, age INTEGER)",
        "CREATE INDEX person_name ON person(name)",
        "CREATE INDEX person_age ON person(age DESC)",
        "CREATE INDEX person_email ON person(email COLLATE RTRIM)",
        "CREATE INDEX person_upper ON person(upper(name))",
        "CREATE INDEX person_adult ON person(age) WHERE age >= 18",
        "INSERT INTO person VALUES (7, 'ada@example.org  ', 'Ada', 36), (8, NULL, 'Bo', 12)",
        "CREATE TABLE note(id INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT)",
        "INSERT INTO note(body) VALUES ('hi')",
        "ALTER TABLE note ADD COLUMN pinned INTEGER DEFAULT 0",
    ]

    static func makeDatabase() throws -> SQLConnection {
        let db = try SQLConnection(engine: try StorageEngine(file: MemoryFile(), walFile: MemoryFile()))
        for sql in statements { try db.execute(sql) }
        return db
    }

    func testSchemaRowsAndTreeNames() throws {
        let db = try Self.makeDatabase()
        let rows = try db.query("SELECT rowid, type, name, tbl_name, rootpage, sql FROM granite_schema").rows
        func row(_ rowid: Int64, _ type: String, _ name: String, _ table: String, _ root: Int64, _ sql: String?)
            -> [Value]
        {
            [.integer(rowid), .text(type), .text(name), .text(table), .integer(root), sql.map { .text($0) } ?? .null]
        }
        let note = "CREATE TABLE note(id INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT, pinned INTEGER DEFAULT 0)"
        let expected: [[Value]] = [
            row(1, "table", "person", "person", 4, Self.statements[0]),
            row(2, "index", "granite_autoindex_person_1", "person", 5, nil),
            row(3, "index", "person_name", "person", 6, Self.statements[1]),
            row(4, "index", "person_age", "person", 7, Self.statements[2]),
            row(5, "index", "person_email", "person", 8, Self.statements[3]),
            row(6, "index", "person_upper", "person", 9, Self.statements[4]),
            row(7, "index", "person_adult", "person", 10, Self.statements[5]),
            row(8, "table", "note", "note", 11, note),
            row(9, "table", "granite_sequence", "granite_sequence", 12, "CREATE TABLE granite_sequence(name,seq)"),
        ]
        XCTAssertEqual(rows, expected)
        try db.engine.beginRead()
        defer { try? db.engine.endRead() }
        let trees = try db.engine.trees().map { "\($0.name) \($0.kind) \($0.root)" }
        XCTAssertEqual(
            trees,
            [
                "granite_schema table 3", "i:2 index 5", "i:3 index 6", "i:4 index 7", "i:5 index 8",
                "i:6 index 9", "i:7 index 10", "t:1 table 4", "t:8 table 11", "t:9 table 12",
            ])
        // Nine schema changes, one cookie increment each (granite_sequence's creation is one of them).
        XCTAssertEqual(try db.engine.schemaCookie, 9)
    }

    func testShortRowReadsTheDefault() throws {
        let db = try Self.makeDatabase()
        XCTAssertEqual(try db.query("SELECT id, body, pinned FROM note").rows, [[.integer(1), .text("hi"), .integer(0)]])
        XCTAssertEqual(try db.query("SELECT name, seq FROM granite_sequence").rows, [[.text("note"), .integer(1)]])
    }

    /// Every line of FORMAT.md's `entries` block: `<tree> [rowid]: <hex>  # comment`. A table line gives the
    /// payload of one row; the index lines of a tree give all its keys, in order (values are empty).
    func testDocumentedEntriesMatch() throws {
        let db = try Self.makeDatabase()
        let format = try String(contentsOfFile: Self.formatPath(), encoding: .utf8)
        var lines: [(tree: String, rowid: Int64?, bytes: [UInt8])] = []
        var inBlock = false
        for line in format.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```entries") {
                inBlock = true
            } else if line.hasPrefix("```") {
                inBlock = false
            } else if inBlock {
                let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
                guard let colon = content.firstIndex(of: ":", after: 2) else { continue }
                let head = content[..<colon].split(separator: " ")
                let bytes = content[content.index(after: colon)...].split(separator: " ").map { UInt8($0, radix: 16)! }
                lines.append((String(head[0]), head.count > 1 ? Int64(head[1])! : nil, bytes))
            }
        }
        XCTAssertGreaterThan(lines.count, 10, "FORMAT.md has no entries block")
        try db.engine.beginRead()
        defer { try? db.engine.endRead() }
        var indexTrees: [String] = []
        for line in lines {
            if let rowid = line.rowid {
                let cursor = try db.engine.table(named: line.tree).makeCursor()
                XCTAssertTrue(try cursor.seek(rowid: rowid), "\(line.tree) \(rowid)")
                XCTAssertEqual(Self.hex(try cursor.payload()), Self.hex(line.bytes), "\(line.tree) \(rowid)")
            } else if !indexTrees.contains(line.tree) {
                indexTrees.append(line.tree)
            }
        }
        XCTAssertEqual(indexTrees.count, 6)
        for tree in indexTrees {
            let cursor = try db.engine.index(named: tree).makeCursor()
            var keys: [String] = []
            var more = try cursor.first()
            while more {
                keys.append(Self.hex(cursor.key))
                XCTAssertEqual(try cursor.payload(), [], tree)
                more = try cursor.next()
            }
            XCTAssertEqual(keys, lines.filter { $0.tree == tree && $0.rowid == nil }.map { Self.hex($0.bytes) }, tree)
        }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0 >> 4, radix: 16) + String($0 & 15, radix: 16) }.joined(separator: " ")
    }

    static func formatPath() -> String {
        var path = #filePath
        for _ in 0..<3 { path = String(path[..<path.lastIndex(of: "/")!]) }
        return path + "/FORMAT.md"
    }
}

extension Substring {
    /// The first `character` at or after offset `offset`.
    fileprivate func firstIndex(of character: Character, after offset: Int) -> Index? {
        guard count > offset else { return nil }
        return self[index(startIndex, offsetBy: offset)...].firstIndex(of: character)
    }
}
