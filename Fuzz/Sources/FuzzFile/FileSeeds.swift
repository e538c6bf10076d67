// The seed images of the file fuzzer, made by the engine (512-byte pages but one; small enough for libFuzzer's
// -max_len): every page type, overflow chains, compressed text, a freelist, SQL schemas with indexes.
import GraniteSQL
import GraniteStorage

#if canImport(Glibc)
    import Glibc
#endif

enum FileSeeds {
    /// Each seed's file name and a function that fills a fresh engine.
    static let seeds: [(name: String, fill: @Sendable (StorageEngine) throws -> Void)] = [
        ("empty.granite", { _ in }),
        ("sql-small.granite", { try SQLConnection(engine: $0).execute(sqlSmall) }),
        ("sql-overflow.granite", { try SQLConnection(engine: $0).execute(sqlOverflow) }),
        ("storage-mixed.granite", fillStorage),
        ("storage-4k.granite", fillFullLeaf),
    ]

    static let sqlSmall = """
        CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT UNIQUE, score REAL);
        CREATE TABLE notes(owner INTEGER REFERENCES users(id), body, flag);
        CREATE INDEX notes_owner ON notes(owner, flag DESC);
        INSERT INTO users(name, score) VALUES ('ann', 1.5), ('bob', -2), ('cy', NULL);
        INSERT INTO notes VALUES (1, 'hello', 1), (2, x'0001ff', 0), (3, 42, NULL), (NULL, 1e100, 7);
        """

    /// Enough rows for two-level trees, long texts (some stored compressed, some spilling), blobs on overflow pages.
    static let sqlOverflow: String = {
        var script = """
            CREATE TABLE docs(id INTEGER PRIMARY KEY, title TEXT, body TEXT, data BLOB);
            CREATE INDEX docs_title ON docs(title);

            """
        var state: UInt64 = 1
        for i in 1...24 {
            // Half random letters (they do not compress, so long bodies spill), half a repeated run.
            let random = (0..<(100 + i * 15)).map { _ -> Character in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return Character(Unicode.Scalar(UInt8(97 + (state >> 33) % 26)))
            }
            let body = String(random) + String(repeating: "ab", count: 60 + i * 5)
            let data = i % 6 == 0 ? "x'" + String(repeating: "00", count: 700) + "'" : "NULL"
            script += "INSERT INTO docs(title, body, data) VALUES ('title \(i)', '\(body)', \(data));\n"
        }
        return script + "DELETE FROM docs WHERE id % 7 = 0;"
    }()

    /// Through the storage API: a table and an index with overflowing entries, and a dropped tree's free pages.
    static func fillStorage(_ engine: StorageEngine) throws {
        let write = try engine.beginWrite()
        let table = try write.createTable(named: "t")
        let index = try write.createIndex(named: "i")
        for i in 1...40 {
            let size = i % 10 == 0 ? 900 : 20 + i % 30
            try table.insert(rowid: Int64(i), payload: [UInt8](repeating: UInt8(i), count: size))
            let key = KeyEncoding.encode([.text("key \(i % 13)"), .integer(Int64(i))])
            try index.insert(key: key, value: i % 15 == 0 ? [UInt8](repeating: 7, count: 600) : [])
        }
        let scratch = try write.createTable(named: "scratch")
        for i in 1...20 { try scratch.insert(rowid: Int64(i), payload: [UInt8](repeating: 1, count: 100)) }
        try write.dropTree(named: "scratch")
        try write.commit()
    }

    /// A table whose root leaf is nearly full: inserting into it after damage to the page's free-space fields is
    /// what wrote past the page (page size 4096: local cells up to 991 bytes, larger than a 512-byte page's).
    static func fillFullLeaf(_ engine: StorageEngine) throws {
        let write = try engine.beginWrite()
        let table = try write.createTable(named: "full")
        for i in 1...38 { try table.insert(rowid: Int64(i), payload: [UInt8](repeating: UInt8(i), count: 100)) }
        let index = try write.createIndex(named: "keys")
        for i in 1...20 { try index.insert(key: KeyEncoding.encode([.integer(Int64(i))]), value: []) }
        try write.commit()
    }

    /// Writes every seed into `directory`; returns whether all were written.
    static func write(to directory: String) -> Bool {
        for (name, fill) in seeds {
            do {
                var options = StorageOptions()
                options.pageSize = name.contains("4k") ? 4096 : 512
                let file = MemoryFile()
                let engine = try StorageEngine(file: file, options: options)
                try fill(engine)
                try engine.close()
                guard save(file.bytes, to: directory + "/" + name) else { return false }
            } catch {
                print("seed \(name): \(error)")
                return false
            }
        }
        return true
    }

    static func save(_ bytes: [UInt8], to path: String) -> Bool {
        guard let handle = fopen(path, "wb") else {
            print("cannot write \(path)")
            return false
        }
        defer { fclose(handle) }
        return bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, handle) } == bytes.count
    }
}
