// The deterministic data of `granite demo`: every player is a pure function of its number, so that the demo
// can compute what its queries must return without asking the database.

import Foundation
import GraniteStorage

/// The players of the demo database.
///
/// Player `n` (1...playerCount) gets id `n`: a name, one of the teams, a score in 0...999, 2 to 9
/// achievements (stored as JSON, 300 bytes and more, repetitive so that it compresses) and, for every 7th
/// player, an avatar of a few hundred bytes (every 500th: 20 KB, spilling to overflow pages).
enum DemoData {
    /// The number of players inserted.
    static let playerCount = 5_000
    /// The team the queries look at.
    static let featuredTeam = "Granite"
    /// The id the demo fetches, updates and checks.
    static let featuredID: Int64 = 42
    /// Players scoring below this are deleted at the end.
    static let deletionThreshold = 50

    private static let seed: UInt64 = 0x4752_414E_4954_4521  // "GRANITE!"

    static let teams = ["Basalt", "Granite", "Marble", "Obsidian", "Quartz"]

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

    /// The name of player `rowid`.
    static func name(_ rowid: Int64) -> String {
        var rng = generator(rowid, stream: 1)
        return pick(firstNames, &rng) + " " + pick(lastNames, &rng)
    }

    private static let titles = [
        "First win", "Perfect round", "Comeback", "Marathon", "Speed run", "Team player", "Collector",
        "Explorer", "Untouchable", "Veteran", "Sharpshooter", "Strategist",
    ]

    /// Player number `rowid`, not inserted yet (no id).
    static func player(_ rowid: Int64) -> Player {
        var rng = generator(rowid, stream: 2)
        let name = name(rowid)
        let team = pick(teams, &rng)
        let score = Int(rng.next(below: 1_000))
        var achievements: [Player.Achievement] = []
        for season in 1...(2 + Int(rng.next(below: 8))) {
            let title = pick(titles, &rng)
            let city = pick(cities, &rng)
            let interest = pick(interests, &rng)
            achievements.append(
                Player.Achievement(
                    title: title, season: season, points: 10 * (1 + Int(rng.next(below: 50))),
                    note:
                        "\(name) earned \(title) in \(city) during season \(season), between two games of \(interest)."
                ))
        }
        let avatar: Data?
        if rowid % 500 == 0 {
            avatar = Data(bytes(20_000, &rng))
        } else if rowid % 7 == 0 {
            avatar = Data(bytes(200 + Int(rng.next(below: 600)), &rng))
        } else {
            avatar = nil
        }
        return Player(id: nil, name: name, team: team, score: score, achievements: achievements, avatar: avatar)
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

}
