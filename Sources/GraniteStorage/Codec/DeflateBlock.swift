// Implements FORMAT.md § "Compressed text": the blocks of the deflate data (RFC 1951 § 3.2.3–3.2.7).

/// The symbols of one deflate block as ``DeflateEncoder`` finds them, with their frequencies, and the code that
/// writes the block with fixed or dynamic Huffman codes, whichever takes fewer bits.
///
/// All of its memory is one caller-provided buffer of `symbolCapacity + wordCount` 32-bit words (on the stack for
/// short inputs): the symbols, the frequencies, the code lengths and codes, and the Huffman builder's work arrays.
struct BlockScratch {
    /// The words after the symbols: frequencies (288 + 32 + 20), code lengths (86 words of bytes), codes
    /// (2 × 340), code-length items (320), and the Huffman builder's work (3 × 576).
    static let wordCount = 340 + 86 + 680 + 320 + 3 * 576

    private let symbols: UnsafeMutablePointer<UInt32>
    private let symbolCapacity: Int
    private var symbolCount = 0
    private let literalFrequencies: UnsafeMutablePointer<UInt32>
    private let distanceFrequencies: UnsafeMutablePointer<UInt32>
    private let codeLengthFrequencies: UnsafeMutablePointer<UInt32>
    /// Code lengths: 286 literal/length symbols, then 30 distance symbols, then 19 code-length symbols.
    private let lengths: UnsafeMutablePointer<UInt8>
    /// Codes, in the same order as ``lengths``.
    private let codes: UnsafeMutablePointer<DeflateCode>
    /// The run-length items of a dynamic header: symbol 0–18 in the low byte, its extra bits value above.
    private let items: UnsafeMutablePointer<UInt32>
    /// The Huffman builder's work arrays.
    private let work: UnsafeMutablePointer<UInt32>
    private let tables: DeflateTables

    /// A block over `base`, which holds `symbolCapacity + wordCount` words.
    init(base: UnsafeMutablePointer<UInt32>, symbolCapacity: Int, tables: DeflateTables) {
        symbols = base
        self.symbolCapacity = symbolCapacity
        literalFrequencies = base + symbolCapacity
        distanceFrequencies = literalFrequencies + 288
        codeLengthFrequencies = distanceFrequencies + 32
        literalFrequencies.initialize(repeating: 0, count: 340)
        lengths = UnsafeMutableRawPointer(literalFrequencies + 340).bindMemory(to: UInt8.self, capacity: 86 * 4)
        codes = UnsafeMutableRawPointer(literalFrequencies + 340 + 86).bindMemory(to: DeflateCode.self, capacity: 340)
        items = literalFrequencies + 340 + 86 + 680
        work = items + 320
        self.tables = tables
    }

    /// Whether the block holds as many symbols as it can.
    var isFull: Bool { symbolCount == symbolCapacity }

    /// Adds a literal byte.
    @inline(__always)
    mutating func addLiteral(_ byte: UInt8) {
        symbols[symbolCount] = UInt32(byte)
        symbolCount += 1
        literalFrequencies[Int(byte)] += 1
    }

    /// Adds a match of `length` (3–258) bytes at `distance` (1–32768).
    @inline(__always)
    mutating func addMatch(length: Int, distance: Int) {
        symbols[symbolCount] = 0x8000_0000 | UInt32(length) << 16 | UInt32(distance)
        symbolCount += 1
        literalFrequencies[Int(tables.lengthSymbol[length])] += 1
        distanceFrequencies[tables.distanceSymbol(of: distance)] += 1
    }

    /// Writes the block (its header, symbols and end-of-block) and empties it; false when the output is full.
    mutating func flush(final: Bool, writer: inout BitWriter) -> Bool {
        defer {
            symbolCount = 0
            literalFrequencies.update(repeating: 0, count: 340)
        }
        guard symbolCount >= DeflateEncoder.dynamicCodesFrom else {
            return writer.put(final ? 0b011 : 0b010, count: 3) && writeSymbols(dynamic: false, writer: &writer)
        }
        literalFrequencies[256] += 1
        // The extra bits of lengths and distances cost the same with either kind of code.
        var extraBits = 0
        var fixedBits = 3
        for symbol in 0..<286 where literalFrequencies[symbol] != 0 {
            let frequency = Int(literalFrequencies[symbol])
            extraBits += frequency * Int(tables.symbolExtraBits[symbol])
            fixedBits += frequency * Int(tables.fixedLiteralLength[symbol].count)
        }
        for symbol in 0..<30 where distanceFrequencies[symbol] != 0 {
            let frequency = Int(distanceFrequencies[symbol])
            extraBits += frequency * Int(tables.distanceExtraBits[symbol])
            fixedBits += frequency * 5
        }
        fixedBits += extraBits
        if planDynamicCodes() + extraBits < fixedBits {
            return writeDynamicHeader(final: final, writer: &writer) && writeSymbols(dynamic: true, writer: &writer)
        }
        return writer.put(final ? 0b011 : 0b010, count: 3) && writeSymbols(dynamic: false, writer: &writer)
    }

    /// The number of literal/length codes, distance codes and code-length codes a dynamic header declares.
    private var headerCounts = (literals: 257, distances: 1, codeLengths: 4, items: 0)

