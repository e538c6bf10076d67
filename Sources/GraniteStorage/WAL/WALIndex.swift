/// Where each committed frame of the log is, by page: the in-memory index
/// shared by the connections of one database (rebuilt from the log on open).
///
/// A value type: a reader copies it when its snapshot begins, so later
/// commits never change what the reader sees.
struct WALIndex {
    /// Committed frames (frames `0 ..< frameCount` are visible).
    private(set) var frameCount = 0
    /// The page held by each committed frame.
    private(set) var framePages: [PageNumber] = []
    /// For each page, its frames in ascending order.
    private var pageFrames: [PageNumber: [Int32]] = [:]
    /// Frame count and database size after each commit, in order.
    private(set) var commits: [(frameCount: Int, databaseSize: UInt32)] = []
    /// The cumulative checksum of the last committed frame.
    private(set) var lastChecksum: UInt64 = 0

    /// The newest frame below `limit` holding `page`, if any.
    func frame(for page: PageNumber, below limit: Int) -> Int? {
        guard let frames = pageFrames[page] else { return nil }
        // Frames are ascending; most lookups want the last one.
        var i = frames.count - 1
        while i >= 0 {
            if Int(frames[i]) < limit { return Int(frames[i]) }
            i -= 1
        }
        return nil
    }

    /// The database size in pages after the last commit within the first
    /// `limit` frames, or nil when no commit lies there.
    func databaseSize(below limit: Int) -> UInt32? {
        var i = commits.count - 1
        while i >= 0 {
            if commits[i].frameCount <= limit { return commits[i].databaseSize }
            i -= 1
        }
        return nil
    }

    /// Publishes frames `frameCount ..< frameCount + pages.count` as one
    /// committed transaction.
    mutating func commit(pages: [PageNumber], databaseSize: UInt32, checksum: UInt64) {
        for page in pages {
            pageFrames[page, default: []].append(Int32(frameCount))
            framePages.append(page)
            frameCount += 1
        }
        commits.append((frameCount, databaseSize))
        lastChecksum = checksum
    }

    /// Every page with a frame below `limit`, with its newest such frame.
    func latestFrames(below limit: Int) -> [(page: PageNumber, frame: Int)] {
        var result: [(PageNumber, Int)] = []
        for (page, _) in pageFrames {
            if let f = frame(for: page, below: limit) { result.append((page, f)) }
        }
        return result.sorted { $0.0 < $1.0 }
    }
}
