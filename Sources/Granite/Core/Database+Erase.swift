extension Database {
    /// Drops every table and index and resets the user version: the database is empty afterwards.
    func erase() throws {
        try inTransaction(.immediate) {
            let objects = try Row.fetchAll(
                self, sql: "SELECT type, name FROM granite_schema WHERE type IN ('table', 'index') ORDER BY type DESC")
            let foreignKeys = connection.foreignKeysEnabled
            connection.foreignKeysEnabled = false
            defer { connection.foreignKeysEnabled = foreignKeys }
            for row in objects {
                let type: String = row["type"]
                let name: String = row["name"]
                if type == "index" {
                    try execute(sql: "DROP INDEX IF EXISTS \(name.quotedDatabaseIdentifier)")
                } else {
                    try execute(sql: "DROP TABLE IF EXISTS \(name.quotedDatabaseIdentifier)")
                }
            }
            return .commit
        }
        try execute(sql: "PRAGMA user_version = 0")
    }
}
