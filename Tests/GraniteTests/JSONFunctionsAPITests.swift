import Granite
import XCTest

/// GRDB's JSON API (`JSONColumn`, `asJSON`, the `Database.json…` functions): the SQL it writes, as GRDB writes it,
/// and what that SQL computes.
final class JSONFunctionsAPITests: XCTestCase {
    private struct Player: Codable, FetchableRecord, PersistableRecord {
        struct Address: Codable, Equatable {
            var city: String
            var country: String
        }
        var id: Int64
        var name: String
        var address: Address
        var tags: [String]

        enum Columns {
            static let address = JSONColumn(CodingKeys.address)
            static let tags = JSONColumn("tags")
        }
    }

    private func makeDatabase() throws -> DatabaseQueue {
        let dbQueue = try DatabaseQueue()
        try dbQueue.write { db in
            try db.create(table: "player") { t in
                t.primaryKey("id", .integer)
                t.column("name", .text)
                t.column("address", .jsonText)
                t.column("tags", .jsonText)
            }
            try Player(id: 1, name: "Ada", address: .init(city: "Paris", country: "FR"), tags: ["a", "b"]).insert(db)
            try Player(id: 2, name: "Bo", address: .init(city: "Lyon", country: "FR"), tags: []).insert(db)
            try Player(id: 3, name: "Cy", address: .init(city: "Oslo", country: "NO"), tags: ["c"]).insert(db)
        }
        return dbQueue
    }

    /// The SQL of `expression` (values become `?` arguments, as GRDB writes them).
    private func sql(_ db: Database, _ expression: some SQLExpressible) throws -> String {
        try SQL("\(expression)").build(db).sql
    }

