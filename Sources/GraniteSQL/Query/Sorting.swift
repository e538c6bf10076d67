// A stable merge sort, for orderings that must keep equal elements in their order.

/// Sorting helpers.
enum Sorting {
    /// Merge sort (stable, unlike the standard library's sort's documented contract).
    static func stableSorted<T>(_ items: [T], by less: (T, T) -> Bool) -> [T] {
        if items.count <= 1 { return items }
        var source = items
        var target = items
        var width = 1
        let n = items.count
        while width < n {
            var start = 0
            while start < n {
                let middle = min(start + width, n)
                let end = min(start + 2 * width, n)
                var i = start
                var j = middle
                var k = start
                while i < middle && j < end {
                    if less(source[j], source[i]) {
                        target[k] = source[j]
                        j += 1
                    } else {
                        target[k] = source[i]
                        i += 1
                    }
                    k += 1
                }
                while i < middle {
                    target[k] = source[i]
                    i += 1
                    k += 1
                }
                while j < end {
                    target[k] = source[j]
                    j += 1
                    k += 1
                }
                start = end
            }
            swap(&source, &target)
            width *= 2
        }
        return source
    }
}
