import GraniteStorage

/// The queue of a recursive common table's rows waiting to be produced: first in, first out, or with `ORDER BY`
/// a priority queue that hands out the row sorting first, the earliest added among rows with equal keys.
struct RecursiveTableQueue {
    private struct Entry {
        let keys: [Value]
        /// The order the row was added in, which breaks ties between equal keys.
        let sequence: Int
        let row: [Value]
    }

    private let ordering: [SelectProgram.SortTerm]
    /// First in, first out: the rows, of which those before ``head`` were taken already.
    private var fifo: [[Value]] = []
    private var head = 0
    /// Priority: a binary heap.
    private var heap: [Entry] = []
    private var added = 0

    init(ordering: [SelectProgram.SortTerm]) {
        self.ordering = ordering
    }

    var isEmpty: Bool { ordering.isEmpty ? head == fifo.count : heap.isEmpty }

    mutating func removeAll() {
        fifo = []
        head = 0
        heap = []
    }

    mutating func push(_ row: [Value]) {
        if ordering.isEmpty {
            fifo.append(row)
            return
        }
        var keys: [Value] = []
        keys.reserveCapacity(ordering.count)
        for term in ordering { keys.append(term.output.map { row[$0] } ?? .null) }
        heap.append(Entry(keys: keys, sequence: added, row: row))
        added += 1
        siftUp(heap.count - 1)
    }

    mutating func pop() -> [Value]? {
        if ordering.isEmpty {
            guard head < fifo.count else { return nil }
            let row = fifo[head]
            head += 1
            // Drop the taken rows once they are half the storage, so a long recursion holds only what waits.
            if head >= 1024 && head * 2 >= fifo.count {
                fifo.removeFirst(head)
                head = 0
            }
            return row
        }
        guard let last = heap.popLast() else { return nil }
        guard !heap.isEmpty else { return last.row }
        let first = heap[0]
        heap[0] = last
        siftDown(0)
        return first.row
    }

    // MARK: Heap

    private func precedes(_ a: Entry, _ b: Entry) -> Bool {
        for (k, term) in ordering.enumerated() {
            let x = a.keys[k]
            let y = b.keys[k]
            if x.isNull || y.isNull {
                if x.isNull && y.isNull { continue }
                return x.isNull == term.nullsFirst
            }
            let c = SQLComparison.compare(x, y, collation: term.collation)
            if c != 0 { return term.descending ? c > 0 : c < 0 }
        }
        return a.sequence < b.sequence
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(heap[child], heap[parent]) else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        let n = heap.count
        while true {
            var best = parent
            let left = 2 * parent + 1
            let right = left + 1
            if left < n && precedes(heap[left], heap[best]) { best = left }
            if right < n && precedes(heap[right], heap[best]) { best = right }
            if best == parent { return }
            heap.swapAt(parent, best)
            parent = best
        }
    }
}
