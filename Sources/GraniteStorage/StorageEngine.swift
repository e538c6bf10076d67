// The entry point of the storage layer: one database file and its trees.

/// Options for opening a database with ``StorageEngine``.
public struct StorageOptions: Sendable {
    /// Page size for a new database (a power of two, 512–65536); an existing
    /// file keeps the page size it was created with.
    public var pageSize: Int = PageLayout.defaultPageSize
    /// Pages kept in the page cache between operations.
    public var cacheSize: Int = 2000
    /// Open without the right to change anything.
    public var readOnly = false
    /// Create the database when the file is missing or empty.
    public var create = true
    /// Sync the file at each commit (durability against power loss).
    public var synchronous = true

    /// Default options.
    public init() {}
}

/// An open database file: its pager, its catalog of named trees, and commit.
///
/// ```swift
/// let engine = try StorageEngine(path: "/tmp/demo.granite")
/// let table = try engine.createTable(named: "items")
/// try table.insert(rowid: 1, payload: [1, 2, 3])
/// try engine.commit()
/// ```
///
/// Changes accumulate in the page cache until ``commit()`` writes them or
/// ``rollback()`` drops them. An engine is used from one thread at a time.
public final class StorageEngine {
    /// The database file.
    public let file: any StorageFile
    /// The pager over the file.
    public let pager: Pager
    private var closed = false

    /// Opens (or creates) the database at `path`.
    public convenience init(path: String, options: StorageOptions = StorageOptions()) throws {
        let file = try POSIXFile(path: path, create: options.create && !options.readOnly, readOnly: options.readOnly)
        try self.init(file: file, options: options)
    }

    /// Opens (or creates) the database stored in `file`.
    public init(file: any StorageFile, options: StorageOptions = StorageOptions()) throws {
        self.file = file
        guard try file.tryLock(options.readOnly ? .shared : .exclusive) else {
            throw StorageError.locked(file.path)
        }
        do {
            let size = try file.size()
            if size == 0 {
                guard options.create, !options.readOnly else {
                    throw StorageError.notADatabase("the file is empty")
                }
                guard PageLayout.isValidPageSize(options.pageSize) else {
                    throw StorageError.invalidArgument(
                        "page size \(options.pageSize) is not a power of two in 512...65536")
                }
                let source = FilePageSource(file: file, pageSize: options.pageSize, syncOnCommit: options.synchronous)
                pager = Pager(creatingIn: source, cacheSize: options.cacheSize)
                let catalogRoot = try pager.allocatePage()
                TreePage(unchecked: catalogRoot, base: try pager.writablePage(catalogRoot), geometry: pager.geometry)
                    .initialize(.indexLeaf)
                pager.header.catalogRoot = catalogRoot
                try pager.commit()
            } else {
                var prefix = [UInt8](repeating: 0, count: FileHeader.size)
                let complete = try prefix.withUnsafeMutableBytes { try file.readFully(into: $0, at: 0) }
                guard complete else { throw StorageError.notADatabase("file is too short (\(size) bytes)") }
                let header = try prefix.withUnsafeBytes { try FileHeader(reading: $0.baseAddress!) }
                guard Int64(header.pageCount) * Int64(header.pageSize) <= size else {
                    throw StorageError.corrupt(
                        page: 1, "header claims \(header.pageCount) pages but the file holds \(size) bytes")
                }
                let source = FilePageSource(
                    file: file, pageSize: Int(header.pageSize), syncOnCommit: options.synchronous)
                pager = try Pager(source: source, cacheSize: options.cacheSize, readOnly: options.readOnly)
            }
        } catch {
            try? file.unlock()
            throw error
        }
    }

    /// An in-memory database (nothing touches the disk).
    public static func inMemory(options: StorageOptions = StorageOptions()) throws -> StorageEngine {
        try StorageEngine(file: MemoryFile(), options: options)
    }

    deinit {
        if !closed { try? file.unlock() }
    }

    private var catalog: Catalog { Catalog(pager: pager) }

    // MARK: Trees

    /// Creates an empty table tree named `name`.
    public func createTable(named name: String) throws -> TableTree {
        let info = try createTree(named: name, kind: .table)
        return TableTree(name: name, root: info.root, pager: pager)
    }

    /// Creates an empty index tree named `name`.
    public func createIndex(named name: String) throws -> IndexTree {
        let info = try createTree(named: name, kind: .index)
        return IndexTree(name: name, root: info.root, pager: pager)
    }

    private func createTree(named name: String, kind: TreeKind) throws -> TreeInfo {
        guard !name.isEmpty, name.utf8.count <= 1024 else {
            throw StorageError.invalidArgument("tree names must have 1 to 1024 bytes")
        }
        if try catalog.lookup(name) != nil { throw StorageError.alreadyExists("tree '\(name)'") }
        let root = try pager.allocatePage()
        TreePage(unchecked: root, base: try pager.writablePage(root), geometry: pager.geometry)
            .initialize(kind.leafType)
        let info = TreeInfo(name: name, kind: kind, root: root)
        try catalog.add(info)
        return info
    }

    /// The table tree named `name`.
    public func table(named name: String) throws -> TableTree {
        guard let info = try catalog.lookup(name), info.kind == .table else {
            throw StorageError.notFound("table '\(name)'")
        }
        return TableTree(name: name, root: info.root, pager: pager)
    }

    /// The index tree named `name`.
    public func index(named name: String) throws -> IndexTree {
        guard let info = try catalog.lookup(name), info.kind == .index else {
            throw StorageError.notFound("index '\(name)'")
        }
        return IndexTree(name: name, root: info.root, pager: pager)
    }

    /// The catalog entry of `name`, or nil.
    public func treeInfo(named name: String) throws -> TreeInfo? {
        try catalog.lookup(name)
    }

    /// Every tree in the catalog, by name.
    public func trees() throws -> [TreeInfo] {
        try catalog.all()
    }

    /// Deletes a tree and frees all its pages.
    public func dropTree(named name: String) throws {
        guard let info = try catalog.lookup(name) else { throw StorageError.notFound("tree '\(name)'") }
        try BTree(pager: pager, root: info.root, kind: info.kind).destroy(keepRoot: false)
        try catalog.remove(name)
        try pager.safePoint()
    }

    /// Removes every entry of a tree, keeping the tree.
    public func clearTree(named name: String) throws {
        guard let info = try catalog.lookup(name) else { throw StorageError.notFound("tree '\(name)'") }
        try BTree(pager: pager, root: info.root, kind: info.kind).destroy(keepRoot: true)
        try pager.safePoint()
    }

    /// A number stored in the header for applications (`PRAGMA user_version`).
    public var userVersion: UInt32 {
        get { pager.header.userVersion }
        set { pager.header.userVersion = newValue }
    }

    // MARK: Transactions

    /// Writes every change since the last commit and makes it durable.
    public func commit() throws {
        try pager.commit()
    }

    /// Drops every change since the last commit.
    public func rollback() throws {
        try pager.rollback()
    }

    /// Releases the file lock. Uncommitted changes are dropped.
    public func close() throws {
        guard !closed else { return }
        closed = true
        if pager.hasChanges && !pager.hasSpilled { try? pager.rollback() }
        try file.unlock()
        if let posix = file as? POSIXFile { posix.close() }
    }
}
