// The writer's policy of FORMAT.md § "When a writer compresses": which long texts of a column are tried
// compressed, given how the column's earlier attempts went.

/// Remembers, per column of the rows one writer encodes, how its recent attempts to compress short texts went,
/// and skips such attempts on a column whose short texts keep failing to shrink.
///
/// A text shorter than ``shortTextLimit`` is deflated as one block with fixed codes (see
/// ``DeflateEncoder/earlyCheckBelow``), so it shrinks only through repeated substrings; an attempt that fails
/// costs a good part of the row's whole insert. The texts of one column tend to
/// be alike: a column of short JSON objects without repeated substrings fails on almost every value. After
/// ``failuresBeforeSkipping`` failures in a row on a column's short texts, the writer skips that column's next
/// short text, then (after each further failure) twice as many, up to ``longestSkip`` between attempts; one
/// success makes it try every short text again. Longer texts, whose savings can be large, are always tried.
/// A column of incompressible short text thus costs one attempt in 65 values, and a column whose short texts
/// compress is tried on every value. The choice changes only whether a value is stored plain or compressed:
/// readers see the same text either way.
///
/// ```swift
/// var backoff = CompressionBackoff()
/// if backoff.admitsAttempt(column: 2, length: utf8.count) {
///     let compressed = tryToCompress(utf8)
///     backoff.record(column: 2, length: utf8.count, compressed: compressed)
/// }
/// ```
package struct CompressionBackoff: Sendable {
    /// The failed attempts in a row on one column before its values start being skipped.
    package static let failuresBeforeSkipping = 8
    /// The most values of a column skipped between two attempts.
    package static let longestSkip = 64
    /// The UTF-8 length from which a text is always tried: the length from which the encoder may use dynamic
    /// codes.
    package static let shortTextLimit = DeflateEncoder.earlyCheckBelow

    /// Per column: the attempts that failed since the last success (saturating at 255), and the values still
    /// to skip before the next attempt.
    private var failuresInARow: [UInt8] = []
    private var valuesToSkip: [UInt8] = []
    /// Whether this backoff ever skips (a disabled one admits every attempt and records nothing).
    private let isEnabled: Bool

    /// A backoff that skips attempts on failing columns, with no history yet.
    package init() {
        isEnabled = true
    }

    private init(isEnabled: Bool) {
        self.isEnabled = isEnabled
    }

    /// A backoff that admits every attempt: each text is tried on its own, whatever came before.
    package static var disabled: CompressionBackoff { CompressionBackoff(isEnabled: false) }

    /// Whether the text of `length` UTF-8 bytes about to be written into `column` (one long enough for the
    /// encoder's threshold) should be tried compressed; a `false` counts as one of the values skipped.
    @inline(__always)
    package mutating func admitsAttempt(column: Int, length: Int) -> Bool {
        guard isEnabled, length < Self.shortTextLimit, column < valuesToSkip.count, valuesToSkip[column] > 0
        else { return true }
        valuesToSkip[column] -= 1
        return false
    }

    /// Records how an attempt on a text of `length` UTF-8 bytes in `column` went: whether it was stored
    /// compressed.
    @inline(__always)
    package mutating func record(column: Int, length: Int, compressed: Bool) {
        guard isEnabled, length < Self.shortTextLimit else { return }
        if compressed {
            if column < failuresInARow.count { failuresInARow[column] = 0 }
            return
        }
        recordFailure(column: column)
    }

    private mutating func recordFailure(column: Int) {
        if column >= failuresInARow.count {
            failuresInARow.append(contentsOf: repeatElement(0, count: column + 1 - failuresInARow.count))
            valuesToSkip.append(contentsOf: repeatElement(0, count: column + 1 - valuesToSkip.count))
        }
        let failures = Int(failuresInARow[column]) + 1
        failuresInARow[column] = UInt8(min(failures, Int(UInt8.max)))
        let beyond = failures - Self.failuresBeforeSkipping
        guard beyond >= 0 else { return }
        valuesToSkip[column] = UInt8(min(1 << min(beyond, 7), Self.longestSkip))
    }
}
