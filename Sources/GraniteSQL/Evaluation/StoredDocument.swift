// A table column that a query reads only as a JSON document: its stored TEXT bytes serve the JSON calls, and no
// String is made of them.

import GraniteStorage

/// The current row's value of one table column that the query reads only as the document of located JSON calls
/// (`json_extract(c, 'path')`, `c -> 'path'`, `c ->> 'path'`) and of `json_each` / `json_tree` (see
/// `SelectProgram.documentColumns`). When the stored value is TEXT, its bytes (inflated when compressed) are kept
/// here and the column's slot holds NULL: those calls read the same bytes a decoded TEXT value would give them,
/// without the UTF-8 check and the `String` that decoding makes. Any other value is decoded into the slot as
/// usual, and the calls read it there.
///
/// Made by the table cursor that fills the column and shared, through the evaluation context's
/// ``JSONLocationCache``, with the calls that read it; only that query run uses it, one call at a time, so its
/// state skips dynamic exclusivity checks.
final class StoredDocument {
    /// The row slot of the column.
    let slot: Int
    @exclusivity(unchecked) private var storage = TextStorage()
    @exclusivity(unchecked) private var count = 0
    /// Whether the current row's value is TEXT whose bytes ``text`` holds (the slot then holds NULL).
    @exclusivity(unchecked) private(set) var holdsText = false
    /// Changes with every row loaded, so that what was found in one row's text is known to be of that row without
    /// comparing the bytes (see `JSONLocationCache.locate(_:in:)`).
    @exclusivity(unchecked) private(set) var generation: UInt64 = 0

    init(slot: Int) {
        self.slot = slot
    }

    deinit {
        storage.release()
    }

    /// The current row's TEXT bytes (meaningful while ``holdsText``).
    var text: UnsafeBufferPointer<UInt8> { storage.bytes(count) }

    /// Loads column `column` of `decoder`'s row: the bytes of a TEXT, else the value into `row`'s slot.
    ///
    /// - Throws: ``StorageError/malformed(_:)`` when a compressed text's stream is damaged.
    @inline(__always)
    func load(_ decoder: RowDecoder, column: Int, into row: inout [Value]) throws {
        generation &+= 1
        if let length = try decoder.copyText(at: column, into: &storage) {
            storage.shrink(keeping: length)
            count = length
            holdsText = true
            row[slot] = .null
        } else {
            holdsText = false
            row[slot] = try decoder.value(at: column)
        }
    }

    /// Makes the slot's `value` the current row's (a column the row does not store, or the NULL row of an
    /// unmatched `LEFT JOIN`).
    func set(_ value: Value, into row: inout [Value]) {
        generation &+= 1
        holdsText = false
        row[slot] = value
    }
}

extension JSONLocationCache {
    /// The stored document that fills `slot` for this cache's evaluation context, made on first request.
    func storedDocument(slot: Int) -> StoredDocument {
        if let existing = documents.first(where: { $0.slot == slot }) { return existing }
        let made = StoredDocument(slot: slot)
        documents.append(made)
        return made
    }

    /// The stored document of `slot` when a table cursor keeps the current row's TEXT there instead of a value in
    /// the slot; nil when the slot holds the value.
    @inline(__always)
    func storedDocument(holdingTextIn slot: Int) -> StoredDocument? {
        for document in documents where document.slot == slot {
            return document.holdsText ? document : nil
        }
        return nil
    }

    /// The TEXT bytes of the current row's document in `slot` (see ``storedDocument(holdingTextIn:)``).
    @inline(__always)
    func storedText(slot: Int) -> UnsafeBufferPointer<UInt8>? {
        storedDocument(holdingTextIn: slot)?.text
    }
}
