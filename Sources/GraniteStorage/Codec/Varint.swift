// Implements FORMAT.md § "Varints": unsigned LEB128, 1 to 10 bytes.

/// Unsigned LEB128 variable-length integers, as used throughout the format.
///
/// Seven bits per byte, least significant group first; the high bit of a byte
/// is set when another byte follows. A 64-bit value takes 1 to 10 bytes; a
/// decoder rejects encodings longer than 10 bytes or whose tenth byte carries
/// more than the single remaining bit.
@usableFromInline package enum Varint {
    /// The largest number of bytes an encoded value can take.
    package static let maxLength = 10

    /// The number of bytes `value` takes when encoded.
    @inlinable
    package static func length(of value: UInt64) -> Int {
        if value < 0x80 { return 1 }
        let bits = 64 - value.leadingZeroBitCount
        return (bits + 6) / 7
    }

    /// Writes `value` at `pointer` and returns the number of bytes written.
    /// The caller guarantees `length(of: value)` bytes of room.
    @inlinable
    @discardableResult
    package static func write(_ value: UInt64, to pointer: UnsafeMutableRawPointer) -> Int {
        var v = value
        var i = 0
        while v >= 0x80 {
            pointer.storeBytes(of: UInt8(truncatingIfNeeded: v) | 0x80, toByteOffset: i, as: UInt8.self)
            v >>= 7
            i += 1
        }
        pointer.storeBytes(of: UInt8(truncatingIfNeeded: v), toByteOffset: i, as: UInt8.self)
        return i + 1
    }

    /// Appends the encoding of `value` to `bytes`.
    @inlinable
    package static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(truncatingIfNeeded: v))
    }

    /// Decodes a varint from `base[offset..<limit]`.
    ///
    /// Returns the value and the number of bytes it took, or `nil` when the
    /// bytes run out or the encoding is too long.
    @inlinable
    package static func read(
        _ base: UnsafeRawPointer, at offset: Int, limit: Int
    ) -> (value: UInt64, length: Int)? {
        guard offset >= 0, offset < limit else { return nil }
        let first = base.load(fromByteOffset: offset, as: UInt8.self)
        if first < 0x80 { return (UInt64(first), 1) }
        var result = UInt64(first & 0x7F)
        var shift: UInt64 = 7
        var i = offset + 1
        while i < limit {
            let byte = base.load(fromByteOffset: i, as: UInt8.self)
            if shift == 63 {
                // Tenth byte: only one bit of the value remains.
                guard byte <= 1 else { return nil }
                return (result | (UInt64(byte) << 63), 10)
            }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return (result, i - offset + 1) }
            shift += 7
            i += 1
        }
        return nil
    }

    /// ``read(_:at:limit:)`` with the one- and two-byte forms (the common ones in row headers and cells)
    /// decoded inline, the longer ones by `read`.
    @inlinable @inline(__always)
    package static func readInline(_ base: UnsafeRawPointer, at offset: Int, limit: Int) -> (
        value: UInt64, length: Int
    )? {
        if offset >= 0 && offset < limit {
            let first = base.load(fromByteOffset: offset, as: UInt8.self)
            if first < 0x80 { return (UInt64(first), 1) }
            if offset + 1 < limit {
                let second = base.load(fromByteOffset: offset + 1, as: UInt8.self)
                if second < 0x80 { return (UInt64(first & 0x7F) | UInt64(second) << 7, 2) }
            }
        }
        return read(base, at: offset, limit: limit)
    }

    /// Decodes a varint at `offset` in `buffer`; see ``read(_:at:limit:)``.
    @inlinable
    package static func read(_ buffer: UnsafeRawBufferPointer, at offset: Int) -> (value: UInt64, length: Int)? {
        guard let base = buffer.baseAddress else { return nil }
        return read(base, at: offset, limit: buffer.count)
    }
}
