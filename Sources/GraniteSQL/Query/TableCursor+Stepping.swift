// Stepping a TableCursor: moving through the table tree or the index to the next candidate row and decoding
// its columns into the query's row.

import GraniteStorage

extension TableCursor {
    /// Decodes the columns of the current row left out before its filters were tested.
    func loadRest(_ row: inout [Value]) throws {
        guard let cursor = pendingRest else { return }
        pendingRest = nil
        if let raw = try pendingBytes ?? cursor.localPayload() {
            // The decoder still holds the row when its bytes are the same (nothing moved them since) and it
            // parsed the header far enough.
            if raw.baseAddress != decoder.buffer.baseAddress || raw.count != decoder.buffer.count
                || decoderLimit < restLimit
            {
                try decoder.reset(raw, columnLimit: restLimit)
                decoderLimit = restLimit
            }
            try decode(restColumns, &row)
        } else {
            try cursor.withPayload { raw in
                try decoder.reset(raw, columnLimit: restLimit)
                decoderLimit = restLimit
                try decode(restColumns, &row)
            }
        }
    }

    /// Counts the rows left to step through (all of them, for a cursor just opened) without writing any into
    /// `row`: an index search's entries are not decoded (those of an index that does not cover the query are
    /// still looked up in the table, where an entry whose row is missing is not counted), nor a table's rows.
    /// The cursor must have no ``filters``, which would need the rows' columns.
    func countRows(_ row: inout [Value]) throws -> Int {
        precondition(filters.isEmpty, "a cursor with filters counts the rows that pass them")
        countsOnly = true
        defer { countsOnly = false }
        var count = 0
        while try step(&row) { count += 1 }
        return count
    }

    /// Advances to the next candidate row and writes its rowid and first columns into `row`; false when done.
    func step(_ row: inout [Value]) throws -> Bool {
        if exhausted { return false }
        rawPassed = 0
        switch method {
        case .scan, .rowidRange:
            guard let cursor = try tableTreeCursor() else { return false }
            while true {
                var valid: Bool
                if !positioned {
                    positioned = true
                    if descending {
                        if let high = range.high {
                            valid = try cursor.seek(atOrAfter: high)
                            if valid, cursor.rowid > high {
                                valid = try cursor.previous()
                            } else if !valid {
                                valid = try cursor.last()
                            }
                        } else {
                            valid = try cursor.last()
                        }
                    } else {
                        valid = try range.low.map { try cursor.seek(atOrAfter: $0) } ?? (try cursor.first())
                    }
                } else {
                    valid = descending ? try cursor.previous() : try cursor.next()
                }
                if valid {
                    if descending, let low = range.low, cursor.rowid < low { valid = false }
                    if !descending, let high = range.high, cursor.rowid > high { valid = false }
                }
                guard valid else {
                    exhausted = true
                    return false
                }
                if try load(cursor, &row) { return true }
            }
        case .rowids:
            guard let cursor = try tableTreeCursor() else { return false }
            if rowidValues.count == 1 {
                if rowidPosition == 0, let rowid = singleRowid {
                    rowidPosition = 1
                    // The row may still fail a filter tested on its bytes (``load(_:_:)`` returns false).
                    if try cursor.seek(rowid: rowid), try load(cursor, &row) { return true }
                }
                exhausted = true
                return false
            }
            while rowidPosition < rowids.count {
                let rowid = rowids[rowidPosition]
                rowidPosition += 1
                if try cursor.seek(rowid: rowid), try load(cursor, &row) { return true }
            }
            exhausted = true
            return false
        case .index:
            guard let cursor else { return false }
            while prefixPosition < prefixes.count {
                var valid: Bool
                if !positioned {
                    let prefix = prefixes[prefixPosition]
                    prefixIsEmpty = prefix.isEmpty
                    positioned = true
                    // Without a lower bound the prefix itself is the key to seek. It is not kept in ``lowKey``
                    // (read only when there is a lower bound): sharing its storage would make the next opening,
                    // which writes the next key over it, copy it.
                    if let low { lowKey = prefix + low }
                    highKey = high.map { prefix + $0 }
                    if descending {
                        // Just above the keys to visit. Without an upper bound: the first key whose number continues
                        // the prefix's last value with a fraction (another value), which sorts after every key that
                        // continues the prefix with a tag (at most 0x40). With one: above every key starting with the
                        // bound, which continues with a tag or a fraction 0xFF ‹8 bytes, not all 0xFF›.
                        let sentinel =
                            highKey == nil && !prefix.isEmpty
                            ? prefix + [KeyEncoding.fractionMarker]
                            : (highKey ?? prefix) + [UInt8](repeating: 0xFF, count: 10)
                        valid = try cursor.seek(atOrAfter: sentinel)
                        valid = valid ? try cursor.previous() : try cursor.last()
                    } else {
                        // A nested level's cursor, or the next prefix of an opening, is likely near its last entry.
                        let key = low == nil ? prefix : lowKey
                        valid = try nested || prefixPosition > 0
                            ? cursor.seekNearby(atOrAfter: key) : cursor.seek(atOrAfter: key)
                    }
                } else {
                    valid = descending ? try cursor.previous() : try cursor.next()
                }
                if valid {
                    let key = cursor.key
                    // The prefix is read only when there is one (reading the array element retains it). A key whose
                    // number continues the prefix with a fraction holds another value, and so does every later key.
                    if !prefixIsEmpty && !KeyEncoding.startsWithValues(key, prefixes[prefixPosition]) {
                        valid = false
                    } else if descending {
                        if low != nil, key.lexicographicallyPrecedes(lowKey) { valid = false }
                    } else if let highKey, highKey.lexicographicallyPrecedes(key), !key.starts(with: highKey) {
                        valid = false
                    }
                    if valid {
                        if try loadFromIndex(key, &row) { return true }
                        continue
                    }
                }
                prefixPosition += 1
                positioned = false
            }
            exhausted = true
            return false
        }
    }

