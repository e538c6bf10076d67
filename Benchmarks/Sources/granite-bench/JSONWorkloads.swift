import Foundation

/// The JSON workloads (`--only json`): the same statements, prepared once, run through GraniteSQL and through
/// `sqlite3_prepare_v2`/`bind`/`step`/`reset` on a table whose `profile` column holds a JSON object (city, age,
/// a tags array and a nested address object).
enum JSONText {
    static let schema = ["CREATE TABLE person(id INTEGER PRIMARY KEY, profile TEXT NOT NULL)"]
    static let insert = "INSERT INTO person(id, profile) VALUES (?, ?)"
    static let byCity = "SELECT count(*) FROM person WHERE profile ->> '$.city' = ?"
    static let ages = """
        SELECT count(*), sum(json_extract(profile, '$.age')), max(json_extract(profile, '$.age')) \
        FROM person WHERE json_extract(profile, '$.age') >= ?
        """
    static let byTag = "SELECT count(*) FROM person, json_each(person.profile, '$.tags') WHERE json_each.value = ?"
}

/// The timed phases of one JSON run, in the order they run on the same database.
enum JSONPhase: Int, CaseIterable {
    case insert
    case byCity
    case ages
    case byTag

    func label(_ dataset: JSONDataset) -> String {
        switch self {
        case .insert: return "JSON: INSERT \(dataset.rows) profiles, one transaction"
        case .byCity: return "JSON: count where profile ->> '$.city' = ?, full table ×\(dataset.cities.count)"
        case .ages: return "JSON: count/sum/max of json_extract(profile, '$.age'), full table ×\(dataset.ageThresholds.count)"
        case .byTag: return "JSON: count over json_each(profile, '$.tags') where value = ?, full table ×\(dataset.tags.count)"
        }
    }
}

/// The profiles and the arguments of the JSON workloads, generated (seeded) before any timing, with the
/// results a correct engine must produce.
final class JSONDataset {
    let rows: Int
    /// Row `id` (1-based) has `profiles[id - 1]`.
    let profiles: [String]
    /// The cities, ages thresholds and tags the queries ask for.
    let cities: [String]
    let ageThresholds: [Int64]
    let tags: [String]
    /// What each query must return, by argument.
    let expectedCityCounts: [Int64]
    let expectedAgeTotals: [(count: Int64, sum: Int64, max: Int64)]
    let expectedTagCounts: [Int64]

    private static let cityNames = [
        "Paris", "Lagos", "Tokyo", "São Paulo", "Zürich", "Montréal", "Kraków", "Nairobi", "Seoul", "Lima",
        "Oslo", "Hanoi", "Cairo", "Quito", "Perth", "Reykjavík",
    ]
    private static let tagNames = [
        "swift", "sqlite", "json", "rust", "go", "kotlin", "c", "haskell", "ocaml", "zig", "python", "ruby",
        "lisp", "erlang", "elixir", "scala", "java", "dart", "lua", "perl",
    ]
    private static let countries = ["FR", "NG", "JP", "BR", "CH", "CA", "PL", "KE", "KR", "PE"]

    init(rows: Int, seed: UInt64) {
        self.rows = rows
        var rng = SplitMix64(seed: seed ^ 0x4A53_4F4E_5F52_4F57)
        var profiles: [String] = []
        profiles.reserveCapacity(rows)
        var cityOf: [String] = []
        var ageOf: [Int64] = []
        var tagsOf: [[String]] = []
        for id in 1...rows {
            let city = Self.cityNames[Int(rng.next(below: UInt64(Self.cityNames.count)))]
            let age = Int64(18 + rng.next(below: 70))
            var tags: [String] = []
            for _ in 0..<Int(rng.next(below: 6)) {
                tags.append(Self.tagNames[Int(rng.next(below: UInt64(Self.tagNames.count)))])
            }
            let country = Self.countries[Int(rng.next(below: UInt64(Self.countries.count)))]
            let street = 1 + rng.next(below: 999)
            let tagList = tags.map { "\"\($0)\"" }.joined(separator: ",")
            profiles.append(
                """
                {"name":"person \(id)","city":"\(city)","age":\(age),"tags":[\(tagList)],\
                "address":{"street":"\(street) Main St","country":"\(country)"},"active":\(id % 3 != 0)}
                """)
            cityOf.append(city)
            ageOf.append(age)
            tagsOf.append(tags)
        }
        self.profiles = profiles
        cities = ["Paris", "Zürich", "Reykjavík", "Tokyo", "Atlantis"]
        ageThresholds = [18, 40, 65]
        tags = ["swift", "json", "zig", "perl", "cobol"]
        expectedCityCounts = cities.map { city in Int64(cityOf.count { $0 == city }) }
        expectedAgeTotals = ageThresholds.map { threshold in
            let ages = ageOf.filter { $0 >= threshold }
            return (Int64(ages.count), ages.reduce(0, +), ages.max() ?? 0)
        }
        expectedTagCounts = tags.map { tag in Int64(tagsOf.reduce(0) { $0 + $1.count { $0 == tag } }) }
    }

