// Reads a file descriptor line by line in fixed-size buffers, so a script or CSV file of any size is read in
// constant memory (plus its longest line).

import Foundation

/// Lines (as bytes, each with its terminator) from a file descriptor, read in 64 KiB buffers.
final class LineReader {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    /// Where the unread bytes of `buffer` start.
    private var start = 0
    private var atEnd = false
    /// The bytes handed out so far (for a progress report).
    private(set) var bytesRead: Int64 = 0

    /// How many bytes one read asks for.
    private let chunkSize: Int

    /// Reads `descriptor`, which the caller keeps open for as long as the reader is used, `chunkSize` bytes at a
    /// time.
    init(descriptor: Int32, chunkSize: Int = 64 << 10) {
        self.descriptor = descriptor
        self.chunkSize = max(chunkSize, 1)
    }

    /// The next line with its `\n` (the last line may have none), or nil at the end of input.
    /// Throws when reading fails.
    func nextLine() throws -> ArraySlice<UInt8>? {
        var searchFrom = start
        while true {
            if let newline = buffer[searchFrom...].firstIndex(of: 0x0A) {
                let line = buffer[start...newline]
                start = newline + 1
                bytesRead += Int64(line.count)
                return line
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                let line = buffer[start...]
                start = buffer.count
                bytesRead += Int64(line.count)
                return line
            }
            searchFrom = buffer.count - start
            try refill()
        }
    }

    /// Drops the bytes already handed out and appends the next chunk of input.
    private func refill() throws {
        if start > 0 {
            buffer.removeFirst(start)
            start = 0
        }
        let old = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: chunkSize))
        var count = 0
        repeat {
            count = buffer.withUnsafeMutableBufferPointer { pointer in
                read(descriptor, pointer.baseAddress! + old, chunkSize)
            }
        } while count < 0 && errno == EINTR
        guard count >= 0 else {
            buffer.removeLast(chunkSize)
            throw CLIError("cannot read the input: \(String(cString: strerror(errno)))")
        }
        buffer.removeLast(chunkSize - count)
        if count == 0 { atEnd = true }
    }
}

/// An input file opened for reading, closed by ``close()``.
struct InputFile {
    let descriptor: Int32
    /// The file's size in bytes, or nil for a pipe or terminal.
    let size: Int64?

    /// Opens `path` for reading, with a message naming it when it cannot be opened.
    init(path: String) throws {
        descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw CLIError("cannot open \"\(path)\": \(String(cString: strerror(errno)))") }
        var status = stat()
        if fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG {
            size = Int64(status.st_size)
        } else {
            size = nil
        }
    }

    func close() {
        _ = Foundation.close(descriptor)
    }
}
