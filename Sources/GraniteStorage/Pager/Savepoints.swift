// Nested savepoints inside a write transaction: page images captured before
// their first change after each savepoint, restored by a rollback-to.

/// One open savepoint.
struct Savepoint {
    /// The savepoint's name (matched without regard to ASCII case).
    var name: String
    /// The header when the savepoint began.
    var header: FileHeader
    /// Images of pages as they were when the savepoint began; nil for a page
    /// whose content did not matter then (beyond the end, or free).
    var images: [PageNumber: [UInt8]?] = [:]
}

extension Pager {
    /// Opens a savepoint named `name` inside the write transaction.
    package func savepoint(_ name: String) throws {
        guard inWriteTransaction else { throw notWritable() }
        savepoints.append(Savepoint(name: name, header: header))
    }

    private func savepointIndex(_ name: String) throws -> Int {
        guard let i = savepoints.lastIndex(where: { $0.name.lowercased() == name.lowercased() }) else {
            throw StorageError.notFound("savepoint '\(name)'")
        }
        return i
    }

    /// Undoes every change made since savepoint `name` began; the savepoint
    /// stays open (as in SQL's ROLLBACK TO).
    package func rollback(toSavepoint name: String) throws {
        let target = try savepointIndex(name)
        for sp in savepoints[target...].reversed() {
            for (number, image) in sp.images {
                if let image {
                    let buffer = cache.lookup(number) ?? cache.insert(number)
                    image.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress!, byteCount: pageSize) }
                    cache.markDirty(number)
                } else {
                    cache.remove(number)
                }
            }
        }
        header = savepoints[target].header
        savepoints.removeSubrange((target + 1)...)
        savepoints[target].images.removeAll()
        reloadGeneration &+= 1
    }

    /// Closes savepoint `name` and every later one, keeping their changes.
    package func releaseSavepoint(_ name: String) throws {
        let target = try savepointIndex(name)
        if target > 0 {
            // The enclosing savepoint keeps the oldest image of each page.
            for sp in savepoints[target...] {
                for (number, image) in sp.images where savepoints[target - 1].images[number] == nil {
                    savepoints[target - 1].images[number] = .some(image)
                }
            }
        }
        savepoints.removeSubrange(target...)
    }

    /// The names of the open savepoints, oldest first.
    package var savepointNames: [String] { savepoints.map(\.name) }

    /// Keeps the image of page `number` before its first change since the
    /// newest savepoint began.
    func capture(_ number: PageNumber) throws {
        let top = savepoints.count - 1
        guard savepoints[top].images[number] == nil else { return }
        if number > savepoints[top].header.pageCount {
            savepoints[top].images[number] = .some(nil)
            return
        }
        let buffer = try page(number)
        savepoints[top].images[number] = .some([UInt8](UnsafeRawBufferPointer(start: buffer, count: pageSize)))
    }

    /// Like ``capture(_:)`` for a page about to be reused or freed, whose
    /// content may be meaningless (a free page); unreadable content is not kept.
    func captureForReuse(_ number: PageNumber) throws {
        let top = savepoints.count - 1
        guard savepoints[top].images[number] == nil else { return }
        if number <= savepoints[top].header.pageCount, let buffer = try? page(number) {
            savepoints[top].images[number] = .some([UInt8](UnsafeRawBufferPointer(start: buffer, count: pageSize)))
        } else {
            savepoints[top].images[number] = .some(nil)
        }
    }
}
