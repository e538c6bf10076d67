import XCTest

@testable import GraniteStorage

/// The pure planner of the multi-page leaf balance (`LeafBalancePlan`): cell sizes in, page cuts out. Table-driven
/// cases worked by hand, then random windows checked against the rules: every page fits, the page count is the
/// packed count (one more than the window on overflow, never more than the cells), and each cut is the first cell
/// whose middle passes its share of the bytes unless the page would overflow first.
final class LeafBalancePlanTests: XCTestCase {
    struct Case {
        var sizes: [Int]
        var area: Int
        var window: Int
        var overflowing: Bool
        var starts: [Int]?
        var line: UInt = #line
    }

    func testHandWorkedCases() {
        let cases = [
            // Six 20-byte cells (with pointers) in 100-byte pages: packed in 2, one leaf overflowing into 2.
            Case(sizes: Array(repeating: 18, count: 6), area: 100, window: 1, overflowing: true, starts: [0, 3, 6]),
            // The same from a window of two: three pages of two cells.
            Case(sizes: Array(repeating: 18, count: 6), area: 100, window: 2, overflowing: true, starts: [0, 2, 4, 6]),
            // Underflow: three small cells from three leaves go into one page.
            Case(sizes: [8, 8, 8], area: 100, window: 3, overflowing: false, starts: [0, 3]),
            // Underflow: 3 × 50 bytes need two pages; the cut at the middle of the bytes gives 100 + 50.
            Case(sizes: [48, 48, 48], area: 100, window: 3, overflowing: false, starts: [0, 2, 3]),
            // Uneven sizes: the cut falls after the large cell, where the running middle passes half.
            Case(sizes: [10, 70, 10, 10], area: 100, window: 2, overflowing: false, starts: [0, 2, 4]),
            // Overflow wants three pages but there are only two cells: one page each.
            Case(sizes: [98, 98], area: 100, window: 2, overflowing: true, starts: [0, 1, 2]),
            // A cell larger than a page: nothing fits.
            Case(sizes: [99, 99], area: 100, window: 2, overflowing: false, starts: nil),
            // No cells: nothing to plan.
            Case(sizes: [], area: 100, window: 2, overflowing: false, starts: nil),
        ]
        for c in cases {
            let plan = LeafBalancePlan.plan(
                cellSizes: c.sizes, area: c.area, windowPages: c.window, overflowing: c.overflowing)
            XCTAssertEqual(plan?.starts, c.starts, "sizes \(c.sizes)", line: c.line)
        }
    }

    func testRandomWindowsFollowTheRules() {
        var rng = SplitMix64(seed: 17)
        for _ in 0..<2000 {
            let area = 200 + Int(rng.next(below: 4000))
            let window = 1 + Int(rng.next(below: 5))
            let overflowing = rng.next(below: 2) == 0
            let largest = 1 + Int(rng.next(below: UInt64(area / 4)))
            let count = Int(rng.next(below: UInt64(window * area / (largest + 2) + 2)))
            let sizes = (0..<count).map { _ in Int(rng.next(below: UInt64(largest))) }
            let context = "area \(area), window \(window), overflowing \(overflowing), sizes \(sizes)"
            let plan = LeafBalancePlan.plan(
                cellSizes: sizes, area: area, windowPages: window, overflowing: overflowing)
            let expected = expectedStarts(sizes: sizes, area: area, window: window, overflowing: overflowing)
            XCTAssertEqual(plan?.starts, expected, context)
            if let plan { checkPagesFit(plan, sizes: sizes, area: area, context) }
        }
    }

    /// The cuts by the rules, restated: as many pages as packing needs (at least one more than the window on
    /// overflow, at most one per cell); a page ends before the first cell (after its own first) that would overflow
    /// it or whose middle passes the page's share of all the bytes; nil when the last page overflows or no cells.
    func expectedStarts(sizes: [Int], area: Int, window: Int, overflowing: Bool) -> [Int]? {
        guard !sizes.isEmpty else { return nil }
        let bytes = sizes.map { $0 + 2 }
        var packed = 1
        var fill = 0
        for size in bytes {
            if fill + size > area {
                packed += 1
                fill = 0
            }
            fill += size
        }
        let pages = min(overflowing ? max(packed, window + 1) : packed, sizes.count)
        let total = bytes.reduce(0, +)
        var starts = [0]
        for i in bytes.indices {
            let pageStart = starts.last!
            let running = bytes[pageStart..<i].reduce(0, +)
            let before = bytes[0..<i].reduce(0, +)
            let j = starts.count
            if i > pageStart && j < pages
                && (running + bytes[i] > area || (2 * before + bytes[i]) * pages > 2 * total * j)
            {
                starts.append(i)
            }
        }
        guard bytes[starts.last!...].reduce(0, +) <= area else { return nil }
        return starts + [sizes.count]
    }

    func checkPagesFit(_ plan: LeafBalancePlan, sizes: [Int], area: Int, _ context: String) {
        let bytes = sizes.map { $0 + 2 }
        for j in 0..<plan.pageCount {
            let page = plan.starts[j]..<plan.starts[j + 1]
            XCTAssertFalse(page.isEmpty, "no empty page, \(context)")
            XCTAssertLessThanOrEqual(bytes[page].reduce(0, +), area, "page \(j) fits, \(context)")
        }
        XCTAssertGreaterThanOrEqual(
            plan.pageCount, LeafBalancePlan.packedPageCount(cellSizes: sizes, area: area).pages, context)
    }
}
