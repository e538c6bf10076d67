import CSQLiteOracle
import Foundation
import GraniteSQL
import GraniteStorage
import XCTest

extension PreparedStatement {
    /// Runs the statement afresh with `operand` bound to its one parameter: the values of its first row (none when
    /// it has no row), or its error message; the counterpart of ``Oracle/row(_:_:)``.
    func firstRow(binding operand: Value) throws -> [Outcome] {
        reset()
        defer { reset() }
        try bind(operand, at: 1)
        do {
            guard try stepRow() else { return [] }
            return (0..<columnCount).map { .value(column(at: $0)) }
        } catch {
            return [.error(graniteMessage(error))]
        }
    }
}

/// The outcome of evaluating something: a value or an error message.
enum Outcome: Equatable, CustomStringConvertible {
    case value(Value)
    case error(String)

    var description: String {
        switch self {
        case .value(let v): return "\(v.type) \(v)"
        case .error(let m): return "error(\(m))"
        }
    }

    static func == (a: Outcome, b: Outcome) -> Bool {
        switch (a, b) {
        case (.value(let x), .value(let y)): return x.type == y.type && x == y
        case (.error(let x), .error(let y)): return x == y
        default: return false
        }
    }

    init(_ body: () throws -> Value) {
        do { self = .value(try body()) } catch let e as SQLEvaluationError { self = .error(e.message) } catch {
            self = .error("\(error)")
        }
    }
}

/// An in-memory SQLite database used as the reference implementation.
final class Oracle {
    var db: OpaquePointer?
    var statements: [String: OpaquePointer] = [:]
    private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init() {
        sqlite3_open(":memory:", &db)
    }

    deinit {
        for (_, s) in statements { sqlite3_finalize(s) }
        sqlite3_close(db)
    }

    /// Switches SQLite's query-planner optimizations off or back on (see `granite_oracle_disable_optimizations`).
    func setOptimizations(enabled: Bool) {
        _ = granite_oracle_disable_optimizations(db, enabled ? 0 : 0xFFFF_FFFF)
    }

    func execute(_ sql: String) {
        let rc = sqlite3_exec(db, sql, nil, nil, nil)
        precondition(rc == SQLITE_OK, "\(sql): \(String(cString: sqlite3_errmsg(db)))")
    }

    private func statement(_ sql: String) -> OpaquePointer {
        if let s = statements[sql] { return s }
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v2(db, sql, -1, &stmt, nil)
        precondition(rc == SQLITE_OK, "\(sql): \(String(cString: sqlite3_errmsg(db)))")
        statements[sql] = stmt!
        return stmt!
    }

    func bind(_ stmt: OpaquePointer, _ index: Int32, _ v: Value) {
        switch v {
        case .null: sqlite3_bind_null(stmt, index)
        case .integer(let i): sqlite3_bind_int64(stmt, index, i)
        case .real(let r): sqlite3_bind_double(stmt, index, r)
        case .text, .invalidUTF8Text:
            let bytes = (v.textUTF8 ?? []) + [0]
            bytes.withUnsafeBytes { p in
                _ = sqlite3_bind_text(
                    stmt, index, p.baseAddress!.assumingMemoryBound(to: CChar.self), Int32(bytes.count - 1), transient)
            }
        case .blob(let b):
            if b.isEmpty {
                sqlite3_bind_zeroblob(stmt, index, 0)
            } else {
                b.withUnsafeBytes { p in _ = sqlite3_bind_blob(stmt, index, p.baseAddress, Int32(b.count), transient) }
            }
        }
    }

    func column(_ stmt: OpaquePointer, _ i: Int32) -> Value {
        switch sqlite3_column_type(stmt, i) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(stmt, i))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(stmt, i))
        case SQLITE_TEXT:
            let n = Int(sqlite3_column_bytes(stmt, i))
            guard let p = sqlite3_column_text(stmt, i) else { return .text("") }
            return .text(utf8: Array(UnsafeBufferPointer(start: p, count: n)))
        case SQLITE_BLOB:
            let n = Int(sqlite3_column_bytes(stmt, i))
            guard n > 0, let p = sqlite3_column_blob(stmt, i) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: p, count: n)))
        default: return .null
        }
    }

    /// Runs `sql` with `args` bound and returns the first row (all columns), or an error.
    func row(_ sql: String, _ args: [Value]) -> [Outcome] {
        let stmt = statement(sql)
        sqlite3_reset(stmt)
        sqlite3_clear_bindings(stmt)
        for (k, a) in args.enumerated() { bind(stmt, Int32(k + 1), a) }
        let rc = sqlite3_step(stmt)
        let n = Int(sqlite3_column_count(stmt))
        if rc == SQLITE_ROW {
            let out = (0..<n).map { Outcome.value(column(stmt, Int32($0))) }
            sqlite3_reset(stmt)
            return out
        }
        if rc == SQLITE_DONE { return [] }
        let message = String(cString: sqlite3_errmsg(db))
        sqlite3_reset(stmt)
        return Array(repeating: .error(message), count: max(n, 1))
    }

    func run(_ sql: String, _ args: [Value]) {
        let stmt = statement(sql)
        sqlite3_reset(stmt)
        sqlite3_clear_bindings(stmt)
        for (k, a) in args.enumerated() { bind(stmt, Int32(k + 1), a) }
        let rc = sqlite3_step(stmt)
        precondition(rc == SQLITE_DONE || rc == SQLITE_ROW, String(cString: sqlite3_errmsg(db)))
        sqlite3_reset(stmt)
    }
}

