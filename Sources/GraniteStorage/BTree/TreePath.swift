/// The pages visited from a tree's root down to a leaf, with the cell index
/// taken at each level (an index equal to the cell count means the right child).
final class TreePath {
    /// The deepest tree accepted; deeper means a pointer cycle.
    static let maximumDepth = 40

    var pages: [PageNumber] = []
    var indices: [Int] = []

    init() {
        pages.reserveCapacity(TreePath.maximumDepth)
        indices.reserveCapacity(TreePath.maximumDepth)
    }

    var count: Int { pages.count }

    func reset() {
        pages.removeAll(keepingCapacity: true)
        indices.removeAll(keepingCapacity: true)
    }

    func push(_ page: PageNumber, _ index: Int) {
        pages.append(page)
        indices.append(index)
    }
}
