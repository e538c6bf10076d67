// Checking stored TEXT bytes for UTF-8 validity without making a string of them.

extension CodecBytes {
    /// Whether `bytes` are well-formed UTF-8 (Unicode § 3.9, table 3-7): no overlong forms, no surrogates
    /// (U+D800–U+DFFF), nothing above U+10FFFF, no truncated or stray continuation bytes; exactly the texts
    /// `String(validating:as:)` accepts.
    ///
    /// Runs of ASCII are skipped eight bytes at a time, so a text that is mostly ASCII costs about as much as
    /// ``isASCII(_:)``.
    package static func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let p = base.assumingMemoryBound(to: UInt8.self)
        let n = bytes.count
        var i = 0
        while i < n {
            if n - i >= 8 && base.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                i += 8
                continue
            }
            let lead = p[i]
            if lead < 0x80 {
                i += 1
                continue
            }
            guard let width = sequenceWidth(lead), n - i >= width else { return false }
            // The second byte's range depends on the lead; the others are any continuation byte.
            let (low, high) = secondByteRange(lead)
            guard p[i + 1] >= low && p[i + 1] <= high else { return false }
            var k = 2
            while k < width {
                guard p[i + k] & 0xC0 == 0x80 else { return false }
                k += 1
            }
            i += width
        }
        return true
    }

    /// The length of the sequence a non-ASCII `lead` byte starts, or nil when it cannot start one (a
    /// continuation byte, the overlong leads C0 and C1, or F5–FF).
    @inline(__always)
    private static func sequenceWidth(_ lead: UInt8) -> Int? {
        switch lead {
        case 0xC2...0xDF: return 2
        case 0xE0...0xEF: return 3
        case 0xF0...0xF4: return 4
        default: return nil
        }
    }

    /// The allowed range of the byte after `lead`: narrower after E0 (no overlong), ED (no surrogate), F0 (no
    /// overlong) and F4 (nothing above U+10FFFF).
    @inline(__always)
    private static func secondByteRange(_ lead: UInt8) -> (UInt8, UInt8) {
        switch lead {
        case 0xE0: return (0xA0, 0xBF)
        case 0xED: return (0x80, 0x9F)
        case 0xF0: return (0x90, 0xBF)
        case 0xF4: return (0x80, 0x8F)
        default: return (0x80, 0xBF)
        }
    }
}
