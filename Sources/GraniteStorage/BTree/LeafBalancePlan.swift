// The planning half of the multi-page leaf balance (LeafBalance.swift): given the sizes of the cells of a window
// of sibling leaves and the page geometry, how many pages they take and where each page begins. A pure function,
// as bbolt plans a split with `splitIndex` before `split` applies it, so that the rules can be tested on sizes
// alone.

/// Where a multi-page balance of table leaves cuts a run of cells into pages.
struct LeafBalancePlan: Equatable {
    /// The index of each page's first cell, then the number of cells: page `j` holds cells
    /// `starts[j]..<starts[j + 1]`.
    var starts: [Int]

    /// The number of pages the cells are spread over.
    var pageCount: Int { starts.count - 1 }

    /// Plans the pages for cells of `cellSizes` bytes (each also takes a 2-byte pointer) in a content area of `area`
    /// bytes per page, taken from a window of `windowPages` leaves.
    ///
    /// The page count is the fewest pages that hold the cells packed in order; when `overflowing` (a full leaf
    /// taking one more cell) at least one more than the window had, so that each page ends about five-sixths full;
    /// never more pages than cells. The cuts are even: page `j` ends where the running total of bytes passes
    /// `(j + 1) / pageCount` of the whole, measured at the middle of the cell that crosses it, or earlier when the
    /// next cell would not fit. Returns nil when there are no cells or the last page would overflow (no even
    /// distribution fits).
    static func plan<Sizes: Collection<Int>>(
        cellSizes: Sizes, area: Int, windowPages: Int, overflowing: Bool
    ) -> LeafBalancePlan? {
        guard !cellSizes.isEmpty else { return nil }
        let packed = packedPageCount(cellSizes: cellSizes, area: area)
        let pageCount = min(overflowing ? max(packed.pages, windowPages + 1) : packed.pages, cellSizes.count)
        return evenCuts(cellSizes: cellSizes, area: area, pageCount: pageCount, totalBytes: packed.totalBytes)
    }

    /// The pages the cells take packed in order, each filled until the next cell does not fit, and their total
    /// bytes with pointers.
    static func packedPageCount<Sizes: Collection<Int>>(
        cellSizes: Sizes, area: Int
    ) -> (pages: Int, totalBytes: Int) {
        var total = 0
        var pages = 1
        var running = 0
        for cellSize in cellSizes {
            let size = cellSize + 2
            if running + size > area {
                pages += 1
                running = 0
            }
            running += size
            total += size
        }
        return (pages, total)
    }

    /// Cuts the cells into at most `pageCount` pages of nearly equal bytes (see ``plan(cellSizes:area:windowPages:overflowing:)``);
    /// nil when the last page overflows.
    static func evenCuts<Sizes: Collection<Int>>(
        cellSizes: Sizes, area: Int, pageCount: Int, totalBytes: Int
    ) -> LeafBalancePlan? {
        var starts = [0]
        starts.reserveCapacity(pageCount + 1)
        var running = 0
        var cumulative = 0
        var index = 0
        for cellSize in cellSizes {
            let size = cellSize + 2
            if running > 0 && starts.count < pageCount
                && (running + size > area || (2 * cumulative + size) * pageCount > 2 * totalBytes * starts.count)
            {
                starts.append(index)
                running = 0
            }
            running += size
            cumulative += size
            index += 1
        }
        guard running <= area else { return nil }
        starts.append(index)
        return LeafBalancePlan(starts: starts)
    }
}
