// Implements FORMAT.md § "Compressed text": the deflate data (RFC 1951) inside a compressed text's zlib stream.

/// A deflate encoder (RFC 1951) for the texts a row holds: greedy LZ77 matching over short hash chains, then
/// blocks with fixed or dynamic Huffman codes, whichever is smaller for the block.
///
/// zlib's `deflate` spends most of its time on a short input outside the matching: allocating and clearing its
/// state, and building code trees for every block (even with `Z_FIXED`, which only decides which trees are
/// sent). This encoder keeps its whole state in a few kilobytes sized to the input and builds trees over the
/// symbols the block uses, so a 200-byte JSON value costs about a microsecond instead of five, and a 3 KiB one
/// about half of zlib's level 2, for output of about the same size. The output is ordinary deflate data that any
/// inflater, zlib's included, decodes.
///
/// ```swift
/// let text = Array("hello hello hello hello".utf8)
/// var out = [UInt8](repeating: 0, count: 64)
/// let count = text.withUnsafeBytes { input in
///     out.withUnsafeMutableBytes { DeflateEncoder.encode(input, into: $0) }
/// }   // 9 bytes: "hello " then a 17-byte match at distance 6, with fixed codes
/// ```
package enum DeflateEncoder {
    /// The longest match deflate can express.
    static let maxMatch = 258
    /// The shortest match the encoder looks for (deflate allows 3; 4-byte matches hash with one load).
    static let minMatch = 4
    /// The farthest back a match may start (deflate's 32 KiB window).
    static let maxDistance = 32_768
    /// How many earlier positions with the same hash are tried for each match.
    static let maxChain = 4
    /// A match at least this long is taken without trying further candidates.
    static let goodMatch = 32
    /// Matches up to this long have every position inside them indexed; longer ones only their last two, which
    /// saves most of the hashing on repetitive text for a slightly longer output.
    static let indexWholeMatchUpTo = 16
    /// The fewest symbols (literals and matches) for which a block may get dynamic codes. Building them costs about
    /// as much as finding the matches of several hundred bytes, for a block 10–20% shorter than with fixed codes:
    /// below this (inputs under about 400 bytes), fixed codes are always used.
    static let dynamicCodesFrom = 256
    /// The most symbols (literals and matches) a block holds before it is written.
    static let blockSymbols = 16_384
    /// Inputs shorter than this are written as one block with fixed codes, whose cost in bits is known as the
    /// symbols are found: ``encode(_:into:givingUpEarly:)`` can then give up half-way.
    static let earlyCheckBelow = dynamicCodesFrom

    /// Writes the deflate data of `input` into `output`.
    ///
    /// Returns the number of bytes written, or `nil` as soon as the data would not fit in `output` (so an
    /// incompressible input given a budget below its own size costs little).
    ///
    /// With `givingUpEarly`, an input shorter than ``earlyCheckBelow`` is also given up (`nil`) at its middle
    /// when the bits written so far, doubled, exceed `output`'s room, although it might still have fit: a short
    /// text that has not started to shrink by its middle rarely ends shorter than its budget, and most short
    /// texts a row stores (JSON values of a hundred or two bytes) do not shrink, so this saves about half the
    /// work of most failed attempts. Whenever it returns a count, the output is the same as without the option.
    package static func encode(
        _ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, givingUpEarly: Bool = false
    ) -> Int? {
        guard let outBase = output.baseAddress else { return nil }
        var writer = BitWriter(base: outBase.assumingMemoryBound(to: UInt8.self), capacity: output.count)
        let tables = DeflateTables.shared
        let count = input.count
        guard let inBase = input.baseAddress, count > 0 else {
            // One final block with fixed codes that holds only the end-of-block symbol.
            let endOfBlock = tables.fixedLiteralLength[256]
            guard writer.put(0b011, count: 3), writer.put(endOfBlock.bits, count: endOfBlock.count) else { return nil }
            return writer.finish()
        }
        let bytes = inBase.assumingMemoryBound(to: UInt8.self)
        let capacity = min(count + 1, blockSymbols)
        let scratchCount = capacity + BlockScratch.wordCount
        return withUnsafeTemporaryAllocation(of: UInt32.self, capacity: scratchCount) { scratch -> Int? in
            var block = BlockScratch(base: scratch.baseAddress!, symbolCapacity: capacity, tables: tables)
            guard findMatches(bytes, count: count, block: &block, writer: &writer, givingUpEarly: givingUpEarly),
                block.flush(final: true, writer: &writer)
            else { return nil }
            return writer.finish()
        }
    }

    /// The LZ77 pass: the literals and matches of `bytes[0..<count]`, gathered in `block` and written through
    /// `writer` each time the block fills up. The last block is left for the caller to write.
    private static func findMatches(
        _ bytes: UnsafePointer<UInt8>, count: Int, block: inout BlockScratch, writer: inout BitWriter,
        givingUpEarly: Bool
    ) -> Bool {
        if count < minMatch + 1 {
            for k in 0..<count { block.addLiteral(bytes[k]) }
            return true
        }
        // The hash table holds, per 4-byte hash, the last position + 1 (0 = none); `previous[p mod ring]` holds
        // the position + 1 that had the same hash before `p` (a chain through earlier occurrences). The ring covers
        // the input, or 64 KiB positions (twice the window) for longer ones, so a link within the window is never
        // overwritten before it is followed.
        var hashBits = 8
        while hashBits < 15 && (1 << hashBits) < count { hashBits += 1 }
        let hashShift = UInt32(32 - hashBits)
        var ringBits = 8
        while ringBits < 16 && (1 << ringBits) < count { ringBits += 1 }
        let ringMask = (1 << ringBits) - 1
        // The bits of the fixed-code block so far (header and end-of-block included), checked once, at the
        // middle of a short input, against the room the writer has.
        var fixedBits = 3 + 7
        var checkpoint = givingUpEarly && count < earlyCheckBelow ? count / 2 : Int.max
        let roomBits = writer.capacity * 8
        let tables = DeflateTables.shared
        return withUnsafeTemporaryAllocation(of: Int32.self, capacity: (1 << hashBits) + (1 << ringBits)) { storage in
            let head = storage.baseAddress!
            head.initialize(repeating: 0, count: 1 << hashBits)
            let previous = head + (1 << hashBits)
            @inline(__always) func load32(_ p: Int) -> UInt32 {
                UnsafeRawPointer(bytes + p).loadUnaligned(as: UInt32.self)
            }
            @inline(__always) func hash(_ v: UInt32) -> Int { Int((v &* 0x9E37_79B1) >> hashShift) }
            // The last position whose 4 bytes can be read.
            let lastHashed = count - minMatch
            var i = 0
            while i <= lastHashed {
                if block.isFull {
                    guard block.flush(final: false, writer: &writer) else { return false }
                }
                if i >= checkpoint {
                    if 2 * fixedBits > roomBits { return false }
                    checkpoint = Int.max
                }
                let v = load32(i)
                let h = hash(v)
                var candidate = Int(head[h]) - 1
                previous[i & ringMask] = head[h]
                head[h] = Int32(truncatingIfNeeded: i + 1)
                var bestLength = 0
                var bestDistance = 0
                let limit = min(maxMatch, count - i)
                var tries = maxChain
                while candidate >= 0 && i - candidate <= maxDistance && tries > 0 {
                    if load32(candidate) == v {
                        let length = matchLength(bytes, candidate, i, limit: limit)
                        if length > bestLength {
                            bestLength = length
                            bestDistance = i - candidate
                            if length >= goodMatch || length == limit { break }
                        }
                    }
                    tries -= 1
                    candidate = Int(previous[candidate & ringMask]) - 1
                }
                if bestLength >= minMatch {
                    block.addMatch(length: bestLength, distance: bestDistance)
                    fixedBits += tables.fixedMatchBits(length: bestLength, distance: bestDistance)
                    // Index positions inside the match so later text can refer to them.
                    let end = i + bestLength
                    var p = bestLength <= indexWholeMatchUpTo ? i + 1 : end - 2
                    while p < end && p <= lastHashed {
                        let hp = hash(load32(p))
                        previous[p & ringMask] = head[hp]
                        head[hp] = Int32(truncatingIfNeeded: p + 1)
                        p += 1
                    }
                    i = end
                } else {
                    block.addLiteral(bytes[i])
                    fixedBits += bytes[i] < 144 ? 8 : 9
                    i += 1
                }
            }
            while i < count {
                if block.isFull {
                    guard block.flush(final: false, writer: &writer) else { return false }
                }
                block.addLiteral(bytes[i])
                i += 1
            }
            return true
        }
    }

    /// The number of equal bytes at `earlier` and `later` (`earlier` < `later`), at most `limit`, knowing the first
    /// four are equal.
    @inline(__always)
    private static func matchLength(_ bytes: UnsafePointer<UInt8>, _ earlier: Int, _ later: Int, limit: Int) -> Int {
        var length = minMatch
        let raw = UnsafeRawPointer(bytes)
        while length + 8 <= limit {
            let a = raw.loadUnaligned(fromByteOffset: earlier + length, as: UInt64.self)
            let b = raw.loadUnaligned(fromByteOffset: later + length, as: UInt64.self)
            let difference = UInt64(littleEndian: a ^ b)
            if difference != 0 { return length + (difference.trailingZeroBitCount >> 3) }
            length += 8
        }
        while length < limit && bytes[earlier + length] == bytes[later + length] { length += 1 }
        return length
    }
}

