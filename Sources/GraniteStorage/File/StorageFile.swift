// The file layer: every byte Granite reads or writes goes through this protocol.

/// The kind of advisory lock held on a file.
public enum FileLockKind: Sendable, Equatable {
    /// Several holders may share it (readers).
    case shared
    /// One holder only (a writer).
    case exclusive
}

/// Positioned reads and writes on one file, plus sync, truncate, size and lock.
///
/// Implementations: ``POSIXFile`` (production), ``MemoryFile`` (tests and
/// in-memory databases) and ``FaultInjectingFile`` (failure and power-loss
/// tests). Offsets are absolute byte positions. Implementations are safe to
/// call from several threads.
public protocol StorageFile: AnyObject, Sendable {
    /// A name for error messages (the path, or a label for in-memory files).
    var path: String { get }

    /// Reads up to `buffer.count` bytes at `offset` into `buffer` and returns
    /// how many were read; fewer than asked means the end of the file.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int

    /// Writes all of `bytes` at `offset`, growing the file if needed.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws

    /// Makes every completed write durable.
    func sync() throws

    /// Sets the file's size, dropping or zero-filling bytes at the end.
    func truncate(to size: Int64) throws

    /// The file's current size in bytes.
    func size() throws -> Int64

    /// Takes an advisory lock without waiting; returns `false` when another
    /// holder prevents it.
    func tryLock(_ kind: FileLockKind) throws -> Bool

    /// Releases any lock held through this object.
    func unlock() throws

    /// Gives up the handle (and any lock held through it); later calls may fail. Calling it again
    /// does nothing. In-memory files keep their content.
    func close()
}

extension StorageFile {
    /// Does nothing: a file without an operating-system handle has nothing to give up.
    public func close() {}

    /// Reads exactly `buffer.count` bytes at `offset`; returns `false` when the
    /// file ends first (the buffer is then partly filled).
    public func readFully(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Bool {
        var done = 0
        while done < buffer.count {
            let n = try read(
                into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]),
                at: offset + Int64(done))
            if n == 0 { return false }
            done += n
        }
        return true
    }

    /// Writes a byte array at `offset`.
    public func write(_ bytes: [UInt8], at offset: Int64) throws {
        try bytes.withUnsafeBytes { try write($0, at: offset) }
    }

    /// Reads `count` bytes at `offset` (fewer at the end of the file).
    public func read(count: Int, at offset: Int64) throws -> [UInt8] {
        var result = [UInt8](repeating: 0, count: count)
        let n = try result.withUnsafeMutableBytes { try read(into: $0, at: offset) }
        result.removeLast(count - n)
        return result
    }
}
