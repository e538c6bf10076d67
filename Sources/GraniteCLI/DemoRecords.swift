// The record type of `granite demo`, written the way a GRDB user writes one.

import Foundation
import Granite

/// A player of the demo database: a Codable record whose `achievements` array is stored as a JSON column.
struct Player: Codable, Equatable, Identifiable, FetchableRecord, MutablePersistableRecord {
    /// The id, nil until the player is inserted.
    var id: Int64?
    var name: String
    var team: String
    var score: Int
    /// What the player achieved, oldest first: stored as JSON text (long enough for zlib to compress it).
    var achievements: [Achievement]
    /// A picture for some players (every 500th one large enough to spill to overflow pages).
    var avatar: Data?

    /// One entry of ``Player/achievements``.
    struct Achievement: Codable, Equatable {
        var title: String
        var season: Int
        var points: Int
        var note: String
    }

    /// The columns, derived from the coding keys, for the query interface.
    enum Columns {
        static let id = Column(CodingKeys.id)
        static let name = Column(CodingKeys.name)
        static let team = Column(CodingKeys.team)
        static let score = Column(CodingKeys.score)
        static let achievements = Column(CodingKeys.achievements)
        static let avatar = Column(CodingKeys.avatar)
    }

    /// Keeps the id the database assigned.
    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

extension Player {
    /// The migration creating the `player` table and its index on scores, with the schema DSL.
    static func registerMigrations(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("createPlayer") { db in
            try db.create(table: "player") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull()
                t.column("team", .text).notNull()
                t.column("score", .integer).notNull()
                t.column("achievements", .jsonText).notNull()
                t.column("avatar", .blob)
            }
            try db.create(index: "player_on_score", on: "player", columns: ["score"])
        }
    }
}
