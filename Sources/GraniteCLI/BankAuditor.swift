// What `granite torture --role reader` checks on each snapshot of the bank that
// `granite torture` writers build (see ``Bank``): a reader in another process
// must see one committed state at a time, never part of a transfer.

import GraniteStorage

/// Checks the bank's invariants on one read transaction after another.
///
/// On every snapshot: the accounts are exactly 1...N and their balances sum to N × 1000, the last transfer is
/// logged as row n of `transfers` (n = meta's counter) with nothing after it, and n never goes back from one
/// snapshot to the next. On every 16th snapshot also: `transfers` holds exactly n rows, and replaying them from
/// balances of 1000 gives every account's balance (so each transfer is matched by its two balance changes).
struct BankAuditor {
    let engine: StorageEngine
    let accounts: Int
    let accountsTable: TableTree
    let metaTable: TableTree
    let transfersTable: TableTree
    /// The transfer counter of the last snapshot checked (0 before the first).
    private(set) var lastTransfer: Int64 = 0
    /// Snapshots checked so far.
    private(set) var snapshots = 0

    /// How often (in snapshots) the transfers are counted and replayed: the replay reads the whole log.
    static let fullAuditInterval = 16

    init(engine: StorageEngine, accounts: Int) throws {
        self.engine = engine
        self.accounts = accounts
        let read = try engine.beginRead()
        defer { try? read.commit() }
        for name in ["accounts", "meta", "transfers"] where try read.treeInfo(named: name) == nil {
            throw CLIError("the database has no table '\(name)': not a bank that `granite torture` built")
        }
        accountsTable = try read.table(named: "accounts")
        metaTable = try read.table(named: "meta")
        transfersTable = try read.table(named: "transfers")
    }

    /// Checks one snapshot in its own read transaction; throws a ``CLIError`` naming the first violation.
    mutating func auditSnapshot() throws {
        let read = try engine.beginRead()
        defer { if read.isActive { try? read.commit() } }
        let transfer = try integers(metaTable, 1, count: 1)[0]
        guard transfer >= lastTransfer else {
            throw CLIError("invariant violated: transfer counter went back from \(lastTransfer) to \(transfer)")
        }
        let balances = try readBalances()
        let sum = balances.reduce(0, +)
        guard sum == Int64(accounts) * 1000 else {
            throw CLIError(
                "invariant violated: balances sum to \(sum), not \(accounts * 1000), at transfer \(transfer)")
        }
        let lastLogged = try transfersTable.lastRowid() ?? 0
        guard lastLogged == transfer else {
            throw CLIError(
                "invariant violated: the last logged transfer is \(lastLogged), the counter says \(transfer)")
        }
        if snapshots % Self.fullAuditInterval == 0 {
            try replayTransfers(upTo: transfer, against: balances)
        }
        try read.commit()
        lastTransfer = transfer
        snapshots += 1
    }

    /// The balances of accounts 1...N, in order; throws unless those are exactly the rows of `accounts`.
    private func readBalances() throws -> [Int64] {
        var balances: [Int64] = []
        balances.reserveCapacity(accounts)
        let cursor = try accountsTable.makeCursor()
        var more = try cursor.first()
        while more {
            guard cursor.rowid == Int64(balances.count + 1) else {
                throw CLIError("invariant violated: account \(balances.count + 1) is missing (next is \(cursor.rowid))")
            }
            balances.append(try decode(cursor.payload(), table: accountsTable, rowid: cursor.rowid, count: 1)[0])
            more = try cursor.next()
        }
        guard balances.count == accounts else {
            throw CLIError("invariant violated: \(balances.count) accounts, expected \(accounts)")
        }
        return balances
    }

    /// Checks that `transfers` holds rows 1...`transfer` and that applying them to balances of 1000 gives
    /// `balances`.
    private func replayTransfers(upTo transfer: Int64, against balances: [Int64]) throws {
        var replayed = [Int64](repeating: 1000, count: accounts)
        let cursor = try transfersTable.makeCursor()
        var expected: Int64 = 1
        var more = try cursor.first()
        while more {
            guard cursor.rowid == expected else {
                throw CLIError("invariant violated: transfer \(expected) is missing (next logged is \(cursor.rowid))")
            }
            let row = try decode(cursor.payload(), table: transfersTable, rowid: cursor.rowid, count: 3)
            let (from, to, amount) = (row[0], row[1], row[2])
            guard (1...Int64(accounts)).contains(from), (1...Int64(accounts)).contains(to), from != to, amount > 0
            else {
                throw CLIError("invariant violated: transfer \(expected) is \(row), not a transfer between accounts")
            }
            replayed[Int(from) - 1] -= amount
            replayed[Int(to) - 1] += amount
            expected += 1
            more = try cursor.next()
        }
        guard expected - 1 == transfer else {
            throw CLIError("invariant violated: \(expected - 1) transfers logged, the counter says \(transfer)")
        }
        if let account = replayed.indices.first(where: { replayed[$0] != balances[$0] }) {
            throw CLIError(
                "invariant violated: account \(account + 1) holds \(balances[account]), its \(transfer) transfers "
                    + "make \(replayed[account])")
        }
    }

    /// The `count` integers of row `rowid` of `table`.
    private func integers(_ table: TableTree, _ rowid: Int64, count: Int) throws -> [Int64] {
        guard let payload = try table.get(rowid: rowid) else {
            throw CLIError("invariant violated: \(table.name) row \(rowid) is missing")
        }
        return try decode(payload, table: table, rowid: rowid, count: count)
    }

    /// Decodes a row that must be `count` integers.
    private func decode(_ payload: [UInt8], table: TableTree, rowid: Int64, count: Int) throws -> [Int64] {
        let values = try RowDecoder.decode(payload)
        let integers = values.compactMap { value -> Int64? in
            if case .integer(let n) = value { return n }
            return nil
        }
        guard values.count == count, integers.count == count else {
            throw CLIError("invariant violated: \(table.name) row \(rowid) is not \(count) integer(s)")
        }
        return integers
    }
}
