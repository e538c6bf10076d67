// What `granite demo` reports: the record API steps, then the file-format view.

import Foundation

/// One step of the record API tour.
struct DemoStep: Codable {
    /// What the step does, in words.
    var title: String
    /// The Swift code of the step.
    var code: String
    /// The distinct SQL statements it ran, in order, with how many times each ran.
    var sql: [StatementCount]
    /// A short description of the result.
    var result: String
    var milliseconds: Double

    /// One SQL statement and its number of runs.
    struct StatementCount: Codable {
        var sql: String
        var count: Int
    }
}

/// How much text compression saved over the whole table.
struct CompressionReport: Codable {
    var textValues = 0
    var compressedValues = 0
    /// UTF-8 bytes of the compressed values, and their stored bodies.
    var plainBytes = 0
    var storedBytes = 0
    var savedBytes = 0
}

/// Whether the results of the steps match what the generated data predicts.
struct VerificationReport: Codable {
    var ok = true
    var checks = 0
    /// The first mismatches found (at most 20).
    var failures: [String] = []

    /// Records one check.
    mutating func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
        checks += 1
        guard !condition else { return }
        ok = false
        if failures.count < 20 { failures.append(message()) }
    }
}

/// The integrity check's verdict.
struct IntegrityVerdict: Codable {
    var ok: Bool
    var problems: [String]
}

/// A tree of the file with the SQL object stored in it.
struct DemoTree: Codable {
    /// The table or index name, or the tree's own name for the catalog and the schema table.
    var object: String
    var tree: TreeReport
}

/// The result of `granite demo`.
struct DemoReport: Codable {
    var file: String
    var fileSize: Int64
    var pageSize: Int
    var pageCount: UInt32
    /// Players left after the deletion step.
    var players: Int
    var steps: [DemoStep]
    var trees: [DemoTree]
    var compression: CompressionReport
    var verification: VerificationReport
    var integrity: IntegrityVerdict

    /// Whether `sql` is one of the schema queries the record API makes on its own (primary key, columns,
    /// foreign keys), which the text output counts rather than lists.
    static func isIntrospection(_ sql: String) -> Bool {
        sql.hasPrefix("SELECT name FROM granite_schema") || sql.hasPrefix("PRAGMA table_xinfo")
            || sql.hasPrefix("PRAGMA foreign_key_list") || sql.hasPrefix("PRAGMA index_list")
            || sql.hasPrefix("PRAGMA index_info")
    }

    /// Set in a debug build, whose timings are several times those of a release build.
    var debugBuild = DemoReport.isDebugBuild

    static var isDebugBuild: Bool {
        #if DEBUG
            return true
        #else
            return false
        #endif
    }

    func printText() {
        print("Granite demo: the record API on \(file)")
        if debugBuild {
            print(
                "(a debug build: the timings below are 5-10 times those of a release build; "
                    + "`swift build -c release --product granite` for those)")
        }
        for (number, step) in steps.enumerated() {
            print("")
            print("\(number + 1). \(step.title)" + String(format: "  (%.1f ms)", step.milliseconds))
            for line in step.code.split(separator: "\n") { print("   swift  \(line)") }
            var introspection = 0
            for statement in step.sql {
                if Self.isIntrospection(statement.sql) {
                    introspection += statement.count
                    continue
                }
                print("   sql    \(statement.sql)" + (statement.count > 1 ? "   × \(grouped(statement.count))" : ""))
            }
            if introspection > 0 {
                print("   sql    (and \(introspection) schema introspection statements, listed by --json)")
            }
            print("   → \(step.result)")
        }
        print("")
        print("The file")
        let lines = [
            ("size", "\(byteSize(Int(fileSize))) (\(grouped(fileSize)) bytes)"),
            ("page size", "\(grouped(pageSize)) bytes"),
            ("pages", grouped(pageCount)),
            ("players", grouped(players)),
        ]
        printLines(aligned(lines))
        print("trees")
        let named = trees.map { tree -> TreeReport in
            var report = tree.tree
            if tree.object != report.name { report.name = "\(tree.object) (\(report.name))" }
            return report
        }
        printLines(TreeReport.table(named).render(indent: "  "))
        let c = compression
        print("compressed text (the achievements JSON)")
        print(
            "  \(grouped(c.compressedValues)) of \(grouped(c.textValues)) text values stored compressed: "
                + "\(byteSize(c.plainBytes)) → \(byteSize(c.storedBytes)), \(byteSize(c.savedBytes)) saved "
                + "(\(percent(c.plainBytes == 0 ? 0 : Double(c.savedBytes) / Double(c.plainBytes))))")
        if verification.ok {
            print("verification: ok (\(verification.checks) results match the generated data)")
        } else {
            print("verification: FAILED (\(verification.failures.count) mismatches shown on standard error)")
        }
        print(integrity.ok ? "integrity: ok" : "integrity: \(integrity.problems.count) PROBLEMS")
    }
}
