/// A bounded cache of page images with dirty tracking and clock eviction.
///
/// Each frame is one page-sized buffer allocated once. A pointer handed out
/// by the cache stays valid until the next call to ``evict(spill:)``, which
/// the pager only makes at safe points between tree operations, so a tree
/// operation can hold several page pointers at once without pinning them.
/// Frame metadata lives behind raw pointers (no exclusivity checks on the hot path).
final class PageCache {
    let pageSize: Int
    /// The number of frames the cache keeps after a trim.
    @exclusivity(unchecked) var capacity: Int

    @exclusivity(unchecked) private var frameCount = 0
    @exclusivity(unchecked) private var frameCapacity = 0
    @exclusivity(unchecked) private var buffers: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    @exclusivity(unchecked) private var frameToPage: UnsafeMutablePointer<PageNumber>
    /// Bit 0: dirty; bit 1: referenced.
    @exclusivity(unchecked) private var flags: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private var freeFrames: [Int32] = []
    private let table: PageTable
    @exclusivity(unchecked) private var hand = 0
    @exclusivity(unchecked) private var allocated = 0
    /// Frames made dirty since the last flush, in order.
    @exclusivity(unchecked) private(set) var dirtyFrames: [Int32] = []
    /// Bumped whenever a frame is reused or dropped, so holders of pointers
    /// can tell whether theirs are still valid.
    @exclusivity(unchecked) private(set) var epoch: UInt64 = 0

    private static let dirty: UInt8 = 1
    private static let referenced: UInt8 = 2

    init(pageSize: Int, capacity: Int) {
        self.pageSize = pageSize
        self.capacity = max(capacity, 16)
        self.table = PageTable(minimumCapacity: self.capacity)
        frameCapacity = 64
        buffers = .allocate(capacity: frameCapacity)
        frameToPage = .allocate(capacity: frameCapacity)
        flags = .allocate(capacity: frameCapacity)
    }

    deinit {
        for f in 0..<frameCount { buffers[f]?.deallocate() }
        buffers.deallocate()
        frameToPage.deallocate()
        flags.deallocate()
    }

    /// The number of pages held.
    var count: Int { table.count }

    /// The number of dirty pages held.
    var dirtyCount: Int { dirtyFrames.count }

    /// The buffer of a cached page, or nil.
    @inline(__always)
    func lookup(_ page: PageNumber) -> UnsafeMutableRawPointer? {
        guard let frame = table.find(page) else { return nil }
        let f = Int(frame)
        flags[f] |= PageCache.referenced
        return buffers[f]
    }

    /// Whether a cached page is dirty.
    func isDirty(_ page: PageNumber) -> Bool {
        guard let frame = table.find(page) else { return false }
        return flags[Int(frame)] & PageCache.dirty != 0
    }