    /// The cursor over the table tree (made on first use); nil when the table has no tree.
    private func tableTreeCursor() throws -> TreeCursor? {
        if let cursor { return cursor }
        guard let tree else { return nil }
        let made = try tree.makeCursor()
        cursor = made
        return made
    }

    /// Writes the rowid and first columns of `cursor`'s current row into `row`; false, writing nothing, when the
    /// row fails one of the ``rawFilters``.
    private func load(_ cursor: TreeCursor, _ row: inout [Value]) throws -> Bool {
        if countsOnly { return true }
        // Read once: the byte tests and the decoder use the same local payload.
        let decodesFirst = !firstColumns.isEmpty || !documentColumns.isEmpty
        let raw = rawFilters.isEmpty && !decodesFirst ? nil : try cursor.localPayload()
        // The byte tests come first: a row they reject costs no decoded value. Those on a document column read its
        // stored document, loaded before them.
        var loadedDocuments = false
        if !rawFilters.isEmpty, let raw {
            if documentsBeforeRawFilters {
                try resetDecoder(raw)
                try loadDocuments(&row)
                loadedDocuments = true
            }
            if !passesRawFilters(raw) { return false }
        }
        let rowid = cursor.rowid
        row[base + columnCount] = .integer(rowid)
        if let alias = rowidAlias { row[base + alias] = .integer(rowid) }
        if !restColumns.isEmpty {
            pendingRest = cursor
            pendingBytes = nil
        }
        guard decodesFirst else {
            // The decoder holds an earlier row: make ``loadRest(_:)`` load this one whatever its address.
            decoderLimit = 0
            return true
        }
        if let raw {
            if !restColumns.isEmpty { pendingBytes = raw }
            if loadedDocuments {
                try decode(firstColumns, &row)
            } else {
                try decodeFirst(raw, &row)
            }
        } else {
            try cursor.withPayload { try decodeFirst($0, &row) }
        }
        return true
    }

    /// Loads the encoded row `raw` into the decoder (its header up to ``firstLimit``) and writes ``firstColumns``
    /// and ``documentColumns``.
    private func decodeFirst(_ raw: UnsafeRawBufferPointer, _ row: inout [Value]) throws {
        try resetDecoder(raw)
        try decode(firstColumns, &row)
        if !documentColumns.isEmpty { try loadDocuments(&row) }
    }

    /// Loads the encoded row `raw` into the decoder, its header up to ``firstLimit``.
    @inline(__always)
    private func resetDecoder(_ raw: UnsafeRawBufferPointer) throws {
        try decoder.reset(raw, columnLimit: firstLimit)
        decoderLimit = firstLimit
    }