/// A Huffman code as written: its bits already reversed for deflate's least-significant-bit-first packing, and
/// its length.
struct DeflateCode {
    var bits: UInt32
    var count: UInt32
}

/// The constant tables of deflate (RFC 1951 § 3.2.5–3.2.6), built once and never freed, read through raw
/// pointers in the encoder's inner loops.
final class DeflateTables: @unchecked Sendable {
    /// The tables (immutable once built).
    static let shared = DeflateTables()

    /// The fixed code of each literal/length symbol 0–287.
    let fixedLiteralLength: UnsafeMutablePointer<DeflateCode>
    /// Each byte with its bits in reverse order.
    let reverseByte: UnsafeMutablePointer<UInt8>
    /// The fixed code of each distance symbol 0–29 (five bits).
    let fixedDistance: UnsafeMutablePointer<DeflateCode>
    /// The length symbol (257–285) of each match length 3–258 (entries 0–2 unused).
    let lengthSymbol: UnsafeMutablePointer<UInt16>
    /// The extra bits value of each match length 3–258.
    let lengthExtraValue: UnsafeMutablePointer<UInt32>
    /// The number of extra bits of each literal/length symbol 0–285 (0 for literals and end-of-block).
    let symbolExtraBits: UnsafeMutablePointer<UInt32>
    /// The distance symbol (0–29) of distances 1–256 at `distance − 1`, and of longer distances at
    /// `256 + (distance − 1) >> 7`.
    let distanceSymbol: UnsafeMutablePointer<UInt8>
    /// The smallest distance of each distance symbol 0–29.
    let distanceBase: UnsafeMutablePointer<UInt32>
    /// The number of extra bits of each distance symbol 0–29.
    let distanceExtraBits: UnsafeMutablePointer<UInt32>

