// The shared index `<db>-shm`: a small header that every process using a database maps, where the writer
// publishes the committed state of the log. FORMAT.md § "Several processes" describes its bytes and protocols.
import CGraniteAtomics

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The committed state of the log as the shared index publishes it.
struct SharedLogState: Equatable {
    /// Changes whenever the log starts over (restart, truncation, rebuild): a process whose frame map
    /// belongs to another generation rebuilds it.
    var generation: UInt64
    /// The log's header (checkpoint sequence and salts), nil when the log is empty or absent.
    var logHeader: (checkpointSequence: UInt32, salt1: UInt32, salt2: UInt32)?
    /// Frames `0 ..< frameCount` of the log are committed.
    var frameCount: Int
    /// The cumulative checksum of frame `frameCount − 1`, where the next writer continues the chain.
    var lastChecksum: UInt64

    static func == (a: SharedLogState, b: SharedLogState) -> Bool {
        a.generation == b.generation && a.frameCount == b.frameCount && a.lastChecksum == b.lastChecksum
            && a.logHeader?.checkpointSequence == b.logHeader?.checkpointSequence
            && a.logHeader?.salt1 == b.logHeader?.salt1 && a.logHeader?.salt2 == b.logHeader?.salt2
    }
}

/// What a read of the shared header found.
enum SharedIndexReading {
    /// A consistent state, and the sequence number it was published under.
    case stable(SharedLogState, sequence: UInt64)
    /// A publisher is half-way through (or died half-way through) an update.
    case changing
    /// The bytes are not a shared index of this version, or their checksum fails: rebuild it.
    case invalid
}

/// The mapped `-shm` file: 64-bit words in the machine's byte order, updated under a sequence lock.
///
/// Words: 0 magic, 1 version, 2 sequence (odd while an update is in progress), 3 generation, 4 log checkpoint
/// sequence (low 32 bits) and "log present" (bit 32), 5 salts (salt 1 low, salt 2 high), 6 committed frames,
/// 7 last cumulative checksum, 8 checksum (XXH64 of words 3 ..< 8), 9 backfilled frames, 10 the generation
/// the backfilled count belongs to. Words 3 ..< 9 change only under the writer lock; words 9 and 10 only under
/// the checkpoint lock, so they sit outside the sequence lock.
final class SharedIndexRegion: @unchecked Sendable {
    /// Bytes of the file (and of the mapping): one page, room for later fields.
    static let size = 4096
    /// "GraniteS" read as a little-endian word.
    static let magic: UInt64 = 0x5365_7469_6E61_7247
    static let version: UInt64 = 1

    private enum Word: Int {
        case magic = 0
        case version, sequence, generation, logHeader, salts, frameCount, lastChecksum, checksum
        case backfilled, backfilledGeneration
    }

    let path: String
    let isReadOnly: Bool
    private let base: UnsafeMutablePointer<UInt64>

    /// Keeps the memory mapped.
    private let mapping: any SharedMemoryMapping

    /// Maps the file at `path` through `fileSystem`, creating it (and growing it to ``size``) unless `readOnly`.
    /// - Throws: ``StorageError/io(_:path:errno:)``; a read-only open of a file shorter than ``size``
    ///   throws `EINVAL`, since mapping it would fault beyond its end.
    init(path: String, readOnly: Bool, fileSystem: any ProcessSharingFileSystem) throws {
        mapping = try fileSystem.mapSharedMemory(path, size: SharedIndexRegion.size, readOnly: readOnly)
        self.path = path
        self.isReadOnly = readOnly
        self.base = mapping.baseAddress.bindMemory(to: UInt64.self, capacity: SharedIndexRegion.size / 8)
    }

    private func load(_ word: Word) -> UInt64 { granite_atomic_load_relaxed(base + word.rawValue) }
    private func store(_ word: Word, _ value: UInt64) { granite_atomic_store_relaxed(base + word.rawValue, value) }

    /// The sequence number: unchanged means nothing was published since it was last read (one memory load).
    var sequence: UInt64 { granite_atomic_load_acquire(base + Word.sequence.rawValue) }