    /// Loads the ``documentColumns`` of the decoder's row into their ``documents`` (a column the row does not store
    /// gets its default value in its slot).
    private func loadDocuments(_ row: inout [Value]) throws {
        let count = decoder.count
        for k in documentColumns.indices {
            let c = documentColumns[k]
            if c < count {
                try documents[k].load(decoder, column: c, into: &row)
            } else {
                documents[k].set(defaults[c], into: &row)
            }
        }
    }

    /// Writes `columns` of the decoder's row into `row`.
    @inline(__always)
    private func decode(_ columns: [Int], _ row: inout [Value]) throws {
        // Local copies: reading the stored decoder for each column would retain and release its storage.
        let decoder = self.decoder
        let count = decoder.count
        let base = self.base
        for c in columns {
            row[base + c] = c < count ? try decoder.value(at: c) : defaults[c]
        }
    }

    /// Loads the row of the index entry `key` (the index cursor's current one); false when the entry's row is
    /// missing (a damaged index).
    private func loadFromIndex(_ key: [UInt8], _ row: inout [Value]) throws -> Bool {
        if covering {
            if !countsOnly { try key.withUnsafeBytes { try loadCovered($0, &row) } }
            return true
        }
        guard let rowid = try key.withUnsafeBytes({ try KeyEncoding.trailingInteger($0) }) else {
            throw StorageError.corrupt(page: 0, "index entry without a rowid")
        }
        // Through the unmanaged reference: a strong one would be retained and released for each row.
        return try tableCursor()._withUnsafeGuaranteedRef { tableCursor in
            guard try tableCursor.seek(rowid: rowid) else { return false }
            return try load(tableCursor, &row)
        }
    }

    /// Writes the columns a covering index entry holds, and its rowid (its last value), straight into their
    /// slots: the values before the last needed one are stepped through, the rest of the entry is not decoded.
    private func loadCovered(_ key: UnsafeRawBufferPointer, _ row: inout [Value]) throws {
        var offset = 0
        var position = 0
        var next = 0
        let wanted = coveringColumns
        while next < wanted.count, offset < key.count {
            // Integers (the usual indexed values) are read inline; any other value is decoded the general way.
            if case let (integer, end)? = KeyEncoding.integer(key, at: offset) {
                // The last value is the rowid: an entry with fewer values than the index has columns leaves the
                // missing ones as they were.
                guard end < key.count else { break }
                if wanted[next].key == position {
                    row[base + wanted[next].column] = wanted[next].real ? .real(Double(integer)) : .integer(integer)
                    next += 1
                }
                offset = end
                position += 1
                continue
            }
            let (value, end) = try KeyEncoding.value(key, at: offset)
            guard end < key.count else { break }
            if wanted[next].key == position {
                var v = value
                if wanted[next].real, case .integer(let i) = v { v = .real(Double(i)) }
                row[base + wanted[next].column] = v
                next += 1
            }
            offset = end
            position += 1
        }
        // The rowid is searched for from where the stepping stopped, at a value's start: the values before are
        // not read again. Mostly it is the one value left, an integer read inline.
        let rowid: Int64
        if case let (integer, end)? = KeyEncoding.integer(key, at: offset), end == key.count {
            rowid = integer
        } else if let trailing = try KeyEncoding.trailingInteger(UnsafeRawBufferPointer(rebasing: key[offset...])) {
            rowid = trailing
        } else {
            throw StorageError.corrupt(page: 0, "index entry without a rowid")
        }
        row[base + columnCount] = .integer(rowid)
        if let alias = rowidAlias { row[base + alias] = .integer(rowid) }
    }

    /// The cursor over the table tree that index entries are looked up in (made on first use), as an unmanaged
    /// reference (see ``rowCursor``).
    @inline(__always)
    private func tableCursor() throws -> Unmanaged<TreeCursor> {
        if let rowCursorReference { return rowCursorReference }
        guard let tree else { throw StorageError.corrupt(page: 0, "index without a table") }
        let c = try tree.makeCursor()
        rowCursor = c
        rowCursorReference = Unmanaged.passUnretained(c)
        return rowCursorReference!
    }
}