    /// The base match length of length symbols 257–285.
    private static let lengthBases: [Int] = [
        3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227,
        258,
    ]
    /// The extra bit counts of length symbols 257–285.
    private static let lengthExtras: [UInt32] = [
        0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
    ]
    /// The base distance of distance symbols 0–29.
    private static let distanceBases: [UInt32] = [
        1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097,
        6145, 8193, 12289, 16385, 24577,
    ]
    /// The extra bit counts of distance symbols 0–29.
    private static let distanceExtras: [UInt32] = [
        0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
    ]
    /// The order in which a dynamic block header gives the code lengths of the code-length alphabet.
    static let codeLengthOrder: [Int] = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    private init() {
        fixedLiteralLength = .allocate(capacity: 288)
        for symbol in 0..<288 {
            let (code, count): (UInt32, UInt32) =
                switch symbol {
                case 0..<144: (0x30 + UInt32(symbol), 8)
                case 144..<256: (0x190 + UInt32(symbol - 144), 9)
                case 256..<280: (UInt32(symbol - 256), 7)
                default: (0xC0 + UInt32(symbol - 280), 8)
                }
            (fixedLiteralLength + symbol).initialize(
                to: DeflateCode(bits: DeflateTables.reversed(code, count), count: count))
        }
        reverseByte = .allocate(capacity: 256)
        for byte in 0..<256 { (reverseByte + byte).initialize(to: UInt8(DeflateTables.reversed(UInt32(byte), 8))) }
        fixedDistance = .allocate(capacity: 30)
        for symbol in 0..<30 {
            (fixedDistance + symbol).initialize(
                to: DeflateCode(bits: DeflateTables.reversed(UInt32(symbol), 5), count: 5))
        }
        lengthSymbol = .allocate(capacity: 259)
        lengthExtraValue = .allocate(capacity: 259)
        for length in 0...258 {
            var k = 0
            if length >= 3 {
                k = DeflateTables.lengthBases.count - 1
                while DeflateTables.lengthBases[k] > length { k -= 1 }
            }
            (lengthSymbol + length).initialize(to: UInt16(257 + k))
            (lengthExtraValue + length).initialize(to: UInt32(max(0, length - DeflateTables.lengthBases[k])))
        }
        symbolExtraBits = .allocate(capacity: 286)
        for symbol in 0..<286 {
            (symbolExtraBits + symbol).initialize(to: symbol < 257 ? 0 : DeflateTables.lengthExtras[symbol - 257])
        }
        distanceSymbol = .allocate(capacity: 512)
        for index in 0..<512 {
            let distance = UInt32(index < 256 ? index + 1 : ((index - 256) << 7) + 1)
            var k = DeflateTables.distanceBases.count - 1
            while DeflateTables.distanceBases[k] > distance { k -= 1 }
            (distanceSymbol + index).initialize(to: UInt8(k))
        }
        distanceBase = .allocate(capacity: 30)
        distanceExtraBits = .allocate(capacity: 30)
        for symbol in 0..<30 {
            (distanceBase + symbol).initialize(to: DeflateTables.distanceBases[symbol])
            (distanceExtraBits + symbol).initialize(to: DeflateTables.distanceExtras[symbol])
        }
    }

