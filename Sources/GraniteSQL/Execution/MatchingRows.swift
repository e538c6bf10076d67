import GraniteStorage

/// The rows an UPDATE or DELETE matched (evaluation layout, rowid last): the row of a rowid lookup, held without
/// an enclosing array, or the rows a search found, in rowid order.
enum MatchingRows {
    /// The row a rowid lookup found, or nil.
    case one([Value]?)
    /// The rows a search found, in rowid order.
    case list([[Value]])

    /// The number of rows.
    var count: Int {
        switch self {
        case .one(let row): row == nil ? 0 : 1
        case .list(let rows): rows.count
        }
    }

    /// Calls `body` with each row and its position.
    func forEach(_ body: (Int, [Value]) throws -> Void) rethrows {
        switch self {
        case .one(let row):
            if let row { try body(0, row) }
        case .list(let rows):
            for (position, row) in rows.enumerated() { try body(position, row) }
        }
    }
}
