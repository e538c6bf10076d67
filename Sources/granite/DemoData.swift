// The deterministic data of `granite demo`: every row is a pure function of its rowid,
// so a reader can regenerate what it expects to find without keeping the rows.

import GraniteStorage

/// The `people` rows of the demo database.
///
/// Columns: name TEXT, age INTEGER, score REAL, email TEXT or NULL, bio TEXT
/// (JSON-like, 300–600 bytes, repetitive so that it compresses), photo BLOB or
/// NULL (every 7th row a few hundred bytes, every 500th row 20 KB so that the
/// row spills to overflow pages).
enum DemoData {
    /// The number of rows, with rowids 1...rowCount.
    static let rowCount = 5_000
    /// The number of point lookups made by the demo.
    static let lookupCount = 1_000
    /// The name prefix of the demo's index range scan.
    static let rangePrefix = "Ma"
    /// The column names, for display.
    static let columnNames = ["name", "age", "score", "email", "bio", "photo"]

    private static let seed: UInt64 = 0x4752_414E_4954_4521  // "GRANITE!"

    private static let firstNames = [
        "Ada", "Alan", "Barbara", "Brian", "Claude", "Dennis", "Donald", "Edsger", "Frances", "Grace",
        "Guido", "Hedy", "Ivan", "James", "John", "Ken", "Leslie", "Linus", "Margaret", "Mary",
        "Martin", "Mark", "Niklaus", "Radia", "Richard", "Robin", "Shafi", "Sophie", "Tim", "Whitfield",
        "Yukihiro", "Marvin", "Maurice", "Katherine", "Jean", "Dorothy", "Evelyn", "Karen", "Manuel", "Lynn",
    ]
    private static let lastNames = [
        "Lovelace", "Turing", "Liskov", "Kernighan", "Shannon", "Ritchie", "Knuth", "Dijkstra", "Allen",
        "Hopper", "van Rossum", "Lamarr", "Sutherland", "Gosling", "McCarthy", "Thompson", "Lamport",
        "Torvalds", "Hamilton", "Keller", "Fowler", "Dean", "Wirth", "Perlman", "Stallman", "Milner",
        "Goldwasser", "Wilson", "Berners-Lee", "Diffie", "Matsumoto", "Minsky", "Wilkes", "Johnson",
        "Sammet", "Vaughan", "Boyd", "Jones", "Blum", "Conway",
    ]
    private static let cities = [
        "Lisbon", "Kyoto", "Montreal", "Nairobi", "Oslo", "Lima", "Seoul", "Dublin", "Perth", "Zurich",
    ]
    private static let interests = [
        "hiking", "chess", "compilers", "databases", "gardening", "cycling", "origami", "jazz",
        "astronomy", "sailing", "pottery", "running", "baking", "photography", "typography",
    ]

    private static func generator(_ rowid: Int64, stream: UInt64) -> SplitMix64 {
        SplitMix64(seed: seed ^ (UInt64(bitPattern: rowid) &* 0x9E37_79B9_7F4A_7C15) ^ stream)
    }

    private static func pick<T>(_ list: [T], _ rng: inout SplitMix64) -> T {
        list[Int(rng.next(below: UInt64(list.count)))]
    }

    /// The name of row `rowid` (also the first column of ``row(_:)``).
    static func name(_ rowid: Int64) -> String {
        var rng = generator(rowid, stream: 1)
        return pick(firstNames, &rng) + " " + pick(lastNames, &rng)
    }

    /// The values of row `rowid`.
    static func row(_ rowid: Int64) -> [Value] {
        var rng = generator(rowid, stream: 2)
        let name = name(rowid)
        let first = String(name.prefix { $0 != " " })
        let age = Int64(18 + rng.next(below: 73))
        let score = Double(rng.next(below: 100_000)) / 100
        let email: Value =
            rng.next(below: 5) == 0
            ? .null
            : .text(name.lowercased().replacingSpaces(with: ".") + "\(rowid)@example.com")
        let city = pick(cities, &rng)
        var chosen: [String] = []
        for _ in 0..<(2 + rng.next(below: 4)) { chosen.append(pick(interests, &rng)) }
        let target = 300 + Int(rng.next(below: 301))
        var bio = "{\"id\":\(rowid),\"name\":\"\(name)\",\"city\":\"\(city)\",\"age\":\(age),"
        bio += "\"interests\":[" + chosen.map { "\"\($0)\"" }.joined(separator: ",") + "],\"about\":\""
        var sentence = 0
        while bio.utf8.count < target - 2 {
            let interest = chosen[sentence % chosen.count]
            bio += "\(first) lives in \(city) and enjoys \(interest). "
            sentence += 1
        }
        bio = String(decoding: bio.utf8.prefix(target - 2), as: UTF8.self) + "\"}"
        let photo: Value
        if rowid % 500 == 0 {
            photo = .blob(bytes(20_000, &rng))
        } else if rowid % 7 == 0 {
            photo = .blob(bytes(200 + Int(rng.next(below: 600)), &rng))
        } else {
            photo = .null
        }
        return [.text(name), .integer(age), .real(score), email, .text(bio), photo]
    }

    private static func bytes(_ count: Int, _ rng: inout SplitMix64) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(count + 8)
        while result.count < count {
            let word = rng.next()
            for shift in stride(from: 0, to: 64, by: 8) { result.append(UInt8(truncatingIfNeeded: word >> shift)) }
        }
        return Array(result.prefix(count))
    }

    /// The rowids of the demo's point lookups.
    static func lookupRowids() -> [Int64] {
        var rng = SplitMix64(seed: seed ^ 0x4C4F_4F4B)
        return (0..<lookupCount).map { _ in Int64(1 + rng.next(below: UInt64(rowCount))) }
    }
}

extension String {
    /// The string with every space replaced by `replacement`.
    func replacingSpaces(with replacement: String) -> String {
        split(separator: " ", omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
