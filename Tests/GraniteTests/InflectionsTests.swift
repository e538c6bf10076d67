import Foundation
import Granite
import XCTest

/// Tests mutate copies of the default inflections, never the shared `Inflections.default`.
final class InflectionsTests: XCTestCase {
    private let english = Inflections.default

    // MARK: - English words

    func testPluralizeSingularWords() {
        for (singular, plural) in InflectionTestWords.singularToPlural {
            XCTAssertEqual(english.pluralize(singular), plural)
            XCTAssertEqual(english.pluralize(singular.capitalized), plural.capitalized)
            XCTAssertEqual(english.pluralize("prefixed" + singular.capitalized), "prefixed" + plural.capitalized)
            XCTAssertEqual(english.pluralize(singular + "123"), plural + "123")
        }
    }

    func testSingularizePluralWords() {
        for (singular, plural) in InflectionTestWords.singularToPlural {
            XCTAssertEqual(english.singularize(plural), singular)
            XCTAssertEqual(english.singularize(plural.capitalized), singular.capitalized)
            XCTAssertEqual(english.singularize("prefixed" + plural.capitalized), "prefixed" + singular.capitalized)
            XCTAssertEqual(english.singularize(plural + "123"), singular + "123")
        }
    }

    func testInflectionsAreIdempotent() {
        for (singular, plural) in InflectionTestWords.singularToPlural {
            XCTAssertEqual(english.pluralize(plural), plural)
            XCTAssertEqual(english.pluralize(plural.capitalized), plural.capitalized)
            XCTAssertEqual(english.pluralize("prefixed" + plural.capitalized), "prefixed" + plural.capitalized)
            XCTAssertEqual(english.pluralize(plural + "123"), plural + "123")

            XCTAssertEqual(english.singularize(singular), singular)
            XCTAssertEqual(english.singularize(singular.capitalized), singular.capitalized)
            XCTAssertEqual(
                english.singularize("prefixed" + singular.capitalized), "prefixed" + singular.capitalized)
            XCTAssertEqual(english.singularize(singular + "123"), singular + "123")
        }
    }

    func testIrregularSuffixes() {
        var inflections = english
        for (singular, plural) in InflectionTestWords.irregularities {
            inflections.irregularSuffix(singular, plural)
            XCTAssertEqual(inflections.singularize(plural), singular)
            XCTAssertEqual(inflections.pluralize(singular), plural)
            XCTAssertEqual(inflections.singularize(singular), singular)
            XCTAssertEqual(inflections.pluralize(plural), plural)

            let prefixedSingular = "prefixed" + singular.capitalized
            let prefixedPlural = "prefixed" + plural.capitalized
            XCTAssertEqual(inflections.singularize(prefixedPlural), prefixedSingular)
            XCTAssertEqual(inflections.pluralize(prefixedSingular), prefixedPlural)
            XCTAssertEqual(inflections.singularize(prefixedSingular), prefixedSingular)
            XCTAssertEqual(inflections.pluralize(prefixedPlural), prefixedPlural)

            XCTAssertEqual(inflections.singularize(plural + "123"), singular + "123")
            XCTAssertEqual(inflections.pluralize(singular + "123"), plural + "123")
        }
    }

    func testDefaultIrregularities() {
        XCTAssertEqual(english.pluralize("person"), "people")
        XCTAssertEqual(english.pluralize("salesperson"), "salespeople")
        XCTAssertEqual(english.singularize("People"), "Person")
        XCTAssertEqual(english.pluralize("woman"), "women")
        XCTAssertEqual(english.pluralize("foot"), "feet")
        XCTAssertEqual(english.singularize("leaves"), "leaf")
        XCTAssertEqual(english.pluralize("cow"), "cows", "the irregular cow/kine is not a default rule")
    }

    // MARK: - Last word and digits

