import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Errors raised by the benchmark harness itself (not by the engines).
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Monotonic wall clock, read with `clock_gettime(CLOCK_MONOTONIC)`.
enum MonotonicClock {
    @inline(__always)
    static func nanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
}

/// SplitMix64: tiny, fast, seedable, and identical on every platform and
/// Swift version (unlike the standard library's shuffling algorithms).
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    @inline(__always)
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return SplitMix64.mix(state)
    }

    /// Uniform value in `0..<bound` (Lemire's multiply-shift; the bias is
    /// irrelevant for benchmark key generation).
    @inline(__always)
    mutating func next(below bound: UInt64) -> UInt64 {
        next().multipliedFullWidth(by: bound).high
    }

    @inline(__always)
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z &>> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z &>> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z &>> 31)
    }
}

/// All payloads, generated once before any timing: payload of rowid `r`
/// (1-based) is the `payloadSize` bytes at offset `(r - 1) * payloadSize`.
/// Slicing it never allocates, so timed loops do no per-row allocation.
final class PayloadSet {
    let rows: Int
    let payloadSize: Int
    private let storage: UnsafeMutableRawBufferPointer

    init(rows: Int, payloadSize: Int, seed: UInt64) {
        self.rows = rows
        self.payloadSize = payloadSize
        let byteCount = rows * payloadSize
        storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(byteCount, 8), alignment: 16)
        var rng = SplitMix64(seed: seed)
        var offset = 0
        while offset + 8 <= byteCount {
            storage.storeBytes(of: rng.next(), toByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        while offset < byteCount {
            storage[offset] = UInt8(truncatingIfNeeded: rng.next())
            offset += 1
        }
    }

    deinit { storage.deallocate() }

    @inline(__always)
    func payload(for rowid: Int64) -> UnsafeRawBufferPointer {
        let start = Int(rowid - 1) * payloadSize
        return UnsafeRawBufferPointer(rebasing: storage[start..<start + payloadSize])
    }

    /// Checksum a correct full scan of rows `1...rows` must produce.
    func expectedChecksum(rows: Int) -> UInt64 {
        precondition(rows <= self.rows)
        var sum: UInt64 = 0
        for rowid in 1...Int64(rows) {
            sum &+= rowDigest(rowid: rowid, payload: payload(for: rowid))
        }
        return sum
    }
}

/// Digest of one row: reads every payload byte (so no engine can skip the
/// payload) and binds it to the rowid. Row digests are summed with `&+`.
@inline(__always)
func rowDigest(rowid: Int64, payload: UnsafeRawBufferPointer) -> UInt64 {
    let count = payload.count
    var sum = UInt64(truncatingIfNeeded: count)
    if let base = payload.baseAddress {
        var i = 0
        while i + 8 <= count {
            sum &+= base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            i += 8
        }
        while i < count {
            sum &+= UInt64(base.load(fromByteOffset: i, as: UInt8.self)) &<< UInt64((i & 7) &* 8)
            i += 1
        }
    }
    return SplitMix64.mix(sum ^ (UInt64(bitPattern: rowid) &* 0x9E37_79B9_7F4A_7C15))
}

/// Rowids in insertion order.
func ascendingOrder(rows: Int) -> [Int64] {
    Array(1...Int64(rows))
}

/// Seeded Fisher–Yates shuffle of `1...rows`.
func shuffledOrder(rows: Int, seed: UInt64) -> [Int64] {
    var order = ascendingOrder(rows: rows)
    var rng = SplitMix64(seed: seed)
    var i = order.count - 1
    while i > 0 {
        let j = Int(rng.next(below: UInt64(i + 1)))
        order.swapAt(i, j)
        i -= 1
    }
    return order
}

/// `count` uniformly random existing rowids in `1...rows` (with replacement).
func lookupKeys(count: Int, rows: Int, seed: UInt64) -> [Int64] {
    var rng = SplitMix64(seed: seed)
    var keys = [Int64]()
    keys.reserveCapacity(count)
    for _ in 0..<count {
        keys.append(Int64(rng.next(below: UInt64(rows))) + 1)
    }
    return keys
}

/// Checksum that `keys` looked up in a correct table must produce.
func expectedLookupChecksum(keys: [Int64], payloads: PayloadSet) -> UInt64 {
    var sum: UInt64 = 0
    for key in keys {
        sum &+= rowDigest(rowid: key, payload: payloads.payload(for: key))
    }
    return sum
}

func median(_ values: [Double]) -> Double {
    precondition(!values.isEmpty)
    let sorted = values.sorted()
    let mid = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/// Progress and diagnostics go to stderr so stdout stays pure Markdown.
func log(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

enum FileSystem {
    /// Creates a fresh, uniquely named directory under `base`.
    static func makeTemporaryDirectory(base: String) throws -> String {
        var template = Array((base.hasSuffix("/") ? base : base + "/").utf8CString.dropLast())
        template += Array("granite-bench.XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { buffer -> String? in
            guard let result = mkdtemp(buffer.baseAddress!) else { return nil }
            return String(cString: result)
        }
        guard let path = created else {
            throw BenchError("cannot create a temporary directory under \(base): errno \(errno)")
        }
        return path
    }

    static func makeDirectory(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    static func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Size of the file at `path`, nil when it does not exist.
    static func size(of path: String) -> Int64? {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : nil
    }

    /// Total size of the regular files in `directory` (the database file plus
    /// any journal or side file an engine left behind).
    static func totalFileSize(inDirectory directory: String) throws -> (bytes: Int64, files: [String]) {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        var total: Int64 = 0
        for name in names {
            var info = stat()
            guard stat(directory + "/" + name, &info) == 0 else {
                throw BenchError("cannot stat \(directory)/\(name): errno \(errno)")
            }
            total += Int64(info.st_size)
        }
        return (total, names)
    }
}
