// Which tree each damaged page of a file given to `granite recover` belonged to, as far as the surviving pages tell.
//
// A damaged page cannot say it itself (its bytes fail their checksum, and pages do not name their tree anyway), so
// the report ties it to a tree only through a page that survived: the schema row whose root it is, the readable
// interior page that points to it, or the leaf row whose overflow chain runs into it. A tree whose root was lost
// is told by the leaves found below its surviving interior pages, once they were placed in a table by their shape.
// Every other damaged page is reported as unattributed: it may have held rows of any table.

import GraniteStorage

/// What a damaged page is known to have belonged to.
enum DamagedPageOwner: Hashable {
    /// A table whose rows `granite recover` salvages, by name.
    case table(String)
    /// A tree whose rows are not salvaged as a table's: an index (created again from its table), the schema table,
    /// a table that could not be created again, or one of Granite's own tables.
    case tree(type: String, name: String)
}

/// The owner of every damaged page of a scan that the surviving pages tie to a tree, and the pages they tie to none.
struct DamageAttribution {
    /// The owners of the attributed damaged pages.
    private(set) var owners: [PageNumber: DamagedPageOwner] = [:]
    /// Damaged pages that no surviving page ties to a known tree, in page order.
    private(set) var unattributed: [PageNumber] = []
    /// The trees whose root page is damaged.
    private(set) var rootsLost: Set<DamagedPageOwner> = []

    /// Attributes the damaged pages of `scan`.
    ///
    /// - Parameters:
    ///   - roots: the trees of the schema rows that were read, by root page.
    ///   - placedLeaves: the table into which each salvaged leaf's rows went, by leaf page (by climbing to the
    ///     table's root, or by their column count when the pages above were lost).
    init(scan: SalvageScan, roots: [PageNumber: DamagedPageOwner], placedLeaves: [PageNumber: String]) {
        var tablesBelow: [PageNumber: Set<String>] = [:]
        var brokenOverflow: [PageNumber: String] = [:]
        for leaf in scan.tableLeaves {
            guard let table = placedLeaves[leaf.page] else { continue }
            tablesBelow[leaf.top, default: []].insert(table)
            for page in leaf.brokenOverflowPages { brokenOverflow[page] = table }
        }
        /// The tree whose top page is `top`: the schema's when it is a root, else the one table its leaves went to.
        func owner(top: PageNumber) -> DamagedPageOwner? {
            if let root = roots[top] { return root }
            guard let tables = tablesBelow[top], tables.count == 1, let table = tables.first else { return nil }
            return .table(table)
        }
        var topAbove: [PageNumber: PageNumber] = [:]
        for (top, children) in scan.lostChildren {
            for child in children { topAbove[child] = top }
        }
        for page in scan.damagedPages.sorted() {
            if let root = roots[page] { rootsLost.insert(root) }
            let byParent = topAbove[page].flatMap(owner(top:))
            if let found = roots[page] ?? byParent ?? brokenOverflow[page].map({ .table($0) }) {
                owners[page] = found
            } else {
                unattributed.append(page)
            }
        }
    }

    /// The number of damaged pages attributed to `owner`.
    func pagesLost(by owner: DamagedPageOwner) -> Int {
        owners.values.count(where: { $0 == owner })
    }
}
