// `granite dump FILE [TABLE…]`: the database as SQL text that `granite sql` and `sqlite3` load back.

import ArgumentParser
import GraniteSQL
import GraniteStorage

/// Writes the schema and rows of a database as SQL, like `sqlite3 FILE .dump`.
struct DumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Write a database (or some of its tables) as SQL text.",
        discussion: """
            The output is one transaction: each table's CREATE statement followed by its rows in rowid order \
            (INSERT statements), the AUTOINCREMENT counters (sqlite_sequence), then the indexes, triggers and \
            views. `granite sql NEW < dump.sql` and `sqlite3 NEW < dump.sql` load it back into the same data: \
            types, NULLs, blobs, reals to the last bit and text with any bytes. The file is opened read-only \
            and read from one snapshot; rows are streamed. With --dialect postgres, the tables and rows load \
            into psql (types by affinity, primary keys, NOT NULL, AUTOINCREMENT as identity); indexes, views \
            and triggers come as comments.
            """
    )

    @Argument(help: "The database file.")
    var file: String

    @Argument(help: "Tables (and views) to dump, with their indexes and triggers; all when absent.")
    var tables: [String] = []

    @Option(name: .long, help: "The SQL dialect: sqlite (for granite sql and sqlite3) or postgres (for psql).")
    var dialect = "sqlite"

    @Flag(name: .long, help: "Write the rows only, without CREATE statements.")
    var dataOnly = false

    @Flag(name: .long, help: "Write the CREATE statements only, without rows.")
    var schemaOnly = false

    func validate() throws {
        if dataOnly && schemaOnly { throw ValidationError("--data-only and --schema-only cannot be used together") }
        if !["sqlite", "postgres"].contains(dialect) {
            throw ValidationError("--dialect must be sqlite or postgres, not \(dialect)")
        }
    }

    func run() throws {
        try reportingErrors {
            try withDatabase(file) { read in
                let connection = try SQLConnection(readingIn: read)
                if dialect == "postgres" {
                    var writer = PostgresDumpWriter(
                        connection: connection, includesSchema: !dataOnly, includesRows: !schemaOnly)
                    try writer.dump(selecting: tables)
                } else {
                    var writer = SQLDumpWriter(connection: connection, includesSchema: !dataOnly, includesRows: !schemaOnly)
                    try writer.dump(selecting: tables)
                }
            }
        }
    }
}