    func testOnlyTheLastWordIsInflected() {
        // Templates are not case-converted: "PLAYER" gets a lowercase "s", as in GRDB.
        let cases: [(String, String)] = [
            ("", ""),
            ("player", "players"), ("Player", "Players"), ("PLAYER", "PLAYERs"),
            (" player", " players"), ("_player", "_players"),
            ("player score", "player scores"), ("Player Score", "Player Scores"),
            ("PLAYER SCORE", "PLAYER SCOREs"),
            ("player_score", "player_scores"), ("PLAYER_SCORE", "PLAYER_SCOREs"),
            ("playerScore", "playerScores"), ("PlayerScore", "PlayerScores"),
            ("best player box", "best player boxes"), ("best_player_box", "best_player_boxes"),
            ("bestPlayerBox", "bestPlayerBoxes"),
            ("player1", "players1"), ("player_score12", "player_scores12"), ("playerScore1", "playerScores1"),
            ("player_1", "player_1"),
        ]
        for (word, plural) in cases {
            XCTAssertEqual(english.pluralize(word), plural, "pluralize(\(String(reflecting: word)))")
        }
        XCTAssertEqual(english.singularize("player_scores12"), "player_score12")
        XCTAssertEqual(english.singularize("bestPlayerBoxes"), "bestPlayerBox")
        XCTAssertEqual(english.pluralize("plurals"), "plurals")
        XCTAssertEqual(english.pluralize("Plurals"), "Plurals")
    }

    // MARK: - Uncountable words

    func testDefaultUncountableWords() {
        let words = [
            "advice", "corps", "dice", "equipment", "fish", "information", "jeans", "kudos", "money", "offspring",
            "police", "rice", "sheep", "species",
        ]
        for word in words {
            for spelling in [word, word.capitalized, word.uppercased(), "blue_" + word] {
                XCTAssertEqual(english.pluralize(spelling), spelling)
                XCTAssertEqual(english.singularize(spelling), spelling)
            }
        }
    }

    func testAddedUncountableWords() {
        var inflections = english
        inflections.uncountableWords(["HTTP", "猫", "ors"])
        for word in ["HTTP", "http", "猫", "ors"] {
            XCTAssertEqual(inflections.pluralize(word), word)
            XCTAssertEqual(inflections.singularize(word), word)
        }
        XCTAssertEqual(english.pluralize("HTTP"), "HTTPs", "the default inflections are not modified")
        // An uncountable word matches whole words only.
        XCTAssertEqual(inflections.singularize("sponsor"), "sponsor")
        XCTAssertEqual(inflections.pluralize("sponsor"), "sponsors")
        XCTAssertEqual(inflections.singularize("sponsors"), "sponsor")
    }

    // MARK: - Custom rules

    func testCustomRules() {
        var inflections = Inflections()
        XCTAssertEqual(inflections.pluralize("player"), "player", "no rule, no change")

        inflections.plural("$", "s")
        inflections.singular("s$", "")
        XCTAssertEqual(inflections.pluralize("player"), "players")
        XCTAssertEqual(inflections.singularize("players"), "player")
        XCTAssertEqual(inflections.pluralize("PLAYER"), "PLAYERs")

        // The last added rule that matches wins.
        inflections.plural("(x)$", "$1en")
        XCTAssertEqual(inflections.pluralize("box"), "boxen")
        XCTAssertEqual(inflections.pluralize("cat"), "cats")

        // Case-sensitive rules.
        inflections.plural("^Q$", options: [], "Qs!")
        XCTAssertEqual(inflections.pluralize("Q"), "Qs!")
        XCTAssertEqual(inflections.pluralize("q"), "qs")

        inflections.irregularSuffix("mouse", "mice")
        XCTAssertEqual(inflections.pluralize("mouse"), "mice")
        XCTAssertEqual(inflections.pluralize("Mouse"), "Mice")
        XCTAssertEqual(inflections.singularize("dormice"), "dormouse")
    }

    func testDefaultCanBeCustomized() {
        let original = Inflections.default
        defer { Inflections.default = original }
        Inflections.default.irregularSuffix("cow", "kine")
        XCTAssertEqual(Inflections.default.pluralize("cow"), "kine")
        Inflections.default = original
        XCTAssertEqual(Inflections.default.pluralize("cow"), "cows")
    }
}
