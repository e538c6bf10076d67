extension Statement {
    /// The part of the database the statement reads: for a `SELECT`, each table it reads (through views and
    /// subqueries too) with the columns it reads anywhere (all of them for `count(*)`); empty for other
    /// statements.
    ///
    /// ```swift
    /// let statement = try db.makeStatement(sql: "SELECT name FROM player WHERE score > 10")
    /// print(statement.databaseRegion) // player(name,score)
    /// ```
    public var databaseRegion: DatabaseRegion {
        if let narrowedRegion { return narrowedRegion }
        return readRegion
    }

    /// The region computed from the tables the engine reads; the full database when it cannot be computed (a
    /// statement whose schema vanished), so that an observer errs on the side of noticing changes.
    var readRegion: DatabaseRegion {
        guard let reads = try? prepared.readTables() else { return .fullDatabase }
        var region = DatabaseRegion()
        for read in reads {
            if let columns = read.columnNames {
                region.formUnion(DatabaseRegion(table: read.tableName, columns: columns))
            } else {
                region.formUnion(DatabaseRegion(table: read.tableName))
            }
        }
        return region
    }
}

extension DatabaseCursor {
    /// The part of the database the cursor's statement reads (see ``Statement/databaseRegion``).
    public var databaseRegion: DatabaseRegion { statement.databaseRegion }
}
