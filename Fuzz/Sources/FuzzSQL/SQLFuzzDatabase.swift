// The database every SQL input runs against: made once, then each input opens a fresh copy of its file image
// (copying bytes is much cheaper than running the schema script again).
import FuzzSupport
import GraniteSQL
import GraniteStorage

enum SQLFuzzDatabase {
    /// Tables of several shapes (rowid alias, plain rowid, indexes, UNIQUE, a foreign key, CHECK, defaults) with a
    /// few rows, including a long compressible text and a blob that need overflow pages at 512-byte pages.
    static let schema = """
        CREATE TABLE t(id INTEGER PRIMARY KEY, a, b TEXT, c REAL, name TEXT, price REAL DEFAULT 0 CHECK (price >= 0),
            owner INTEGER REFERENCES users(id));
        CREATE TABLE u(id INTEGER PRIMARY KEY, x, y, b, c);
        CREATE TABLE v(id, c, d);
        CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT UNIQUE COLLATE NOCASE);
        CREATE INDEX t_a ON t(a);
        CREATE INDEX t_name_price ON t(name, price DESC);
        CREATE INDEX u_xy ON u(x, y);
        INSERT INTO users(name) VALUES ('ann'), ('bob'), ('Émile');
        INSERT INTO t(a, b, c, name, price, owner) VALUES (1, 'x', 1.5, 'n1', 2, 1), (2, 'y', NULL, 'n2', 3, 2),
            (NULL, 'z', -1, 'n3', 0, NULL), (x'00ff', 'w', 1e300, 'n4', 0.5, 3);
        INSERT INTO t(a, b, name) VALUES (7, '\(String(repeating: "q", count: 600))', 'long');
        INSERT INTO u(x, y, b, c) VALUES (1, 2, 'x', 3), (2, 3, 'y', 4), (1, NULL, NULL, 5),
            (-9223372036854775808, 0.5, x'', '');
        INSERT INTO v VALUES (1, 2, 3), (2, 3, 4), (x'\(String(repeating: "00", count: 900))', 'big', NULL);
        """

    /// The file image of the prepared database (512-byte pages, so that small rows already spill).
    static let image: [UInt8] = {
        var options = StorageOptions()
        options.pageSize = 512
        let file = MemoryFile()
        do {
            let engine = try StorageEngine(file: file, options: options)
            let db = try SQLConnection(engine: engine)
            try db.execute(schema)
            try engine.close()
        } catch {
            fatalError("the SQL fuzzer's schema does not run: \(error)")
        }
        return file.bytes
    }()

    /// A fresh connection to a copy of ``image``.
    static func open() -> SQLConnection {
        do {
            var options = StorageOptions()
            options.cacheSize = 64
            return try SQLConnection(engine: try StorageEngine(file: MemoryFile(bytes: image), options: options))
        } catch {
            fatalError("the SQL fuzzer's database does not open: \(error)")
        }
    }
}
