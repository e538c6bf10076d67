// The SQL object behind each storage tree, so that reports say `book` and `book_on_title` rather than the
// storage names `t:6` and `i:7`.

import GraniteSQL
import GraniteStorage

/// The SQL names of a file's trees, read from its schema.
struct TreeNames {
    /// SQL name and kind ("table", "index") by storage name.
    private var objects: [String: (name: String, kind: String)] = [:]

    /// Reads the schema in `read`. A schema that cannot be read leaves every tree under its storage name (a
    /// damaged file can still be inspected).
    init(_ read: ReadTransaction) {
        guard let connection = try? SQLConnection(readingIn: read) else { return }
        for table in connection.catalog.tables { objects[table.storageName] = (table.name, "table") }
        for index in connection.catalog.indexes { objects[index.storageName] = (index.name, "index") }
    }

    /// The SQL name of storage tree `storageName`, or the storage name when no SQL object owns it.
    func name(of storageName: String) -> String {
        objects[storageName]?.name ?? storageName
    }

    /// "table" or "index" for a tree owned by an SQL object; otherwise the storage kind, and "catalog" for
    /// the catalog tree.
    func kind(of storageName: String, storageKind: TreeKind) -> String {
        if storageName == "(catalog)" { return "catalog" }
        return objects[storageName]?.kind ?? storageKind.description
    }
}