    /// The distance symbol (0–29) of a match distance 1–32768.
    @inline(__always)
    func distanceSymbol(of distance: Int) -> Int {
        let d = distance - 1
        return Int(d < 256 ? distanceSymbol[d] : distanceSymbol[256 + d >> 7])
    }

    /// The bits a match takes with the fixed codes: its length code and extra bits, its five-bit distance code
    /// and extra bits.
    @inline(__always)
    func fixedMatchBits(length: Int, distance: Int) -> Int {
        let symbol = Int(lengthSymbol[length])
        return Int(fixedLiteralLength[symbol].count + symbolExtraBits[symbol])
            + 5 + Int(distanceExtraBits[distanceSymbol(of: distance)])
    }

    /// `code`'s low `count` bits in reverse order.
    static func reversed(_ code: UInt32, _ count: UInt32) -> UInt32 {
        var result: UInt32 = 0
        for k in 0..<count where code & (1 << k) != 0 { result |= 1 << (count - 1 - k) }
        return result
    }
}

/// Packs bits least-significant bit first into a bounded output buffer, as deflate requires.
struct BitWriter {
    let base: UnsafeMutablePointer<UInt8>
    let capacity: Int
    var position = 0
    var buffer: UInt64 = 0
    var bitCount: UInt64 = 0

    init(base: UnsafeMutablePointer<UInt8>, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    /// Appends the low `count` bits of `bits` (`count` ≤ 32); false when the output is full.
    @inline(__always)
    mutating func put(_ bits: UInt32, count: UInt32) -> Bool {
        buffer |= UInt64(bits) << bitCount
        bitCount += UInt64(count)
        if bitCount >= 32 {
            guard position + 4 <= capacity else { return false }
            UnsafeMutableRawPointer(base + position).storeBytes(
                of: UInt32(truncatingIfNeeded: buffer).littleEndian, as: UInt32.self)
            position += 4
            buffer >>= 32
            bitCount -= 32
        }
        return true
    }

    /// Writes the remaining bits (the last byte padded with zeros) and returns the number of bytes written, or
    /// `nil` if they do not fit.
    mutating func finish() -> Int? {
        while bitCount > 0 {
            guard position < capacity else { return nil }
            base[position] = UInt8(truncatingIfNeeded: buffer)
            position += 1
            buffer >>= 8
            bitCount = bitCount >= 8 ? bitCount - 8 : 0
        }
        return position
    }
}
