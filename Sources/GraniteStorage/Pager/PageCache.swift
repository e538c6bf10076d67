/// A bounded cache of page images with dirty tracking and clock eviction.
///
/// Each frame is one page-sized buffer allocated once. A pointer handed out
/// by the cache stays valid until the next call to ``evict(down:_:)``, which
/// the pager only makes at safe points between tree operations, so a tree
/// operation can hold several page pointers at once without pinning them.
final class PageCache {
    let pageSize: Int
    /// The number of frames the cache keeps after a trim.
    var capacity: Int

    private var buffers: [UnsafeMutableRawPointer?] = []
    private var frameToPage: [PageNumber] = []
    private var dirtyFlags: [Bool] = []
    private var referenced: [Bool] = []
    private var freeFrames: [Int32] = []
    private var table: PageTable
    private var hand = 0
    private var allocated = 0
    /// Frames made dirty since the last flush, in order.
    private(set) var dirtyFrames: [Int32] = []
    /// Bumped whenever a frame is reused or dropped, so holders of pointers
    /// can tell whether theirs are still valid.
    private(set) var epoch: UInt64 = 0

    init(pageSize: Int, capacity: Int) {
        self.pageSize = pageSize
        self.capacity = max(capacity, 16)
        self.table = PageTable(minimumCapacity: self.capacity)
    }

    deinit {
        for case let buffer? in buffers { buffer.deallocate() }
    }

    /// The number of pages held.
    var count: Int { table.count }

    /// The number of dirty pages held.
    var dirtyCount: Int { dirtyFrames.count }

    /// The buffer of a cached page, or nil.
    @inline(__always)
    func lookup(_ page: PageNumber) -> UnsafeMutableRawPointer? {
        guard let frame = table.find(page) else { return nil }
        referenced[Int(frame)] = true
        return buffers[Int(frame)]
    }

    /// Whether a cached page is dirty.
    func isDirty(_ page: PageNumber) -> Bool {
        guard let frame = table.find(page) else { return false }
        return dirtyFlags[Int(frame)]
    }

    /// Adds a frame for `page` (not yet cached) and returns its buffer,
    /// whose contents the caller fills.
    func insert(_ page: PageNumber) -> UnsafeMutableRawPointer {
        let frame: Int
        if let free = freeFrames.popLast() {
            frame = Int(free)
        } else {
            frame = buffers.count
            buffers.append(nil)
            frameToPage.append(0)
            dirtyFlags.append(false)
            referenced.append(false)
        }
        if buffers[frame] == nil {
            buffers[frame] = UnsafeMutableRawPointer.allocate(byteCount: pageSize, alignment: 16)
            allocated += 1
        }
        frameToPage[frame] = page
        dirtyFlags[frame] = false
        referenced[frame] = true
        table.insert(page, Int32(frame))
        return buffers[frame]!
    }

    /// Marks a cached page dirty.
    func markDirty(_ page: PageNumber) {
        guard let frame = table.find(page) else { return }
        if !dirtyFlags[Int(frame)] {
            dirtyFlags[Int(frame)] = true
            dirtyFrames.append(frame)
        }
    }

    /// The dirty pages and their buffers, in the order they became dirty.
    func dirtyPages() -> [(number: PageNumber, image: UnsafeMutableRawPointer)] {
        dirtyFrames.map { (frameToPage[Int($0)], buffers[Int($0)]!) }
    }

    /// Marks every page clean (after they were written).
    func markAllClean() {
        for frame in dirtyFrames { dirtyFlags[Int(frame)] = false }
        dirtyFrames.removeAll(keepingCapacity: true)
    }

    /// Drops a page from the cache, dirty or not.
    func remove(_ page: PageNumber) {
        guard let frame = table.find(page) else { return }
        let f = Int(frame)
        if dirtyFlags[f] {
            dirtyFlags[f] = false
            if let i = dirtyFrames.lastIndex(of: frame) { dirtyFrames.remove(at: i) }
        }
        table.remove(page)
        frameToPage[f] = 0
        release(frame: f)
    }

    /// Drops every dirty page (a rollback).
    func discardDirty() {
        for frame in dirtyFrames {
            let f = Int(frame)
            dirtyFlags[f] = false
            table.remove(frameToPage[f])
            frameToPage[f] = 0
            release(frame: f)
        }
        dirtyFrames.removeAll(keepingCapacity: true)
    }

    /// Drops every page.
    func removeAll() {
        for f in frameToPage.indices where frameToPage[f] != 0 {
            frameToPage[f] = 0
            dirtyFlags[f] = false
            release(frame: f)
        }
        table.removeAll()
        dirtyFrames.removeAll()
    }

    /// Evicts pages until at most `capacity` remain. Clean pages go first; a
    /// dirty page is handed to `spill` (which must write it) before it goes.
    func evict(spill: ([(number: PageNumber, image: UnsafeMutableRawPointer)]) throws -> Void) throws {
        guard table.count > capacity else { return }
        // When most of the cache is dirty, write a batch of dirty pages first
        // so that clean victims exist; batching keeps writes sequential.
        if dirtyFrames.count > capacity / 2 {
            let batch = dirtyFrames.prefix(max(dirtyFrames.count - capacity / 4, 1))
            let pages = batch.map { (frameToPage[Int($0)], buffers[Int($0)]!) }
            try spill(pages)
            for frame in batch { dirtyFlags[Int(frame)] = false }
            dirtyFrames.removeFirst(batch.count)
        }
        var sweeps = 0
        while table.count > capacity {
            let f = hand
            hand = (hand + 1) % frameToPage.count
            if hand == 0 { sweeps += 1 }
            guard frameToPage[f] != 0 else { continue }
            if referenced[f] && sweeps < 2 {
                referenced[f] = false
                continue
            }
            if dirtyFlags[f] {
                if sweeps < 3 { continue }
                try spill([(frameToPage[f], buffers[f]!)])
                dirtyFlags[f] = false
                if let i = dirtyFrames.firstIndex(of: Int32(f)) { dirtyFrames.remove(at: i) }
            }
            table.remove(frameToPage[f])
            frameToPage[f] = 0
            release(frame: f)
        }
    }

    private func release(frame f: Int) {
        epoch &+= 1
        referenced[f] = false
        if allocated > capacity, let buffer = buffers[f] {
            // Over capacity (a large operation grew the cache): give memory back.
            buffer.deallocate()
            buffers[f] = nil
            allocated -= 1
        }
        freeFrames.append(Int32(f))
    }
}
