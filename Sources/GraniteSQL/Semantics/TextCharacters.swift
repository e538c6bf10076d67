/// How SQLite's text functions split UTF-8 bytes into characters, whether or not the bytes are valid UTF-8.
///
/// SQLite keeps any bytes in a TEXT (`CAST(x'e5' AS TEXT)`) and never validates them: a character starts at
/// any byte, and a lead byte of 0xC0 or above takes every continuation byte (0x80–0xBF) that follows it, however
/// many. A stray continuation byte is a character of its own. Text ends at its first NUL byte for the functions
/// that read it as a C string (`length`, `substr`, `unicode`, `LIKE`, …). On valid UTF-8 these rules give
/// exactly the Unicode scalars, so the functions behave the same on both representations of TEXT.
package enum SQLTextCharacters {
    /// The offset just after the character that starts at `offset` (`SQLITE_SKIP_UTF8`).
    @inline(__always)
    package static func characterEnd(_ bytes: [UInt8], from offset: Int) -> Int {
        var i = offset + 1
        if bytes[offset] >= 0xC0 {
            while i < bytes.count && bytes[i] & 0xC0 == 0x80 { i += 1 }
        }
        return i
    }

    /// The number of bytes before the first NUL (all of them if there is none).
    package static func lengthBeforeNUL(_ bytes: [UInt8]) -> Int {
        bytes.firstIndex(of: 0) ?? bytes.count
    }

    /// How many characters come before the first NUL.
    package static func count(_ bytes: [UInt8]) -> Int {
        let end = lengthBeforeNUL(bytes)
        var n = 0
        var i = 0
        while i < end {
            i = characterEnd(bytes, from: i)
            n += 1
        }
        return n
    }

    /// The start offsets of the characters before the first NUL, followed by the offset of that end.
    package static func boundaries(_ bytes: [UInt8]) -> [Int] {
        let end = lengthBeforeNUL(bytes)
        var starts: [Int] = []
        var i = 0
        while i < end {
            starts.append(i)
            i = characterEnd(bytes, from: i)
        }
        starts.append(Swift.min(i, end))
        return starts
    }

    /// The code point of the character at `offset`, advancing `offset` past it (`sqlite3Utf8Read`).
    ///
    /// A lead byte's payload bits are shifted in with every continuation byte (wrapping, as the C `u32` does);
    /// a multi-byte result below 0x80, a surrogate, or U+FFFE/U+FFFF reads as U+FFFD. A stray continuation
    /// byte or a byte 0xF8 or above reads as its own value or the table's few payload bits.
    package static func read(_ bytes: [UInt8], at offset: inout Int) -> UInt32 {
        var c = UInt32(bytes[offset])
        offset += 1
        guard c >= 0xC0 else { return c }
        c = leadPayload(UInt8(c))
        while offset < bytes.count && bytes[offset] & 0xC0 == 0x80 {
            c = (c &<< 6) &+ UInt32(bytes[offset] & 0x3F)
            offset += 1
        }
        if c < 0x80 || c & 0xFFFF_F800 == 0xD800 || c & 0xFFFF_FFFE == 0xFFFE { c = 0xFFFD }
        return c
    }

    /// The code points before the first NUL, then a 0 terminator.
    package static func codePoints(_ bytes: [UInt8]) -> [UInt32] {
        let end = lengthBeforeNUL(bytes)
        var out: [UInt32] = []
        out.reserveCapacity(end + 1)
        var i = 0
        while i < end {
            out.append(read(bytes, at: &i))
        }
        out.append(0)
        return out
    }

    /// The payload bits of a lead byte 0xC0–0xFF (`sqlite3Utf8Trans1`).
    @inline(__always)
    private static func leadPayload(_ lead: UInt8) -> UInt32 {
        switch lead {
        case 0xC0...0xDF: return UInt32(lead & 0x1F)
        case 0xE0...0xEF: return UInt32(lead & 0x0F)
        case 0xF0...0xF7: return UInt32(lead & 0x07)
        case 0xF8...0xFB: return UInt32(lead & 0x03)
        case 0xFC...0xFD: return UInt32(lead & 0x01)
        default: return 0
        }
    }
}
