/// An open-addressing hash map from page number to cache frame.
///
/// Linear probing with backward-shift deletion; page number 0 marks an empty
/// slot. Faster than `Dictionary` on the pager's hot path.
struct PageTable {
    private var keys: [PageNumber]
    private var values: [Int32]
    private var mask: Int
    private(set) var count = 0

    init(minimumCapacity: Int) {
        var size = 16
        while size < minimumCapacity * 2 { size <<= 1 }
        keys = [PageNumber](repeating: 0, count: size)
        values = [Int32](repeating: -1, count: size)
        mask = size - 1
    }

    @inline(__always) private func slot(for key: PageNumber) -> Int {
        Int(truncatingIfNeeded: (UInt64(key) &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }

    func find(_ key: PageNumber) -> Int32? {
        var i = slot(for: key)
        while true {
            let k = keys[i]
            if k == key { return values[i] }
            if k == 0 { return nil }
            i = (i + 1) & mask
        }
    }

    mutating func insert(_ key: PageNumber, _ value: Int32) {
        if (count + 1) * 2 > keys.count { grow() }
        var i = slot(for: key)
        while keys[i] != 0 && keys[i] != key { i = (i + 1) & mask }
        if keys[i] == 0 { count += 1 }
        keys[i] = key
        values[i] = value
    }

    mutating func remove(_ key: PageNumber) {
        var i = slot(for: key)
        while keys[i] != key {
            if keys[i] == 0 { return }
            i = (i + 1) & mask
        }
        count -= 1
        // Backward-shift: move later entries of the probe run into the hole.
        var hole = i
        var j = (i + 1) & mask
        while keys[j] != 0 {
            let home = slot(for: keys[j])
            let distanceFromHome = (j - home) & mask
            let distanceFromHole = (j - hole) & mask
            if distanceFromHome >= distanceFromHole {
                keys[hole] = keys[j]
                values[hole] = values[j]
                hole = j
            }
            j = (j + 1) & mask
        }
        keys[hole] = 0
        values[hole] = -1
    }

    mutating func removeAll() {
        for i in keys.indices { keys[i] = 0 }
        count = 0
    }

    private mutating func grow() {
        let oldKeys = keys
        let oldValues = values
        keys = [PageNumber](repeating: 0, count: oldKeys.count * 2)
        values = [Int32](repeating: -1, count: oldKeys.count * 2)
        mask = keys.count - 1
        count = 0
        for (k, v) in zip(oldKeys, oldValues) where k != 0 { insert(k, v) }
    }
}
