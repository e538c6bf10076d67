/// An open-addressing hash map from page number to cache frame.
///
/// Linear probing with backward-shift deletion; page number 0 marks an empty
/// slot. Storage sits behind raw pointers so lookups on the pager's hot path
/// pay no reallocation or exclusivity checks.
final class PageTable {
    @exclusivity(unchecked) private var keys: UnsafeMutablePointer<PageNumber>
    @exclusivity(unchecked) private var values: UnsafeMutablePointer<Int32>
    @exclusivity(unchecked) private var size: Int
    @exclusivity(unchecked) private var mask: Int
    @exclusivity(unchecked) private(set) var count = 0

    init(minimumCapacity: Int) {
        var size = 16
        while size < minimumCapacity * 2 { size <<= 1 }
        self.size = size
        mask = size - 1
        keys = .allocate(capacity: size)
        keys.initialize(repeating: 0, count: size)
        values = .allocate(capacity: size)
        values.initialize(repeating: -1, count: size)
    }

    deinit {
        keys.deallocate()
        values.deallocate()
    }

    @inline(__always) private func slot(for key: PageNumber) -> Int {
        Int(truncatingIfNeeded: (UInt64(key) &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }

    @inline(__always)
    func find(_ key: PageNumber) -> Int32? {
        var i = slot(for: key)
        while true {
            let k = keys[i]
            if k == key { return values[i] }
            if k == 0 { return nil }
            i = (i + 1) & mask
        }
    }

    func insert(_ key: PageNumber, _ value: Int32) {
        if (count + 1) * 2 > size { grow() }
        var i = slot(for: key)
        while keys[i] != 0 && keys[i] != key { i = (i + 1) & mask }
        if keys[i] == 0 { count += 1 }
        keys[i] = key
        values[i] = value
    }

    func remove(_ key: PageNumber) {
        var i = slot(for: key)
        while keys[i] != key {
            if keys[i] == 0 { return }
            i = (i + 1) & mask
        }
        count -= 1
        // Backward shift: move later entries of the probe run into the hole.
        var hole = i
        var j = (i + 1) & mask
        while keys[j] != 0 {
            let home = slot(for: keys[j])
            if (j - home) & mask >= (j - hole) & mask {
                keys[hole] = keys[j]
                values[hole] = values[j]
                hole = j
            }
            j = (j + 1) & mask
        }
        keys[hole] = 0
        values[hole] = -1
    }

    func removeAll() {
        keys.update(repeating: 0, count: size)
        values.update(repeating: -1, count: size)
        count = 0
    }

    private func grow() {
        let oldKeys = keys
        let oldValues = values
        let oldSize = size
        size *= 2
        mask = size - 1
        keys = .allocate(capacity: size)
        keys.initialize(repeating: 0, count: size)
        values = .allocate(capacity: size)
        values.initialize(repeating: -1, count: size)
        count = 0
        for i in 0..<oldSize where oldKeys[i] != 0 { insert(oldKeys[i], oldValues[i]) }
        oldKeys.deallocate()
        oldValues.deallocate()
    }
}
