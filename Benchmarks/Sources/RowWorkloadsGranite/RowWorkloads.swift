// The row-level workloads, compiled twice from this one file: into RowWorkloadsGranite (`import Granite`) and,
// through a symbolic link, into RowWorkloadsGRDB (`import GRDB`). The code below is the same for both: only the
// import differs, which is the promise of Granite's API.
#if GRANITE
    import Granite
#else
    import GRDB
#endif

/// One database and the row workloads run on it.
public final class RowHarness {
    let dbQueue: DatabaseQueue
    /// The number of integer columns of table `t`.
    public static let columnCount = 10

    /// Opens (creates) the database at `path`, in WAL mode, at synchronous NORMAL for both engines (the level
    /// GRDB, and Granite after it, give a WAL queue).
    public init(path: String) throws {
        var configuration = Configuration()
        configuration.journalMode = .wal
        dbQueue = try DatabaseQueue(path: path, configuration: configuration)
        try dbQueue.write { db in
            let columns = (0..<Self.columnCount).map { "c\($0) INTEGER" }.joined(separator: ", ")
            try db.execute(sql: "CREATE TABLE t (\(columns))")
        }
    }

    /// Row `i`, column `j` holds `i * 10 + j`.
    static func value(_ i: Int, _ j: Int) -> Int { i * 10 + j }

    /// Inserts `rows` rows in one transaction through a cached statement with positional arguments.
    public func insertPositional(rows: Int) throws {
        let placeholders = Array(repeating: "?", count: Self.columnCount).joined(separator: ", ")
        try dbQueue.write { db in
            let statement = try db.cachedStatement(sql: "INSERT INTO t VALUES (\(placeholders))")
            for i in 0..<rows {
                try statement.execute(arguments: [
                    Self.value(i, 0), Self.value(i, 1), Self.value(i, 2), Self.value(i, 3), Self.value(i, 4),
                    Self.value(i, 5), Self.value(i, 6), Self.value(i, 7), Self.value(i, 8), Self.value(i, 9),
                ])
            }
        }
    }

    /// Inserts `rows` rows in one transaction through a cached statement with named arguments.
    public func insertNamed(rows: Int) throws {
        let names = (0..<Self.columnCount).map { ":c\($0)" }.joined(separator: ", ")
        try dbQueue.write { db in
            let statement = try db.cachedStatement(sql: "INSERT INTO t VALUES (\(names))")
            for i in 0..<rows {
                try statement.execute(arguments: [
                    "c0": Self.value(i, 0), "c1": Self.value(i, 1), "c2": Self.value(i, 2), "c3": Self.value(i, 3),
                    "c4": Self.value(i, 4), "c5": Self.value(i, 5), "c6": Self.value(i, 6), "c7": Self.value(i, 7),
                    "c8": Self.value(i, 8), "c9": Self.value(i, 9),
                ])
            }
        }
    }

    /// Deletes every row.
    public func clear() throws {
        try dbQueue.write { db in try db.execute(sql: "DELETE FROM t") }
    }

    /// Reads every row through a `Row` cursor, decoding the ten integers; returns their sum.
    public func fetchRows() throws -> Int {
        try dbQueue.read { db in
            var sum = 0
            let rows = try Row.fetchCursor(db, sql: "SELECT * FROM t")
            while let row = try rows.next() {
                let a: Int = row[0]
                let b: Int = row[1]
                let c: Int = row[2]
                let d: Int = row[3]
                let e: Int = row[4]
                let f: Int = row[5]
                let g: Int = row[6]
                let h: Int = row[7]
                let i: Int = row[8]
                let j: Int = row[9]
                sum &+= a &+ b &+ c &+ d &+ e &+ f &+ g &+ h &+ i &+ j
            }
            return sum
        }
    }

    /// Reads every column with `Int.fetchAll`, one column at a time; returns the sum.
    public func fetchInts() throws -> Int {
        try dbQueue.read { db in
            var sum = 0
            for column in 0..<Self.columnCount {
                for value in try Int.fetchAll(db, sql: "SELECT c\(column) FROM t") { sum &+= value }
            }
            return sum
        }
    }

    /// The sum every fetch of `rows` rows must return.
    public static func expectedSum(rows: Int) -> Int {
        var sum = 0
        for i in 0..<rows { for j in 0..<columnCount { sum &+= value(i, j) } }
        return sum
    }
}
