import Granite
import GraniteSQL
import GraniteStorage

// Every name below is written unqualified: each must resolve to exactly one public declaration across the three
// modules (Granite's, for the GRDB-style names).

func grdbStyle(
    statement: Statement,
    expression: SQLExpression,
    table: TableDefinition,
    column: ColumnDefinition,
    durability: Durability
) {
    _ = (statement, expression, table, column, durability)
}

func sqlLayer(connection: SQLConnection, engine: StorageEngine) throws -> PreparedStatement {
    _ = engine
    return try connection.prepare("SELECT 1")
}


let score = Column("score")
let players = Table<Row>("player")
let durability: Durability = .full
print(score.name, players.tableName, durability)
