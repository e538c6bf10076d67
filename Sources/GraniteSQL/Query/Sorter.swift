import GraniteStorage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Sorts result rows by their keys with bounded memory: rows collect in memory up to a byte budget, then each
/// full batch is sorted and written to a temporary file as a run, and the runs are merged while reading.
/// With a `keep` bound (`ORDER BY … LIMIT n`) only the best `keep` rows are ever held: once a batch has been
/// trimmed to `keep` rows, its last row is the bar a new row must beat, so most rows of a large input are
/// dropped by one comparison instead of being buffered and sorted (top-N over 100k rows kept every row before).
///
/// The order is stable: rows with equal keys come out in the order they were added.
final class Sorter {
    typealias Entry = (row: [Value], keys: [Value])

    private let terms: [SelectProgram.SortTerm]
    private let memoryLimit: Int
    private let keep: Int?
    private var buffer: [Entry] = []
    private var bufferBytes = 0
    private var runs: [(file: POSIXFile, size: Int64)] = []
    /// The worst kept row after the last trim: with `keep`, a row that does not sort strictly before it can
    /// never be among the best `keep` (on a tie it came later, so the stable order puts it after).
    private var threshold: Entry?

    // Reading state.
    private var sortedBuffer: [Entry] = []
    private var position = 0
    private var readers: [RunReader] = []
    private var heap: [(entry: Entry, source: Int)] = []
    private var merging = false

    init(terms: [SelectProgram.SortTerm], memoryLimit: Int, keep: Int?) {
        self.terms = terms
        self.memoryLimit = max(memoryLimit, 1)
        self.keep = keep
    }

    /// Whether rows were written to temporary files.
    var spilled: Bool { !runs.isEmpty }

    func less(_ a: Entry, _ b: Entry) -> Bool {
        for (i, term) in terms.enumerated() {
            let x = a.keys[i]
            let y = b.keys[i]
            if x.isNull || y.isNull {
                if x.isNull && y.isNull { continue }
                return x.isNull == term.nullsFirst
            }
            let c = SQLComparison.compare(x, y, collation: term.collation)
            if c != 0 { return term.descending ? c > 0 : c < 0 }
        }
        return false
    }

    func add(_ row: [Value], keys: [Value]) throws {
        if let keep {
            if keep == 0 { return }
            if let threshold, !less((row, keys), threshold) { return }
            buffer.append((row, keys))
            if buffer.count >= max(2 * keep, 64) {
                buffer = Sorting.stableSorted(buffer, by: less)
                buffer.removeLast(buffer.count - keep)
                threshold = buffer.last
            }
            return
        }
        buffer.append((row, keys))
        bufferBytes += Self.estimate(row) + Self.estimate(keys)
        if bufferBytes >= memoryLimit { try spill() }
    }

    private static func estimate(_ values: [Value]) -> Int {
        var n = 16
        for v in values {
            switch v {
            case .text(let s): n += 24 + s.utf8.count
            case .blob(let b), .invalidUTF8Text(let b): n += 24 + b.count
            default: n += 16
            }
        }
        return n
    }

    private func spill() throws {
        let sorted = Sorting.stableSorted(buffer, by: less)
        buffer.removeAll(keepingCapacity: true)
        bufferBytes = 0
        let file = try Self.temporaryFile()
        var bytes: [UInt8] = []
        let encoder = RowEncoder(compressionThreshold: nil)
        var offset: Int64 = 0
        for entry in sorted {
            let record = encoder.encode(entry.keys + entry.row)
            var header = UInt32(record.count).littleEndian
            withUnsafeBytes(of: &header) { bytes.append(contentsOf: $0) }
            var keyCount = UInt32(entry.keys.count).littleEndian
            withUnsafeBytes(of: &keyCount) { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: record)
            if bytes.count >= 1 << 20 {
                try file.write(bytes, at: offset)
                offset += Int64(bytes.count)
                bytes.removeAll(keepingCapacity: true)
            }
        }
        if !bytes.isEmpty {
            try file.write(bytes, at: offset)
            offset += Int64(bytes.count)
        }
        runs.append((file, offset))
    }

