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
