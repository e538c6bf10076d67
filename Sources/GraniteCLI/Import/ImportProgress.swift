// The progress line `granite import` keeps up to date on a terminal: rows so far, rows per second, and the share
// of the input read when its size is known.

import Foundation

/// Redraws one status line on standard error, at most four times a second, when standard error is a terminal.
final class ImportProgress {
    private let isTerminal = isatty(STDERR_FILENO) != 0
    /// The input's size in bytes, if known (a pipe's is not).
    private let totalBytes: Int64?
    private let started = Date()
    private var lastDrawn = Date.distantPast
    private var drewLine = false
    /// Checking the clock on every row would cost more than the row; it is read every `interval` rows.
    private static let interval = 512

    init(totalBytes: Int64?) {
        self.totalBytes = totalBytes
    }

    /// Notes that `rows` rows were loaded from the first `bytesRead` bytes.
    func update(rows: Int, bytesRead: Int64) {
        guard isTerminal, rows % Self.interval == 0 else { return }
        let now = Date()
        guard now.timeIntervalSince(lastDrawn) >= 0.25 else { return }
        lastDrawn = now
        draw(rows: rows, bytesRead: bytesRead, now: now)
    }

    /// Clears the status line (before the final report or an error message).
    func finish() {
        guard drewLine else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        drewLine = false
    }

    private func draw(rows: Int, bytesRead: Int64, now: Date) {
        let seconds = max(now.timeIntervalSince(started), 0.001)
        var line = "\r\u{1B}[K\(grouped(rows)) rows, \(grouped(Int(Double(rows) / seconds))) rows/s"
        if let totalBytes, totalBytes > 0 {
            line += String(format: ", %.0f%%", min(100, Double(bytesRead) * 100 / Double(totalBytes)))
        }
        FileHandle.standardError.write(Data(line.utf8))
        drewLine = true
    }

    /// Seconds since the import started.
    var elapsed: Double { Date().timeIntervalSince(started) }
}
