/// The column values a record stores in the database, filled by ``EncodableRecord/encode(to:)``.
///
/// Columns keep the order in which they were first set, and are looked up case-insensitively:
///
/// ```swift
/// func encode(to container: inout PersistenceContainer) {
///     container["id"] = id
///     container[Column("name")] = name
/// }
/// ```
public struct PersistenceContainer: Sendable {
    /// Column names and values, in insertion order. Records have few columns: a linear, case-insensitive
    /// search is faster than hashing lowercased names.
    private var elements: [(column: String, value: DatabaseValue)] = []

    /// Creates an empty container.
    init() {}

    /// Creates a container reserving room for `minimumCapacity` columns.
    init(minimumCapacity: Int) {
        elements.reserveCapacity(minimumCapacity)
    }

    /// Creates a container filled by `record`.
    init(_ record: some EncodableRecord) throws {
        self.init()
        try record.encode(to: &self)
    }

    /// Creates a container filled by `record`, sized after its table.
    init(_ db: Database, _ record: some EncodableRecord & TableRecord) throws {
        try self.init(record)
    }

    /// The position of a column (case-insensitive).
    private func position(of column: String) -> Int? {
        if let index = elements.firstIndex(where: { $0.column == column }) { return index }
        return elements.firstIndex { sameIdentifier($0.column, column) }
    }

    /// The value of a column (case-insensitive), or nil if the column was not set. Setting nil stores NULL.
    public subscript(_ column: String) -> (any DatabaseValueConvertible)? {
        get {
            guard let index = position(of: column) else { return nil }
            return elements[index].value
        }
        set {
            let value = newValue?.databaseValue ?? .null
            if let index = position(of: column) {
                elements[index].value = value
            } else {
                elements.append((column, value))
            }
        }
    }

    /// The value of a column (case-insensitive), or nil if the column was not set. Setting nil stores NULL.
    public subscript(_ column: some ColumnExpression) -> (any DatabaseValueConvertible)? {
        get { self[column.name] }
        set { self[column.name] = newValue }
    }

    /// The column names, in order.
    var columns: [String] { elements.map(\.column) }

    /// The values, in the order of `columns`.
    var values: [DatabaseValue] { elements.map(\.value) }

    /// The value of a column (case-insensitive), NULL when the column is missing.
    func databaseValue(at column: String) -> DatabaseValue {
        guard let index = position(of: column) else { return .null }
        return elements[index].value
    }

    /// The columns whose value differs from `container`, with their value in `container` (NULL when missing).
    func changes(from container: PersistenceContainer) -> [(String, DatabaseValue)] {
        elements.compactMap { column, value in
            let old = container.databaseValue(at: column)
            return value == old ? nil : (column, old)
        }
    }
}

/// Whether two identifiers are equal, ignoring ASCII case (as SQLite does).
private func sameIdentifier(_ lhs: String, _ rhs: String) -> Bool {
    let l = lhs.utf8
    let r = rhs.utf8
    guard l.count == r.count else { return false }
    return zip(l, r).allSatisfy { a, b in
        a == b || (a | 0x20 == b | 0x20 && (a | 0x20) >= UInt8(ascii: "a") && (a | 0x20) <= UInt8(ascii: "z"))
    }
}

extension PersistenceContainer: RandomAccessCollection {
    /// Positions are offsets from the first column.
    public typealias Index = Int

    /// The position of the first column.
    public var startIndex: Int { elements.startIndex }

    /// The position after the last column.
    public var endIndex: Int { elements.endIndex }

    /// The column name and value at `position`.
    public subscript(position: Int) -> (String, DatabaseValue) {
        let element = elements[position]
        return (element.column, element.value)
    }
}

extension Row {
    /// A row made of the columns of a persistence container.
    convenience init(_ container: PersistenceContainer) {
        self.init(pairs: Array(container))
    }
}
