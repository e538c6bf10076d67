import Foundation

/// UUIDs are stored as 16-byte blobs, and decoded from such blobs or from their text form in either case.
///
/// ```swift
/// try db.execute(sql: "INSERT INTO player (id) VALUES (?)", arguments: [UUID()])
/// let id = try UUID.fetchOne(db, sql: "SELECT id FROM player")
/// ```
extension UUID: DatabaseValueConvertible {
    /// The 16 bytes of the UUID as a BLOB.
    public var databaseValue: DatabaseValue {
        DatabaseValue(storage: .blob(withUnsafeBytes(of: uuid) { Data($0) }))
    }

    /// A UUID from a 16-byte BLOB, or from a TEXT such as `E621E1F8-C36C-495A-93FC-0C247A3E6E5F`
    /// (in either case); nil otherwise.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> UUID? {
        switch dbValue.storage {
        case .blob(let data) where data.count == 16:
            return UUID(bytes: data)
        case .string(let string):
            return UUID(uuidString: string)
        default:
            return nil
        }
    }

    /// The UUID of 16 bytes.
    init<Bytes: Collection>(bytes: Bytes) where Bytes.Element == UInt8 {
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &uuid) { buffer in
            for (offset, byte) in zip(buffer.indices, bytes) { buffer[offset] = byte }
        }
        self.init(uuid: uuid)
    }
}

extension UUID: StatementColumnConvertible {
    /// A UUID from a 16-byte BLOB or a TEXT; nil for other values.
    public init?(sqliteStatement: SQLiteStatement, index: CInt) {
        switch sqliteStatement.value(atIndex: index) {
        case .blob(let bytes) where bytes.count == 16:
            self.init(bytes: bytes)
        case .text(let string):
            guard let uuid = UUID(uuidString: string) else { return nil }
            self = uuid
        default:
            return nil
        }
    }
}

/// `NSUUID` is stored and decoded as `UUID`.
extension NSUUID: DatabaseValueConvertible {
    /// The 16 bytes of the UUID as a BLOB.
    public var databaseValue: DatabaseValue {
        var bytes = [UInt8](repeating: 0, count: 16)
        bytes.withUnsafeMutableBufferPointer { getBytes($0.baseAddress!) }
        return DatabaseValue(storage: .blob(Data(bytes)))
    }

    /// A UUID from a 16-byte BLOB or a TEXT, as `UUID`; nil otherwise.
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        guard let uuid = UUID.fromDatabaseValue(dbValue) else { return nil }
        return withUnsafeBytes(of: uuid.uuid) { buffer -> Self? in
            guard let bytes = buffer.bindMemory(to: UInt8.self).baseAddress else { return nil }
            return NSUUID(uuidBytes: bytes) as? Self
        }
    }
}
