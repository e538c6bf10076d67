import GraniteStorage
import XCTest

@testable import GraniteSQL

/// Every ordering of short texts under each built-in collation, against SQLite: the bytes around spaces, tabs,
/// control characters and case are where the collations differ.
final class CollationDifferentialTests: XCTestCase {
    func testEveryPairOfShortTextsComparesAsInSQLite() {
        let alphabet = ["a", "A", " ", "\t", "\u{1}", "b"]
        var texts = [""]
        var frontier = [""]
        for _ in 0..<3 {
            frontier = frontier.flatMap { prefix in alphabet.map { prefix + $0 } }
            texts += frontier
        }
        let oracle = Oracle()
        let checker = Checker("collations", seed: 0)
        let collations: [(String, SQLCollation)] = [("BINARY", .binary), ("NOCASE", .nocase), ("RTRIM", .rtrim)]
        let select =
            "SELECT "
            + collations.map { "(?1 > ?2 COLLATE \($0.0)) - (?1 < ?2 COLLATE \($0.0))" }
            .joined(separator: ", ")
        for a in texts {
            for b in texts {
                let row = oracle.row(select, [.text(a), .text(b)])
                for (k, collation) in collations.enumerated() {
                    let order = Int64(collation.1.compare(a, b))
                    checker.check(
                        row[k], .value(.integer(order)), "\(a.debugDescription) vs \(b.debugDescription) \(collation.0)"
                    )
                }
            }
        }
        checker.finish()
    }

    /// Texts equal under a collation have equal key forms, and only they: what an index stores agrees with how
    /// the collation compares.
    func testKeyFormsAgreeWithComparisons() {
        let texts = ["", " ", "a", "a ", "a  ", "A", "a\t", "a\t ", " a", "b", "B "]
        for collation in [SQLCollation.binary, .nocase, .rtrim] {
            for a in texts {
                for b in texts {
                    let equalKeys = collation.keyForm(.text(a)) == collation.keyForm(.text(b))
                    XCTAssertEqual(
                        equalKeys, collation.compare(a, b) == 0,
                        "\(collation) \(a.debugDescription) \(b.debugDescription)")
                    if case .text(let x) = collation.keyForm(.text(a)), case .text(let y) = collation.keyForm(.text(b))
                    {
                        XCTAssertEqual(
                            SQLCollation.binary.compare(x, y).signum(), collation.compare(a, b).signum(),
                            "\(collation) order of key forms \(a.debugDescription) \(b.debugDescription)")
                    }
                }
            }
        }
    }
}
