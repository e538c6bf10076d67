import Foundation
import RecordWorkloadsGRDB
import RecordWorkloadsGranite

/// The association workloads (`--only associations`): authors with ten books each, the same Swift source
/// (AssociationWorkloads.swift) compiled against Granite and against GRDB 7.10.0 on SQLite, timed in the same run.
extension Benchmark {
    private enum AssociationPhase: Int, CaseIterable {
        case includingAll, includingRequired, annotatedCount

        func label(authors: Int) -> String {
            let books = authors * RecordWorkloadsGranite.AssociationHarness.booksPerAuthor
            switch self {
            case .includingAll:
                return "Associations: Author.including(all: Author.books).fetchAll (\(authors) authors, \(books) books)"
            case .includingRequired:
                return "Associations: Book.including(required: Book.author).fetchAll (\(books) books)"
            case .annotatedCount:
                return "Associations: Author.annotated(with: Author.books.count).fetchAll (\(authors) authors)"
            }
        }
    }

    /// Times the phases on one engine in a fresh directory; returns the times (ns) and results.
    private func runAssociationPhases(authors: Int, directory: String, engine: Int) throws
        -> (times: [UInt64], results: [RecordOutcome])
    {
        let path = "\(directory)/db"
        let phases: [() throws -> RecordOutcome]
        let close: () throws -> Void
        if engine == 0 {
            let harness = try RecordWorkloadsGranite.AssociationHarness(path: path, authorCount: authors)
            phases = [harness.includingAllBooks, harness.includingRequiredAuthor, harness.annotatedWithBookCount]
            close = harness.close
        } else {
            let harness = try RecordWorkloadsGRDB.AssociationHarness(path: path, authorCount: authors)
            func outcome(_ body: @escaping () throws -> RecordWorkloadsGRDB.RecordResult)
                -> () throws -> RecordOutcome
            {
                {
                    let result = try body()
                    return RecordOutcome(count: result.count, checksum: result.checksum)
                }
            }
            phases = [
                outcome(harness.includingAllBooks), outcome(harness.includingRequiredAuthor),
                outcome(harness.annotatedWithBookCount),
            ]
            close = harness.close
        }
        var times: [UInt64] = []
        var results: [RecordOutcome] = []
        for phase in phases {
            let start = MonotonicClock.nanoseconds()
            let result = try phase()
            times.append(MonotonicClock.nanoseconds() - start)
            results.append(result)
        }
        try close()
        return (times, results)
    }

    func associationWorkloads(authors: Int, table: inout [ReportRow]) throws {
        var times = [[[Double]]](repeating: [[], []], count: AssociationPhase.allCases.count)
        for run in 0..<options.runs {
            var outcomes: [[RecordOutcome]?] = [nil, nil]
            for index in engineOrder(run: run) {
                let name = index == 0 ? "Granite" : "GRDB"
                let runDirectory = "\(directory)/associations-\(name.lowercased())-\(run)"
                try FileSystem.makeDirectory(runDirectory)
                let (phaseTimes, results) = try runAssociationPhases(
                    authors: authors, directory: runDirectory, engine: index)
                FileSystem.remove(runDirectory)
                var line = "Associations run \(run + 1)/\(options.runs): \(name)"
                for phase in AssociationPhase.allCases {
                    let ms = milliseconds(phaseTimes[phase.rawValue])
                    times[phase.rawValue][index].append(ms)
                    line += " \(phase)=\(format(ms)) ms"
                }
                log(line)
                outcomes[index] = results
            }
            guard let granite = outcomes[0], let grdb = outcomes[1] else { continue }
            for phase in AssociationPhase.allCases where granite[phase.rawValue] != grdb[phase.rawValue] {
                fail("associations \(phase): Granite \(granite[phase.rawValue]), GRDB \(grdb[phase.rawValue])")
            }
        }
        for phase in AssociationPhase.allCases {
            table.append(.time(phase.label(authors: authors), times[phase.rawValue], target: 1.0))
        }
    }
}