    /// A new, already unlinked temporary file.
    private static func temporaryFile() throws -> POSIXFile {
        let directory = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        let path = "\(directory)/granite-sort-\(getpid())-\(String(UInt64.random(in: 0...UInt64.max), radix: 16))"
        let file = try POSIXFile(path: path, create: true)
        try? POSIXFile.remove(path: path)
        return file
    }

    /// Ends the input; rows are then read with ``next()``.
    func finish() throws {
        if runs.isEmpty {
            sortedBuffer = Sorting.stableSorted(buffer, by: less)
            if let keep, sortedBuffer.count > keep { sortedBuffer.removeLast(sortedBuffer.count - keep) }
            buffer = []
            position = 0
            return
        }
        if !buffer.isEmpty { try spill() }
        merging = true
        readers = runs.map { RunReader(file: $0.file, size: $0.size) }
        for (k, reader) in readers.enumerated() {
            if let entry = try reader.next() { push((entry, k)) }
        }
    }

    /// The next row in order, or nil.
    func next() throws -> [Value]? {
        if !merging {
            guard position < sortedBuffer.count else { return nil }
            position += 1
            return sortedBuffer[position - 1].row
        }
        guard let top = pop() else { return nil }
        if let entry = try readers[top.source].next() { push((entry, top.source)) }
        return top.entry.row
    }

    // MARK: Heap (ties broken by run number, which keeps the merge stable)

    private func before(_ a: (entry: Entry, source: Int), _ b: (entry: Entry, source: Int)) -> Bool {
        if less(a.entry, b.entry) { return true }
        if less(b.entry, a.entry) { return false }
        return a.source < b.source
    }

    private func push(_ item: (entry: Entry, source: Int)) {
        heap.append(item)
        var i = heap.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard before(heap[i], heap[parent]) else { break }
            heap.swapAt(i, parent)
            i = parent
        }
    }

    private func pop() -> (entry: Entry, source: Int)? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let top = heap.removeLast()
        var i = 0
        while true {
            let l = 2 * i + 1
            let r = l + 1
            var best = i
            if l < heap.count && before(heap[l], heap[best]) { best = l }
            if r < heap.count && before(heap[r], heap[best]) { best = r }
            if best == i { break }
            heap.swapAt(i, best)
            i = best
        }
        return top
    }
}

/// Reads the records of one sorted run back, through a buffer.
private final class RunReader {
    let file: POSIXFile
    let size: Int64
    private var offset: Int64 = 0
    private var buffer: [UInt8] = []
    private var start = 0

    init(file: POSIXFile, size: Int64) {
        self.file = file
        self.size = size
    }

    private func ensure(_ n: Int) throws -> Bool {
        if buffer.count - start >= n { return true }
        buffer.removeFirst(start)
        start = 0
        while buffer.count < n {
            let remaining = size - offset
            if remaining <= 0 { return false }
            let chunk = Int(min(remaining, Int64(max(n - buffer.count, 1 << 18))))
            buffer += try file.read(count: chunk, at: offset)
            offset += Int64(chunk)
        }
        return true
    }

    func next() throws -> Sorter.Entry? {
        guard try ensure(8) else { return nil }
        let length = Int(
            UInt32(buffer[start]) | UInt32(buffer[start + 1]) << 8 | UInt32(buffer[start + 2]) << 16
                | UInt32(buffer[start + 3]) << 24)
        let keyCount = Int(
            UInt32(buffer[start + 4]) | UInt32(buffer[start + 5]) << 8 | UInt32(buffer[start + 6]) << 16
                | UInt32(buffer[start + 7]) << 24)
        start += 8
        guard try ensure(length) else { throw StorageError.malformed("truncated sort run") }
        let values = try buffer[start..<(start + length)].withUnsafeBytes { try RowDecoder.decode($0) }
        start += length
        guard keyCount <= values.count else { throw StorageError.malformed("bad sort record") }
        return (Array(values[keyCount...]), Array(values[..<keyCount]))
    }
}