/// Collects mismatches and reports them with the seed.
final class Checker {
    let seed: UInt64
    let name: String
    var checks = 0
    var failures: [String] = []

    init(_ name: String, seed: UInt64) {
        self.name = name
        self.seed = seed
    }

    func check(_ expected: Outcome, _ actual: Outcome, _ what: @autoclosure () -> String) {
        checks += 1
        if expected != actual && failures.count < 25 {
            failures.append("\(what()): sqlite=\(expected) granite=\(actual)")
        }
    }

    func finish(file: StaticString = #filePath, line: UInt = #line) {
        if !failures.isEmpty {
            XCTFail(
                "\(name): \(failures.count)+ mismatches (GRANITE_SEED=\(seed))\n" + failures.joined(separator: "\n"),
                file: file, line: line)
        }
        print("\(name): \(checks) checks (seed \(seed))")
    }
}

/// Random SQL values biased towards edge cases.
struct ValueSource {
    var rng: SplitMix64

    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    mutating func int(_ r: ClosedRange<Int>) -> Int { Int.random(in: r, using: &rng) }
    mutating func bool() -> Bool { Bool.random(using: &rng) }
    mutating func pick<T>(_ xs: [T]) -> T { xs[int(0...(xs.count - 1))] }

    static let edgeIntegers: [Int64] = [
        0, 1, -1, 2, -2, 3, 7, 10, -10, 100, 255, 4096, Int64.max, Int64.min, Int64.max - 1, Int64.min + 1,
        2_147_483_647, -2_147_483_648, 4_294_967_296, 9_007_199_254_740_992, -9_007_199_254_740_993, 63, 64, 65,
        -63, -64, -65, 3_037_000_500, 1_000_000_000_000,
    ]

    static let edgeReals: [Double] = [
        0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 0.1, 0.2, 0.3, 1e15, 1e16, 1e14, 123456789012345.6, 1e-5,
        1e-4, 1e100, -1e100, 1e300, -1e300, 1.7976931348623157e308, Double.leastNonzeroMagnitude,
        2.2250738585072014e-308,
        9.223372036854775807e18, -9.223372036854775808e18, 4503599627370496.0, 4503599627370497.0, 3.0, -3.0,
        100.0, 1e20, 0.30000000000000004, 2.675, 1.005, -8.03865180071594e-283, 3.14159, -7.25, 1.0 / 3.0, 2.0 / 3.0,
        1e22, 1e23,
    ]

    static let numericTexts: [String] = [
        "12", " 12 ", "12abc", "abc", "", "1e3", "1.5", "-0", "+7", "0x10", "9223372036854775807",
        "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "1e500", "-1e500", ".5", "5.", "e5",
        "1e", "1.e5", "  -3.25e-2  ", "00012", "1 2", "0.0", "-0.0", "3.0", "1e15", "123456789012345678901234567890",
        "\t7\n", "+", "-", ".", "1.5e+3x", "2e-2", "0000000000000000000009", "99999999999999999999",
    ]

    mutating func asciiText(maxLength: Int = 8, alphabet: [Character]? = nil) -> String {
        let chars: [Character] = alphabet ?? Array("abcABC xyz_%12.-'é日")
        var s = ""
        for _ in 0..<int(0...maxLength) { s.append(pick(chars)) }
        return s
    }

    mutating func integer() -> Int64 {
        switch int(0...3) {
        case 0: return pick(Self.edgeIntegers)
        case 1: return Int64(int(-100...100))
        case 2: return Int64.random(in: Int64.min...Int64.max, using: &rng)
        default: return Int64.random(in: -1_000_000...1_000_000, using: &rng)
        }
    }

    mutating func real() -> Double {
        switch int(0...4) {
        case 0: return pick(Self.edgeReals)
        case 1:
            let d = Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &rng))
            return d.isFinite ? d : 1.25
        case 2: return Double(int(-100_000...100_000)) / pow10(int(0...6))
        case 3: return Double.random(in: -1000...1000, using: &rng)
        default: return Double(integer())
        }
    }

    func pow10(_ n: Int) -> Double {
        var r = 1.0
        for _ in 0..<n { r *= 10 }
        return r
    }

    mutating func text() -> String {
        switch int(0...2) {
        case 0: return pick(Self.numericTexts)
        case 1: return asciiText()
        default: return String(integer())
        }
    }

    mutating func blob() -> [UInt8] {
        if bool() { return Array(pick(Self.numericTexts).utf8) }
        return (0..<int(0...6)).map { _ in UInt8(int(0x20...0x7e)) }
    }

    mutating func value() -> Value {
        switch int(0...9) {
        case 0: return .null
        case 1, 2, 3: return .integer(integer())
        case 4, 5: return .real(real())
        case 6, 7, 8: return .text(text())
        default: return .blob(blob())
        }
    }
}

extension Oracle {
    /// SQLite and a Granite connection on an in-memory database, each after running `schema`.
    static func enginesHolding(_ schema: [String]) throws -> (Oracle, SQLConnection) {
        let oracle = Oracle()
        let db = try SQLConnection(engine: try StorageEngine.inMemory())
        for sql in schema {
            oracle.execute(sql)
            try db.execute(sql)
        }
        return (oracle, db)
    }
}
