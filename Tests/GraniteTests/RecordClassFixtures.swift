import Granite

/// The Record subclasses and records that the Record class tests share.
enum RecordClassFixtures {
    /// An in-memory database with the tables of the fixtures: player, proPlayer and measure.
    static func makeDatabase() throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, score INTEGER NOT NULL);
                    CREATE TABLE proPlayer (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL,
                        team TEXT);
                    CREATE TABLE measure (value REAL);
                    """)
        }
        return dbQueue
    }

    /// A Record subclass as GRDB's documentation writes them: auto-incremented id stored by `didInsert`.
    class Player: Record {
        var id: Int64?
        var name: String
        var score: Int

        override class var databaseTableName: String { "player" }

        init(id: Int64? = nil, name: String, score: Int) {
            self.id = id
            self.name = name
            self.score = score
            super.init()
        }

        required init(row: Row) throws {
            id = row["id"]
            name = row["name"]
            score = row["score"]
            try super.init(row: row)
        }

        override func encode(to container: inout PersistenceContainer) throws {
            container["id"] = id
            container["name"] = name
            container["score"] = score
        }

        override func didInsert(_ inserted: InsertionSuccess) {
            super.didInsert(inserted)
            id = inserted.rowID
        }
    }

    /// A subclass of a subclass, with one more column, another table, and its own callbacks.
    final class ProPlayer: Player {
        var team: String?
        var log: [String] = []

        override class var databaseTableName: String { "proPlayer" }

        init(name: String, score: Int, team: String?) {
            self.team = team
            super.init(name: name, score: score)
        }

        required init(row: Row) throws {
            team = row["team"]
            try super.init(row: row)
        }

        override func encode(to container: inout PersistenceContainer) throws {
            try super.encode(to: &container)
            container["team"] = team
        }

        override func willInsert(_ db: Database) throws {
            log.append("willInsert")
            try super.willInsert(db)
        }

        override func didInsert(_ inserted: InsertionSuccess) {
            super.didInsert(inserted)
            log.append("didInsert \(id.map(String.init) ?? "nil")")
        }
    }

    /// Selects two columns only.
    final class PartialPlayer: Record {
        var id: Int64
        var name: String

        override class var databaseTableName: String { "player" }
        override class var databaseSelection: [any SQLSelectable] { [Column("id"), Column("name")] }

        required init(row: Row) throws {
            id = row["id"]
            name = row["name"]
            try super.init(row: row)
        }

        override func encode(to container: inout PersistenceContainer) throws {
            container["id"] = id
            container["name"] = name
        }
    }

    /// Logs every persistence callback, and calls `super` in each.
    final class LoggedPlayer: Player {
        var log: [String] = []

        override func willSave(_ db: Database) throws {
            log.append("willSave")
            try super.willSave(db)
        }
        override func aroundSave(_ db: Database, save: () throws -> PersistenceSuccess) throws {
            log.append("aroundSave enter")
            try super.aroundSave(db, save: save)
            log.append("aroundSave exit")
        }
        override func didSave(_ saved: PersistenceSuccess) {
            super.didSave(saved)
            log.append("didSave")
        }
        override func willInsert(_ db: Database) throws {
            log.append("willInsert")
            try super.willInsert(db)
        }
        override func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws {
            log.append("aroundInsert enter")
            try super.aroundInsert(db, insert: insert)
            log.append("aroundInsert exit")
        }
        override func didInsert(_ inserted: InsertionSuccess) {
            super.didInsert(inserted)
            log.append("didInsert")
        }
        override func willUpdate(_ db: Database, columns: Set<String>) throws {
            log.append("willUpdate \(columns.sorted())")
            try super.willUpdate(db, columns: columns)
        }
        override func aroundUpdate(_ db: Database, columns: Set<String>, update: () throws -> PersistenceSuccess)
            throws
        {
            log.append("aroundUpdate enter")
            try super.aroundUpdate(db, columns: columns, update: update)
            log.append("aroundUpdate exit")
        }
        override func didUpdate(_ updated: PersistenceSuccess) {
            super.didUpdate(updated)
            log.append("didUpdate")
        }
        override func willDelete(_ db: Database) throws {
            log.append("willDelete")
            try super.willDelete(db)
        }
        override func aroundDelete(_ db: Database, delete: () throws -> Bool) throws {
            log.append("aroundDelete enter")
            try super.aroundDelete(db, delete: delete)
            log.append("aroundDelete exit")
        }
        override func didDelete(deleted: Bool) {
            super.didDelete(deleted: deleted)
            log.append("didDelete \(deleted)")
        }
    }

    /// Inserts without calling `super.aroundInsert`: the insertion happens, but the record does not learn
    /// that its values are now in the database.
    final class PlayerForgettingSuper: Player {
        override func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws {
            _ = try insert()
        }
    }

    /// An `aroundInsert` that never inserts.
    final class PlayerSkippingInsert: Player {
        override func aroundInsert(_ db: Database, insert: () throws -> InsertionSuccess) throws {}
    }

    /// Refuses to save an empty name.
    final class ValidatingPlayer: Player {
        struct EmptyName: Error {}
        override func willSave(_ db: Database) throws {
            try super.willSave(db)
            if name.isEmpty { throw EmptyName() }
        }
    }

    /// Replaces conflicting rows on insertion, ignores conflicts on update.
    final class ReplacingPlayer: Player {
        override class var persistenceConflictPolicy: PersistenceConflictPolicy {
            PersistenceConflictPolicy(insert: .replace, update: .ignore)
        }
    }

    /// A property of integer type on a REAL column.
    final class Measure: Record {
        var value: Int
        override class var databaseTableName: String { "measure" }
        required init(row: Row) throws {
            value = row["value"]
            try super.init(row: row)
        }
        override func encode(to container: inout PersistenceContainer) throws {
            container["value"] = value
        }
    }

    /// A record that can't be encoded.
    final class Unencodable: Record {
        struct EncodingFailure: Error {}
        override class var databaseTableName: String { "player" }
        override func encode(to container: inout PersistenceContainer) throws { throw EncodingFailure() }
    }

    /// A table without primary key: the record stores the hidden rowid, selected with `.rowID`.
    final class Note: Record, Hashable, Identifiable {
        var id: Int64?
        var text: String

        override class var databaseTableName: String { "note" }
        override static var databaseSelection: [any SQLSelectable] { [.allColumns, .rowID] }

        init(text: String) {
            self.text = text
            super.init()
        }

        required init(row: Row) throws {
            id = row[.rowID]
            text = row["text"]
            try super.init(row: row)
        }

        override func encode(to container: inout PersistenceContainer) throws {
            container[.rowID] = id
            container["text"] = text
        }

        override func didInsert(_ inserted: InsertionSuccess) {
            super.didInsert(inserted)
            id = inserted.rowID
        }

        static func == (lhs: Note, rhs: Note) -> Bool { lhs.id == rhs.id && lhs.text == rhs.text }
        func hash(into hasher: inout Hasher) {
            hasher.combine(id)
            hasher.combine(text)
        }
    }

    /// The same table, as a Codable struct.
    struct PlayerStruct: Codable, FetchableRecord, PersistableRecord, Equatable {
        static let databaseTableName = "player"
        var id: Int64
        var name: String
        var score: Int
    }
}