    func testColumnsAndOperators() throws {
        try makeDatabase().read { db in
            let address = Player.Columns.address
            XCTAssertEqual(try sql(db, address["city"]), #""address" ->> ?"#)
            XCTAssertEqual(try SQL("\(address["city"])").build(db).arguments, ["city"])
            XCTAssertEqual(try sql(db, address.jsonRepresentation(atPath: "$.city")), #""address" -> ?"#)
            XCTAssertEqual(try sql(db, address.jsonExtract(atPath: "$.city")), #"JSON_EXTRACT("address", ?)"#)
            XCTAssertEqual(
                try sql(db, address.jsonExtract(atPaths: ["$.city", "$.country"])),
                #"JSON_EXTRACT("address", ?, ?)"#)
            XCTAssertEqual(try sql(db, Column("info").asJSON["a"]), #""info" ->> ?"#)

            let french = try Player.filter(address["country"] == "FR").order(Column("id")).fetchAll(db)
            XCTAssertEqual(french.map(\.name), ["Ada", "Bo"])
            XCTAssertEqual(
                try String.fetchAll(db, Player.select(address.jsonRepresentation(atPath: "city")).order(Column("id"))),
                [#""Paris""#, #""Lyon""#, #""Oslo""#])
            XCTAssertEqual(
                try String.fetchOne(db, Player.select(address.jsonExtract(atPaths: ["$.city", "$.country"])).limit(1)),
                #"["Paris","FR"]"#)
        }
    }

    func testJSONIsEmbeddedWhereJSONIsBuilt() throws {
        try makeDatabase().read { db in
            let tags = Player.Columns.tags
            // A JSON column is embedded as JSON; a plain column holding the same text is quoted.
            XCTAssertEqual(try sql(db, Database.jsonArray([tags])), #"JSON_ARRAY(JSON("tags"))"#)
            XCTAssertEqual(try sql(db, Database.jsonArray([Column("tags")])), #"JSON_ARRAY("tags")"#)
            // A value that already is JSON is not wrapped again.
            XCTAssertEqual(
                try sql(db, Database.jsonArray([tags.jsonRepresentation(atPath: "$[0]")])),
                #"JSON_ARRAY("tags" -> ?)"#)
            let elements: [(key: String, value: any SQLExpressible)] = [("name", Column("name")), ("tags", tags)]
            let object = Database.jsonObject(elements)
            XCTAssertEqual(try sql(db, object), #"JSON_OBJECT(?, "name", ?, JSON("tags"))"#)
            XCTAssertEqual(
                try String.fetchOne(db, Player.select(object).filter(key: 1)), #"{"name":"Ada","tags":["a","b"]}"#)
            XCTAssertEqual(
                try String.fetchOne(db, Player.select(Database.jsonArray([Column("tags")])).filter(key: 1)),
                #"["[\"a\",\"b\"]"]"#)
        }
    }

    func testFunctions() throws {
        try makeDatabase().write { db in
            let address = Player.Columns.address
            let tags = Player.Columns.tags
            XCTAssertEqual(try Int.fetchOne(db, Player.select(Database.jsonArrayLength(tags)).filter(key: 1)), 2)
            XCTAssertEqual(
                try Int.fetchOne(db, Player.select(Database.jsonArrayLength(address, atPath: "$.city")).filter(key: 1)),
                0)
            XCTAssertEqual(try String.fetchOne(db, Player.select(Database.jsonType(address)).filter(key: 1)), "object")
            XCTAssertEqual(
                try String.fetchOne(db, Player.select(Database.jsonType(address, atPath: "$.zip")).filter(key: 1)),
                nil)
            XCTAssertEqual(try Bool.fetchOne(db, Player.select(Database.jsonIsValid(Column("name"))).limit(1)), false)
            XCTAssertEqual(try String.fetchOne(db, Player.select(Database.jsonQuote(Column("name"))).limit(1)), #""Ada""#)
            XCTAssertEqual(try String.fetchOne(db, Player.select(Database.json(" [1, 2] ")).limit(1)), "[1,2]")

            try Player.filter(key: 1).updateAll(
                db,
                address.set(to: Database.jsonSet(address, [(key: "$.zip", value: "75001")])),
                tags.set(to: Database.jsonInsert(tags, [(key: "$[#]", value: "z")])))
            try Player.filter(key: 2).updateAll(
                db, address.set(to: Database.jsonPatch(address, with: #"{"country": null, "city": "Nice"}"#)))
            try Player.filter(key: 3).updateAll(
                db, address.set(to: Database.jsonRemove(address, atPaths: ["$.country"])),
                tags.set(to: Database.jsonReplace(tags, [(key: "$[0]", value: "d")])))
            XCTAssertEqual(
                try String.fetchAll(db, Player.select(address).order(Column("id"))),
                [#"{"city":"Paris","country":"FR","zip":"75001"}"#, #"{"city":"Nice"}"#, #"{"city":"Oslo"}"#])
            XCTAssertEqual(
                try String.fetchAll(db, Player.select(tags).order(Column("id"))), [#"["a","b","z"]"#, "[]", #"["d"]"#])
            try Player.filter(key: 1).updateAll(db, address.set(to: Database.jsonRemove(address, atPath: "$.zip")))
            XCTAssertEqual(try String.fetchOne(db, Player.select(address).filter(key: 1)), #"{"city":"Paris","country":"FR"}"#)
        }
    }

    func testAggregates() throws {
        try makeDatabase().read { db in
            let names = Database.jsonGroupArray(Column("name"), filter: Column("id") > 1)
            XCTAssertEqual(try sql(db, names), #"JSON_GROUP_ARRAY("name") FILTER (WHERE "id" > ?)"#)
            XCTAssertEqual(try String.fetchOne(db, Player.select(names)), #"["Bo","Cy"]"#)
            let byName = Database.jsonGroupObject(key: Column("name"), value: Player.Columns.tags)
            XCTAssertEqual(try sql(db, byName), #"JSON_GROUP_OBJECT("name", JSON("tags"))"#)
            XCTAssertEqual(try String.fetchOne(db, Player.select(byName)), #"{"Ada":["a","b"],"Bo":[],"Cy":["c"]}"#)
            // The aggregate is JSON: embedded as JSON where JSON is built.
            let nested = Database.jsonObject([(key: "all", value: Database.jsonGroupArray(Player.Columns.tags))])
            XCTAssertEqual(try String.fetchOne(db, Player.select(nested)), #"{"all":[["a","b"],[],["c"]]}"#)
        }
    }
}