    /// Builds the dynamic codes of the block and returns their cost in bits (header and symbols, without the
    /// extra bits).
    private mutating func planDynamicCodes() -> Int {
        HuffmanLengths.build(frequencies: literalFrequencies, count: 286, limit: 15, into: lengths, work: work)
        HuffmanLengths.build(frequencies: distanceFrequencies, count: 30, limit: 15, into: lengths + 286, work: work)
        var literals = 286
        while literals > 257 && lengths[literals - 1] == 0 { literals -= 1 }
        var distances = 30
        while distances > 1 && lengths[286 + distances - 1] == 0 { distances -= 1 }
        // The two length lists form one sequence, run-length coded with symbols 16 (repeat the previous length
        // 3–6 times), 17 (3–10 zeros) and 18 (11–138 zeros).
        codeLengthFrequencies.update(repeating: 0, count: 19)
        var itemCount = 0
        func add(_ symbol: UInt32, _ extra: UInt32 = 0) {
            items[itemCount] = symbol | extra << 8
            itemCount += 1
            codeLengthFrequencies[Int(symbol)] += 1
        }
        let total = literals + distances
        func length(at k: Int) -> UInt8 { k < literals ? lengths[k] : lengths[286 + k - literals] }
        var k = 0
        while k < total {
            let value = length(at: k)
            var run = 1
            while k + run < total && length(at: k + run) == value { run += 1 }
            k += run
            if value == 0 {
                while run >= 11 {
                    let n = min(run, 138)
                    add(18, UInt32(n - 11))
                    run -= n
                }
                if run >= 3 {
                    add(17, UInt32(run - 3))
                    run = 0
                }
            } else {
                add(UInt32(value))
                run -= 1
                while run >= 3 {
                    let n = min(run, 6)
                    add(16, UInt32(n - 3))
                    run -= n
                }
            }
            while run > 0 {
                add(UInt32(value))
                run -= 1
            }
        }
        let codeLengthLengths = lengths + 316
        HuffmanLengths.build(
            frequencies: codeLengthFrequencies, count: 19, limit: 7, into: codeLengthLengths, work: work)
        var codeLengths = 19
        while codeLengths > 4 && codeLengthLengths[DeflateTables.codeLengthOrder[codeLengths - 1]] == 0 {
            codeLengths -= 1
        }
        headerCounts = (literals, distances, codeLengths, itemCount)
        var bits = 3 + 5 + 5 + 4 + 3 * codeLengths
        for symbol in 0..<19 {
            let extra = symbol == 16 ? 2 : symbol == 17 ? 3 : symbol == 18 ? 7 : 0
            bits += Int(codeLengthFrequencies[symbol]) * (Int(codeLengthLengths[symbol]) + extra)
        }
        for symbol in 0..<286 where literalFrequencies[symbol] != 0 {
            bits += Int(literalFrequencies[symbol]) * Int(lengths[symbol])
        }
        for symbol in 0..<30 where distanceFrequencies[symbol] != 0 {
            bits += Int(distanceFrequencies[symbol]) * Int(lengths[286 + symbol])
        }
        return bits
    }

    /// Writes the header of a dynamic block planned by ``planDynamicCodes()`` and prepares its codes.
    private mutating func writeDynamicHeader(final: Bool, writer: inout BitWriter) -> Bool {
        HuffmanLengths.assignCodes(lengths: lengths, count: 286, into: codes)
        HuffmanLengths.assignCodes(lengths: lengths + 286, count: 30, into: codes + 286)
        HuffmanLengths.assignCodes(lengths: lengths + 316, count: 19, into: codes + 316)
        let (literals, distances, codeLengths, itemCount) = headerCounts
        guard writer.put(final ? 0b101 : 0b100, count: 3),
            writer.put(UInt32(literals - 257) | UInt32(distances - 1) << 5 | UInt32(codeLengths - 4) << 10, count: 14)
        else { return false }
        for k in 0..<codeLengths {
            guard writer.put(UInt32(lengths[316 + DeflateTables.codeLengthOrder[k]]), count: 3) else { return false }
        }
        let codeLengthCodes = codes + 316
        for k in 0..<itemCount {
            let symbol = Int(items[k] & 0xFF)
            let extra = items[k] >> 8
            let code = codeLengthCodes[symbol]
            let extraCount: UInt32 = symbol == 16 ? 2 : symbol == 17 ? 3 : symbol == 18 ? 7 : 0
            guard writer.put(code.bits | extra << code.count, count: code.count + extraCount) else { return false }
        }
        return true
    }

    /// Writes the block's symbols and its end-of-block with the dynamic codes or the fixed ones.
    private func writeSymbols(dynamic: Bool, writer: inout BitWriter) -> Bool {
        let literalCodes = dynamic ? UnsafePointer(codes) : UnsafePointer(tables.fixedLiteralLength)
        let distanceCodes = dynamic ? UnsafePointer(codes + 286) : UnsafePointer(tables.fixedDistance)
        for k in 0..<symbolCount {
            let symbol = symbols[k]
            if symbol & 0x8000_0000 == 0 {
                let code = literalCodes[Int(symbol)]
                guard writer.put(code.bits, count: code.count) else { return false }
            } else {
                let length = Int(symbol >> 16 & 0x1FF)
                let distance = Int(symbol & 0xFFFF)
                let lengthSymbol = Int(tables.lengthSymbol[length])
                let lengthCode = literalCodes[lengthSymbol]
                guard
                    writer.put(
                        lengthCode.bits | tables.lengthExtraValue[length] << lengthCode.count,
                        count: lengthCode.count + tables.symbolExtraBits[lengthSymbol])
                else { return false }
                let distanceSymbol = tables.distanceSymbol(of: distance)
                let distanceCode = distanceCodes[distanceSymbol]
                let extra = UInt32(distance) - tables.distanceBase[distanceSymbol]
                guard
                    writer.put(
                        distanceCode.bits | extra << distanceCode.count,
                        count: distanceCode.count + tables.distanceExtraBits[distanceSymbol])
                else { return false }
            }
        }
        let endOfBlock = literalCodes[256]
        return writer.put(endOfBlock.bits, count: endOfBlock.count)
    }
}