    /// Reads the published state, retrying while an update is in progress (`spins` times at most).
    func read(spins: Int = 2000) -> SharedIndexReading {
        for attempt in 0..<spins {
            let before = sequence
            if before & 1 == 1 {
                if attempt > 16 { sched_yield() }
                continue
            }
            // Words 3 ..< 9 in a tuple: a reader after every commit of another process allocates nothing.
            let words = (
                granite_atomic_load_relaxed(base + 3), granite_atomic_load_relaxed(base + 4),
                granite_atomic_load_relaxed(base + 5), granite_atomic_load_relaxed(base + 6),
                granite_atomic_load_relaxed(base + 7), granite_atomic_load_relaxed(base + 8)
            )
            let magic = load(.magic)
            let version = load(.version)
            granite_atomic_fence_acquire()
            guard granite_atomic_load_relaxed(base + Word.sequence.rawValue) == before else { continue }
            guard magic == SharedIndexRegion.magic, version == SharedIndexRegion.version,
                words.5 == SharedIndexRegion.checksum((words.0, words.1, words.2, words.3, words.4))
            else { return .invalid }
            let present = words.1 >> 32 & 1 == 1
            let state = SharedLogState(
                generation: words.0,
                logHeader: present
                    ? (
                        UInt32(truncatingIfNeeded: words.1), UInt32(truncatingIfNeeded: words.2),
                        UInt32(truncatingIfNeeded: words.2 >> 32)
                    ) : nil,
                frameCount: Int(clamping: words.3), lastChecksum: words.4)
            return .stable(state, sequence: before)
        }
        return .changing
    }

    /// Publishes `state` (the caller holds the writer lock: one publisher at a time) and returns the new
    /// sequence number. A publisher killed half-way leaves the sequence odd, which readers detect.
    @discardableResult
    func publish(_ state: SharedLogState) -> UInt64 {
        let odd = (load(.sequence) | 1) &+ 2
        store(.sequence, odd)
        granite_atomic_fence_release()
        var logWords: (UInt64, UInt64) = (0, 0)
        if let header = state.logHeader {
            logWords = (
                UInt64(header.checkpointSequence) | 1 << 32, UInt64(header.salt1) | UInt64(header.salt2) << 32
            )
        }
        let words = (state.generation, logWords.0, logWords.1, UInt64(state.frameCount), state.lastChecksum)
        granite_atomic_store_relaxed(base + 3, words.0)
        granite_atomic_store_relaxed(base + 4, words.1)
        granite_atomic_store_relaxed(base + 5, words.2)
        granite_atomic_store_relaxed(base + 6, words.3)
        granite_atomic_store_relaxed(base + 7, words.4)
        store(.checksum, SharedIndexRegion.checksum(words))
        store(.magic, SharedIndexRegion.magic)
        store(.version, SharedIndexRegion.version)
        granite_atomic_store_release(base + Word.sequence.rawValue, odd &+ 1)
        return odd &+ 1
    }

    /// Frames of generation `generation` already copied into the database file (0 when the count recorded
    /// belongs to another generation). Read by the checkpoint lock's holder.
    func backfilled(generation: UInt64) -> Int {
        guard granite_atomic_load_acquire(base + Word.backfilledGeneration.rawValue) == generation else { return 0 }
        return Int(clamping: load(.backfilled))
    }

    /// Records that frames `0 ..< count` of `generation` are in the database file (under the checkpoint lock).
    func setBackfilled(_ count: Int, generation: UInt64) {
        store(.backfilledGeneration, ~0)
        granite_atomic_fence_release()
        store(.backfilled, UInt64(count))
        granite_atomic_store_release(base + Word.backfilledGeneration.rawValue, generation)
    }

    /// XXH64 of the five state words, in their in-memory order (the tuple's layout: five contiguous words).
    private static func checksum(_ words: (UInt64, UInt64, UInt64, UInt64, UInt64)) -> UInt64 {
        withUnsafeBytes(of: words) { Checksum.xxh64($0.baseAddress!, count: $0.count) }
    }
}
