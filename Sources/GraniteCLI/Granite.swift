// The `granite` command-line tool: builds a demo database and inspects database files.

import ArgumentParser

/// The root `granite` command; every job is a subcommand.
@main
struct Granite: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "granite",
        abstract: "Build, inspect and check Granite database files.",
        discussion: """
            The inspecting commands (`info`, `pages`, `page`, `tree`, `stats`, `check`, `dump`, \
            `backup`, `recover`) open FILE read-only; `demo`, `checkpoint`, `sql`, `import` and \
            `vacuum` write to it; `wal` reads the write-ahead log FILE-wal directly. Each accepts --json for \
            machine-readable output. A damaged file or a bad argument gives a message on \
            standard error and a non-zero exit status.
            """,
        subcommands: [
            DemoCommand.self, InfoCommand.self, PagesCommand.self, PageCommand.self, TreeCommand.self,
            StatsCommand.self, CheckCommand.self, WalCommand.self, CheckpointCommand.self, TortureCommand.self,
            SQLCommand.self, DumpCommand.self, ImportCommand.self, VacuumCommand.self, BackupCommand.self,
            RecoverCommand.self,
        ]
    )
}
