// Reusable storage for the bytes of one TEXT value read out of stored rows (see RowDecoder.copyText).

/// Heap storage that holds the UTF-8 bytes of one TEXT at a time and keeps its capacity from one text to the
/// next, so that reading a column's bytes row after row allocates only when a longer text comes.
///
/// The owner frees it with ``release()``; a copy of the value shares the same storage.
package struct TextStorage {
    /// The first byte (valid for ``capacity`` bytes).
    package private(set) var start: UnsafeMutableRawPointer
    package private(set) var capacity: Int

    /// Storage of `capacity` bytes (at least 1).
    package init(capacity: Int = 256) {
        self.capacity = max(capacity, 1)
        start = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 8)
        start.bindMemory(to: UInt8.self, capacity: self.capacity)
    }

    /// Makes room for at least `count` bytes; the bytes held are not kept when it grows.
    @inline(__always)
    package mutating func reserve(_ count: Int) {
        guard count > capacity else { return }
        start.deallocate()
        capacity = max(count, 2 * capacity)
        start = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        start.bindMemory(to: UInt8.self, capacity: capacity)
    }

    /// Gives back storage far larger than the `count` bytes it holds (a text of several megabytes read once would
    /// otherwise stay allocated as long as its owner); those bytes are kept.
    package mutating func shrink(keeping count: Int) {
        guard capacity > 1 << 20, count < capacity / 4 else { return }
        let smaller = UnsafeMutableRawPointer.allocate(byteCount: max(count, 256), alignment: 8)
        smaller.bindMemory(to: UInt8.self, capacity: max(count, 256))
        smaller.copyMemory(from: start, byteCount: count)
        start.deallocate()
        start = smaller
        capacity = max(count, 256)
    }

    /// The first `count` bytes (at most ``capacity``).
    @inline(__always)
    package func bytes(_ count: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: start.assumingMemoryBound(to: UInt8.self), count: min(count, capacity))
    }

    /// Frees the storage; the value must not be used afterwards.
    package func release() {
        start.deallocate()
    }
}
