// What the file fuzzer does with one damaged image: open it, check it, read every tree through the storage
// cursors and every table through SQL, then change it a little. Errors are expected; traps and sanitizer reports
// are the findings.
import FuzzSupport
import GraniteSQL
import GraniteStorage

enum FileExercise {
    static func run(_ input: UnsafeRawBufferPointer) {
        var image = [UInt8](input)
        FileImage.reseal(&image)
        var options = StorageOptions()
        options.cacheSize = 32
        guard let engine = try? StorageEngine(file: MemoryFile(bytes: image), options: options) else { return }
        _ = engine.checkIntegrity()
        readTrees(engine)
        if let db = try? SQLConnection(engine: engine) {
            readTables(db)
            change(db)
        }
        changeTrees(engine)
        _ = engine.checkIntegrity()
        try? engine.close()
    }

    /// Every tree of the storage catalog, forwards with payloads and backwards.
    static func readTrees(_ engine: StorageEngine) {
        guard let read = try? engine.beginRead() else { return }
        defer { try? read.commit() }
        guard let trees = try? read.trees() else { return }
        for info in trees {
            do {
                let cursor =
                    info.kind == .table
                    ? try read.table(named: info.name).makeCursor()
                    : try read.index(named: info.name).makeCursor()
                var ok = try cursor.first()
                var steps = 0
                while ok && steps < FuzzLimits.cursorSteps {
                    _ = try cursor.payload()
                    if info.kind == .index {
                        try cursor.withKey { _ = try? KeyEncoding.decode($0) }
                    } else {
                        _ = try? cursor.withPayload { try RowDecoder.decode($0) }
                    }
                    ok = try cursor.next()
                    steps += 1
                }
                ok = try cursor.last()
                steps = 0
                while ok && steps < FuzzLimits.cursorSteps {
                    ok = try cursor.previous()
                    steps += 1
                }
            } catch {
                continue
            }
        }
    }

    /// The SQL tables named in the schema (nil when the schema cannot be read).
    static func tableNames(_ db: SQLConnection) -> [String] {
        guard let rows = db.runForFuzzing("SELECT name FROM granite_schema WHERE type = 'table'") else { return [] }
        return rows.compactMap { row in
            guard case .text(let name)? = row.first else { return nil }
            return name
        }
    }

    /// `name` as a quoted SQL identifier.
    static func quoted(_ name: String) -> String {
        "\"" + name.replacingDoubleQuotes() + "\""
    }

    /// Every table with `SELECT *` (through the table's rows and, ordered by its first column, an index where one
    /// fits), and the SQL integrity check.
    static func readTables(_ db: SQLConnection) {
        for name in tableNames(db) {
            let table = quoted(name)
            db.runForFuzzing("SELECT * FROM \(table)")
            db.runForFuzzing("SELECT count(*), max(rowid) FROM \(table)")
            db.runForFuzzing("SELECT * FROM \(table) ORDER BY 1 DESC LIMIT 50")
            db.runForFuzzing("SELECT * FROM \(table) WHERE rowid BETWEEN 2 AND 40")
        }
        db.runForFuzzing("PRAGMA integrity_check")
    }

    /// A few writes: deleting and inserting rows makes the trees split, merge and free pages on the damaged file.
    static func change(_ db: SQLConnection) {
        for name in tableNames(db).prefix(4) {
            let table = quoted(name)
            db.runForFuzzing("DELETE FROM \(table) WHERE rowid % 3 = 0")
            db.runForFuzzing("INSERT INTO \(table) DEFAULT VALUES")
            db.runForFuzzing("UPDATE \(table) SET rowid = rowid + 1000 WHERE rowid % 5 = 1")
        }
    }
}

extension FileExercise {
    /// Raw inserts and deletes through the storage API (rows the SQL layer would not write: cells as large as a
    /// page allows, keys of any shape), then a commit; any error rolls back.
    static func changeTrees(_ engine: StorageEngine) {
        guard let write = try? engine.beginWrite() else { return }
        guard let trees = try? write.trees() else {
            try? write.rollback()
            return
        }
        let sizes = [900, 40, 3_000, 0]
        do {
            for info in trees.prefix(4) {
                if info.kind == .table {
                    let table = try write.table(named: info.name)
                    for (k, size) in sizes.enumerated() {
                        try table.insert(
                            rowid: 1_000_000 + Int64(k), payload: [UInt8](repeating: UInt8(k), count: size))
                    }
                    for rowid in 1...6 { _ = try table.delete(rowid: Int64(rowid)) }
                } else {
                    let index = try write.index(named: info.name)
                    for (k, size) in sizes.enumerated() {
                        let key = KeyEncoding.encode([.text("fuzz"), .integer(Int64(k))])
                        _ = try index.replace(key: key, value: [UInt8](repeating: 1, count: size / 3))
                    }
                }
            }
            try write.commit()
        } catch {
            if write.isActive { try? write.rollback() }
        }
    }
}

extension String {
    /// The string with every `"` doubled, as inside a quoted SQL identifier.
    fileprivate func replacingDoubleQuotes() -> String {
        var result = ""
        for character in self {
            result.append(character)
            if character == "\"" { result.append("\"") }
        }
        return result
    }
}
