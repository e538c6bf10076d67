// Implements FORMAT.md § "Values and the row format" and § "Compressed text" (the row side).
//
// A row is: header length (varint, counting the whole header including itself), one serial type
// varint per column, then the column bodies in column order.
//
//   serial type  body                          serial type  body
//   0            NULL, none                    6            int32, 4 bytes
//   1            integer 0, none               7            int48, 6 bytes
//   2            integer 1, none               8            int64, 8 bytes
//   3            int8, 1 byte                  9            REAL, 8 bytes (binary64 bits)
//   4            int16, 2 bytes                10, 11       reserved, rejected
//   5            int24, 3 bytes                N >= 12      L = (N - 12) / 3 bytes of kind (N - 12) % 3:
//                                                           0 TEXT, 1 BLOB, 2 compressed TEXT
//
// Integers are two's complement and every fixed-width field is little-endian. A compressed-text
// body is a varint U (the UTF-8 length) followed by a zlib stream that inflates to exactly U bytes.

/// Internal helpers shared by the row encoder, builder and decoder.
@usableFromInline
enum RowCodec {
    /// Zero bytes copied to extend a buffer (a copy from here is a `memcpy`; appending `repeatElement(0, …)`
    /// stores byte by byte).
    static let zeros = [UInt8](repeating: 0, count: 4096)

    /// Appends `count` zero bytes to `bytes`.
    @inline(__always)
    static func appendZeros(_ count: Int, to bytes: inout [UInt8]) {
        guard count <= zeros.count else {
            bytes.append(contentsOf: repeatElement(0, count: count))
            return
        }
        zeros.withUnsafeBufferPointer { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: $0[..<count])) }
    }

    /// The body width (0, 1, 2, 3, 4, 6 or 8) of the smallest encoding of `i`, and its serial type.
    @inlinable
    static func integerLayout(_ i: Int64) -> (serialType: UInt64, width: Int) {
        if i == 0 { return (1, 0) }
        if i == 1 { return (2, 0) }
        if i >= -0x80 && i < 0x80 { return (3, 1) }
        if i >= -0x8000 && i < 0x8000 { return (4, 2) }
        if i >= -0x80_0000 && i < 0x80_0000 { return (5, 3) }
        if i >= -0x8000_0000 && i < 0x8000_0000 { return (6, 4) }
        if i >= -0x8000_0000_0000 && i < 0x8000_0000_0000 { return (7, 6) }
        return (8, 8)
    }

    /// The body width of integer serial types 3...8 (any other input gives 0).
    @inlinable
    static func integerWidth(ofSerialType serialType: UInt64) -> Int {
        switch serialType {
        case 3: return 1
        case 4: return 2
        case 5: return 3
        case 6: return 4
        case 7: return 6
        case 8: return 8
        default: return 0
        }
    }

    /// Stores the low `width` bytes of `i`, little-endian.
    @inlinable
    static func storeInteger(_ i: Int64, width: Int, to pointer: UnsafeMutableRawPointer) {
        if width == 8 {
            pointer.storeBytes(of: UInt64(bitPattern: i).littleEndian, as: UInt64.self)
            return
        }
        var v = UInt64(bitPattern: i)
        for k in 0..<width {
            pointer.storeBytes(of: UInt8(truncatingIfNeeded: v), toByteOffset: k, as: UInt8.self)
            v >>= 8
        }
    }

    /// Loads a `width`-byte little-endian two's complement integer (width 1, 2, 3, 4, 6 or 8).
    @inlinable
    static func loadInteger(_ pointer: UnsafeRawPointer, width: Int) -> Int64 {
        switch width {
        case 1:
            return Int64(pointer.load(as: Int8.self))
        case 2:
            return Int64(Int16(littleEndian: pointer.loadUnaligned(as: Int16.self)))
        case 3:
            let low = Int64(UInt16(littleEndian: pointer.loadUnaligned(as: UInt16.self)))
            return Int64(pointer.load(fromByteOffset: 2, as: Int8.self)) << 16 | low
        case 4:
            return Int64(Int32(littleEndian: pointer.loadUnaligned(as: Int32.self)))
        case 6:
            let low = Int64(UInt32(littleEndian: pointer.loadUnaligned(as: UInt32.self)))
            let high = Int64(Int16(littleEndian: pointer.loadUnaligned(fromByteOffset: 4, as: Int16.self)))
            return high << 32 | low
        default:
            return Int64(littleEndian: pointer.loadUnaligned(as: Int64.self))
        }
    }

    /// The serial type of a TEXT (kind 0), BLOB (kind 1) or compressed TEXT (kind 2) body of `length` bytes.
    @inlinable
    static func serialType(kind: UInt64, length: Int) -> UInt64 {
        12 + 3 * UInt64(length) + kind
    }

    /// The total header length for `serialBytes` bytes of serial types: the smallest `h` with
    /// `h == serialBytes + Varint.length(of: h)`.
    @inlinable
    static func headerLength(serialBytes: Int) -> Int {
        var lengthOfLength = 1
        while true {
            let h = serialBytes + lengthOfLength
            let l = Varint.length(of: UInt64(h))
            if l <= lengthOfLength { return h }
            lengthOfLength = l
        }
    }

    /// The compressed-text body (U varint + zlib stream) for `utf8`, or `nil` unless it is strictly shorter
    /// than `utf8`; also `nil` for a short text whose first half did not shrink enough (FORMAT.md, "When a
    /// writer compresses").
    @usableFromInline
    static func compressedBody(_ utf8: UnsafeRawBufferPointer) -> [UInt8]? {
        let u = UInt64(utf8.count)
        let prefix = Varint.length(of: u)
        guard
            var body = TextCompression.compress(
                utf8, prefix: prefix, maxLength: utf8.count - 1, givingUpEarly: true)
        else {
            return nil
        }
        body.withUnsafeMutableBytes { _ = Varint.write(u, to: $0.baseAddress!) }
        return body
    }

    /// Calls `body` with the UTF-8 bytes of `string` (no copy for native strings).
    @inlinable
    static func withUTF8<R>(_ string: String, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var s = string
        return try s.withUTF8 { try body(UnsafeRawBufferPointer($0)) }
    }
}