    private func growFrames() {
        let newCapacity = frameCapacity * 2
        let newBuffers = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: newCapacity)
        newBuffers.moveInitialize(from: buffers, count: frameCount)
        buffers.deallocate()
        buffers = newBuffers
        let newPages = UnsafeMutablePointer<PageNumber>.allocate(capacity: newCapacity)
        newPages.moveInitialize(from: frameToPage, count: frameCount)
        frameToPage.deallocate()
        frameToPage = newPages
        let newFlags = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newFlags.moveInitialize(from: flags, count: frameCount)
        flags.deallocate()
        flags = newFlags
        frameCapacity = newCapacity
    }

    /// Adds a frame for `page` (not yet cached) and returns its buffer,
    /// whose contents the caller fills.
    func insert(_ page: PageNumber) -> UnsafeMutableRawPointer {
        let frame: Int
        if let free = freeFrames.popLast() {
            frame = Int(free)
        } else {
            if frameCount == frameCapacity { growFrames() }
            frame = frameCount
            (buffers + frame).initialize(to: nil)
            (frameToPage + frame).initialize(to: 0)
            (flags + frame).initialize(to: 0)
            frameCount += 1
        }
        let buffer: UnsafeMutableRawPointer
        if let existing = buffers[frame] {
            buffer = existing
        } else {
            buffer = UnsafeMutableRawPointer.allocate(byteCount: pageSize, alignment: 16)
            buffers[frame] = buffer
            allocated += 1
        }
        frameToPage[frame] = page
        flags[frame] = PageCache.referenced
        table.insert(page, Int32(frame))
        return buffer
    }

    /// Marks a cached page dirty.
    @inline(__always)
    func markDirty(_ page: PageNumber) {
        guard let frame = table.find(page) else { return }
        let f = Int(frame)
        if flags[f] & PageCache.dirty == 0 {
            flags[f] |= PageCache.dirty
            dirtyFrames.append(frame)
        }
    }

    /// The dirty pages and their buffers, in the order they became dirty.
    func dirtyPages() -> [(number: PageNumber, image: UnsafeMutableRawPointer)] {
        dirtyFrames.map { (frameToPage[Int($0)], buffers[Int($0)]!) }
    }

    /// Marks every page clean (after they were written).
    func markAllClean() {
        for frame in dirtyFrames { flags[Int(frame)] &= ~PageCache.dirty }
        dirtyFrames.removeAll(keepingCapacity: true)
    }

    /// Drops a page from the cache, dirty or not.
    func remove(_ page: PageNumber) {
        guard let frame = table.find(page) else { return }
        let f = Int(frame)
        if flags[f] & PageCache.dirty != 0, let i = dirtyFrames.lastIndex(of: frame) {
            dirtyFrames.remove(at: i)
        }
        table.remove(page)
        release(frame: f)
    }

    /// Drops every dirty page (a rollback).
    func discardDirty() {
        for frame in dirtyFrames {
            let f = Int(frame)
            table.remove(frameToPage[f])
            release(frame: f)
        }
        dirtyFrames.removeAll(keepingCapacity: true)
    }

    /// Drops every page.
    func removeAll() {
        for f in 0..<frameCount where frameToPage[f] != 0 { release(frame: f) }
        table.removeAll()
        dirtyFrames.removeAll()
    }

    /// Drops every page and frees every page buffer; frames get a new buffer when next used. Only between
    /// transactions: dirty pages are dropped like the others.
    func releaseMemory() {
        removeAll()
        for f in 0..<frameCount {
            if let buffer = buffers[f] {
                buffer.deallocate()
                buffers[f] = nil
            }
        }
        allocated = 0
    }

    /// Evicts pages until at most `capacity` remain. Clean pages go first; dirty
    /// pages are handed to `spill` (which must write them) before they go.
    func evict(spill: ([(number: PageNumber, image: UnsafeMutableRawPointer)]) throws -> Void) throws {
        guard table.count > capacity else { return }
        // When most of the cache is dirty, write the oldest dirty pages in one
        // batch so that clean victims exist; batching keeps writes sequential.
        if dirtyFrames.count > capacity / 2 {
            let batch = dirtyFrames.prefix(max(dirtyFrames.count - capacity / 4, 1))
            try spill(batch.map { (frameToPage[Int($0)], buffers[Int($0)]!) })
            for frame in batch { flags[Int(frame)] &= ~PageCache.dirty }
            dirtyFrames.removeFirst(batch.count)
        }
        var sweeps = 0
        while table.count > capacity {
            let f = hand
            hand += 1
            if hand == frameCount {
                hand = 0
                sweeps += 1
            }
            guard frameToPage[f] != 0 else { continue }
            if flags[f] & PageCache.referenced != 0 && sweeps < 2 {
                flags[f] &= ~PageCache.referenced
                continue
            }
            if flags[f] & PageCache.dirty != 0 {
                if sweeps < 3 { continue }
                try spill([(frameToPage[f], buffers[f]!)])
                flags[f] &= ~PageCache.dirty
                if let i = dirtyFrames.firstIndex(of: Int32(f)) { dirtyFrames.remove(at: i) }
            }
            table.remove(frameToPage[f])
            release(frame: f)
        }
    }

    private func release(frame f: Int) {
        epoch &+= 1
        frameToPage[f] = 0
        flags[f] = 0
        if allocated > capacity, let buffer = buffers[f] {
            // Over capacity (a large operation grew the cache): give memory back.
            buffer.deallocate()
            buffers[f] = nil
            allocated -= 1
        }
        freeFrames.append(Int32(f))
    }
}
