// The buffered standard output of a dump.

/// Bytes for standard output, written out in blocks of 64 KiB so that a dump of any size runs in constant
/// memory.
struct DumpOutput {
    var bytes: [UInt8] = []
    private static let blockSize = 1 << 16

    init() {
        bytes.reserveCapacity(Self.blockSize + 4096)
    }

    mutating func write(_ text: String) {
        bytes.append(contentsOf: text.utf8)
        flushIfFull()
    }

    mutating func flushIfFull() {
        if bytes.count >= Self.blockSize { flush() }
    }

    mutating func flush() {
        writeOutput(bytes)
        bytes.removeAll(keepingCapacity: true)
    }
}