    /// The checks a run must produce, by name.
    var expectedChecks: [String: UInt64] {
        var checks: [String: UInt64] = ["count after insert": UInt64(rows)]
        for (city, count) in zip(cities, expectedCityCounts) { checks["city \(city)"] = UInt64(count) }
        for (threshold, totals) in zip(ageThresholds, expectedAgeTotals) {
            checks["age >= \(threshold) count"] = UInt64(totals.count)
            checks["age >= \(threshold) sum"] = UInt64(totals.sum)
            checks["age >= \(threshold) max"] = UInt64(totals.max)
        }
        for (tag, count) in zip(tags, expectedTagCounts) { checks["tag \(tag)"] = UInt64(count) }
        return checks
    }
}

/// What one engine measured and produced in one JSON run.
struct JSONRunResult {
    var nanoseconds = [UInt64](repeating: 0, count: JSONPhase.allCases.count)
    /// Named results, compared with the expected values and between engines.
    var checks: [(name: String, value: UInt64)] = []

    mutating func record(_ phase: JSONPhase, since start: UInt64) {
        nanoseconds[phase.rawValue] = MonotonicClock.nanoseconds() - start
    }

    mutating func check(_ name: String, _ value: Int64) {
        checks.append((name, UInt64(bitPattern: value)))
    }
}

extension Benchmark {
    /// Runs the JSON workloads `runs` times per engine, each run in a fresh directory, verifies the results
    /// against the expected values and between engines, and appends one report row per phase.
    func jsonWorkloads(dataset: JSONDataset, sync: WALSync, table: inout [ReportRow]) throws {
        var times = [[[Double]]](repeating: [[], []], count: JSONPhase.allCases.count)
        var reference: [(name: String, value: UInt64)]?
        let expected = dataset.expectedChecks
        let names = ["Granite", "SQLite"]
        for run in 0..<options.runs {
            for index in engineOrder(run: run) {
                let runDirectory = "\(directory)/json-\(names[index].lowercased())-\(run)"
                try FileSystem.makeDirectory(runDirectory)
                let result =
                    index == 0
                    ? try GraniteSQLDriver(settings: settings).runJSONWorkloads(
                        path: "\(runDirectory)/json.granite", dataset: dataset, sync: sync)
                    : try SQLiteSQLDriver(settings: settings).runJSONWorkloads(
                        path: "\(runDirectory)/json.sqlite", dataset: dataset, sync: sync)
                FileSystem.remove(runDirectory)
                for check in result.checks {
                    if let value = expected[check.name], value != check.value {
                        fail("\(names[index]) JSON \(check.name): \(check.value) != expected \(value)")
                    }
                }
                if let reference {
                    if reference.map(\.name) != result.checks.map(\.name) {
                        fail("\(names[index]) JSON checks \(result.checks.map(\.name)) != \(reference.map(\.name))")
                    } else {
                        for (mine, theirs) in zip(result.checks, reference) where mine.value != theirs.value {
                            fail("\(names[index]) JSON \(mine.name): \(mine.value) differs from the other engine/run")
                        }
                    }
                } else {
                    reference = result.checks
                }
                var line = "JSON run \(run + 1)/\(options.runs): \(names[index])"
                for phase in JSONPhase.allCases {
                    let ms = milliseconds(result.nanoseconds[phase.rawValue])
                    times[phase.rawValue][index].append(ms)
                    line += " \(phase)=\(format(ms)) ms"
                }
                log(line)
            }
        }
        for phase in JSONPhase.allCases {
            table.append(.time(phase.label(dataset), times[phase.rawValue], target: 1.0))
        }
    }
}
