/// The pages visited from a tree's root down to a leaf, with the cell index
/// taken at each level (an index equal to the cell count means the right child).
///
/// Fixed-capacity storage behind raw pointers: hot paths index it without
/// reallocation or exclusivity checks.
final class TreePath {
    /// The deepest tree accepted; deeper means a pointer cycle.
    static let maximumDepth = 40

    let pages: UnsafeMutablePointer<PageNumber>
    let indices: UnsafeMutablePointer<Int>
    @exclusivity(unchecked) private(set) var count = 0

    init() {
        pages = .allocate(capacity: TreePath.maximumDepth + 1)
        indices = .allocate(capacity: TreePath.maximumDepth + 1)
    }

    deinit {
        pages.deallocate()
        indices.deallocate()
    }

    @inline(__always) func reset() { count = 0 }

    @inline(__always) func push(_ page: PageNumber, _ index: Int) {
        pages[count] = page
        indices[count] = index
        count += 1
    }

    /// Keeps the first `newCount` levels.
    @inline(__always) func truncate(to newCount: Int) { count = newCount }

    /// The page and index of the deepest level.
    var leafPage: PageNumber { pages[count - 1] }

    /// Inserts a level at `position`, shifting deeper levels down.
    func insert(_ page: PageNumber, _ index: Int, at position: Int) {
        var i = count
        while i > position {
            pages[i] = pages[i - 1]
            indices[i] = indices[i - 1]
            i -= 1
        }
        pages[position] = page
        indices[position] = index
        count += 1
    }
}
