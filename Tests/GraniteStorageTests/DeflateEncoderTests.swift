import CZlib
import XCTest

@testable import GraniteStorage

/// `DeflateEncoder` writes deflate data that zlib's inflate decodes back to the input, stays inside its output
/// budget, uses the whole window and compresses about as well as zlib's fast levels with fixed codes.
final class DeflateEncoderTests: XCTestCase {
    /// Inflates raw deflate data with zlib; nil if zlib rejects it or it does not end exactly at the data's end.
    private func zlibInflate(_ data: [UInt8], expected: Int) -> [UInt8]? {
        var z = z_stream()
        guard inflateInit2_(&z, -15, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { inflateEnd(&z) }
        var out = [UInt8](repeating: 0, count: expected + 1)
        var input = data
        let status = input.withUnsafeMutableBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                z.next_in = source.baseAddress
                z.avail_in = uInt(source.count)
                z.next_out = target.baseAddress
                z.avail_out = uInt(target.count)
                return inflate(&z, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END, z.avail_in == 0 else { return nil }
        return Array(out.prefix(Int(z.total_out)))
    }

    /// The deflate data of `input` with an ample budget.
    private func encode(_ input: [UInt8]) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: input.count + input.count / 8 + 16)
        let count = try XCTUnwrap(
            input.withUnsafeBytes { source in out.withUnsafeMutableBytes { DeflateEncoder.encode(source, into: $0) } })
        return Array(out.prefix(count))
    }

    /// zlib's deflate data for `input` at `level` with `strategy`.
    private func zlibDeflate(_ input: [UInt8], level: Int32, strategy: Int32) -> [UInt8] {
        var z = z_stream()
        deflateInit2_(&z, level, Z_DEFLATED, -15, 8, strategy, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        defer { deflateEnd(&z) }
        var out = [UInt8](repeating: 0, count: Int(compressBound(uLong(input.count))) + 16)
        var source = input
        source.withUnsafeMutableBufferPointer { s in
            out.withUnsafeMutableBufferPointer { t in
                z.next_in = s.baseAddress
                z.avail_in = uInt(s.count)
                z.next_out = t.baseAddress
                z.avail_out = uInt(t.count)
                _ = deflate(&z, Z_FINISH)
            }
        }
        return Array(out.prefix(Int(z.total_out)))
    }

    /// Seeded inputs of every shape the encoder distinguishes.
    private struct Inputs {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }

        /// Input number `k`: random bytes, repetitive words, runs, periodic blocks, or a mix, of varied lengths.
        mutating func make(_ k: Int) -> [UInt8] {
            let lengths = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 127, 128, 255, 256, 259, 300, 1000, 4096, 20_000]
            let count = k % 7 == 6 ? next(70_000) : lengths[next(lengths.count)]
            let words = ["{\"kind\":\"login\",", "\"place\":\"Paris\"}", "granite ", "événement ", "数据 ", ",", "["]
            var bytes: [UInt8] = []
            bytes.reserveCapacity(count)
            switch k % 5 {
            case 0:
                while bytes.count < count { bytes.append(UInt8(truncatingIfNeeded: next(256))) }
            case 1:
                while bytes.count < count { bytes += Array(words[next(words.count)].utf8) }
            case 2:
                while bytes.count < count {
                    bytes += [UInt8](repeating: UInt8(next(3)), count: 1 + next(600))
                }
            case 3:
                let period = 1 + next(300)
                let block = (0..<period).map { _ in UInt8(truncatingIfNeeded: next(256)) }
                while bytes.count < count { bytes += block }
            default:
                while bytes.count < count {
                    if next(2) == 0 {
                        bytes += Array(words[next(words.count)].utf8)
                    } else {
                        bytes.append(UInt8(truncatingIfNeeded: next(256)))
                    }
                }
            }
            return Array(bytes.prefix(count))
        }
    }

    func testOutputInflatesBackWithZlib() throws {
        let seed: UInt64 = 0xDEF1_A7E0
        var inputs = Inputs(state: seed)
        let scale = Int(ProcessInfo.processInfo.environment["GRANITE_STRESS"] ?? "") ?? 1
        for k in 0..<(400 * scale) {
            let input = inputs.make(k)
            let encoded = try encode(input)
            XCTAssertEqual(zlibInflate(encoded, expected: input.count), input, "input \(k), seed \(seed)")
            // Fixed codes: a literal takes at most 9 bits, plus the 3-bit block header and 7-bit end-of-block.
            XCTAssertLessThanOrEqual(encoded.count, (input.count * 9 + 10 + 7) / 8, "input \(k), seed \(seed)")
        }
    }

    func testBudgetIsNeverExceeded() throws {
        let seed: UInt64 = 0xB0D6_E7
        var inputs = Inputs(state: seed)
        for k in 0..<60 {
            let input = inputs.make(k)
            let full = try encode(input)
            for budget in Set([0, 1, full.count / 2, full.count - 1, full.count, full.count + 3]) where budget >= 0 {
                var out = [UInt8](repeating: 0xA5, count: budget + 8)
                let count = input.withUnsafeBytes { source in
                    out.withUnsafeMutableBytes {
                        DeflateEncoder.encode(source, into: UnsafeMutableRawBufferPointer(rebasing: $0[..<budget]))
                    }
                }
                if budget >= full.count {
                    XCTAssertEqual(count, full.count, "input \(k), budget \(budget), seed \(seed)")
                    XCTAssertEqual(Array(out.prefix(full.count)), full)
                } else {
                    XCTAssertNil(count, "input \(k), budget \(budget), seed \(seed)")
                }
                XCTAssertEqual(Array(out.suffix(8)), [UInt8](repeating: 0xA5, count: 8), "wrote past the budget")
            }
        }
    }

    /// Giving up early only ever turns a result into `nil`: whenever the encoder answers, its bytes are those of
    /// the full encoding, and it answers `nil` whenever the full encoding does not fit.
    func testGivingUpEarlyNeverChangesTheOutput() throws {
        let seed: UInt64 = 0xEA_71
        var inputs = Inputs(state: seed)
        var answered = 0
        for k in 0..<400 {
            let input = inputs.make(k)
            let full = try encode(input)
            for budget in Set([full.count / 2, full.count - 1, full.count, full.count + 3, input.count])
            where budget >= 0 {
                var out = [UInt8](repeating: 0xA5, count: budget + 8)
                let count = input.withUnsafeBytes { source in
                    out.withUnsafeMutableBytes {
                        DeflateEncoder.encode(
                            source, into: UnsafeMutableRawBufferPointer(rebasing: $0[..<budget]), givingUpEarly: true)
                    }
                }
                if let count {
                    answered += 1
                    XCTAssertEqual(Array(out.prefix(count)), full, "input \(k), budget \(budget), seed \(seed)")
                } else if budget >= full.count {
                    XCTAssertLessThan(input.count, DeflateEncoder.earlyCheckBelow, "only short inputs are given up")
                }
                XCTAssertEqual(Array(out.suffix(8)), [UInt8](repeating: 0xA5, count: 8), "wrote past the budget")
            }
        }
        XCTAssertGreaterThan(answered, 0)
        // Random bytes then a long repeat: the first half does not shrink, the whole does.
        let randomHalf = (0..<100).map { _ in UInt8(truncatingIfNeeded: inputs.next(256)) }
        let lateRepeat = randomHalf + randomHalf
        let full = try encode(lateRepeat)
        XCTAssertLessThan(full.count, lateRepeat.count)
        var out = [UInt8](repeating: 0, count: lateRepeat.count - 1)
        let count = lateRepeat.withUnsafeBytes { source in
            out.withUnsafeMutableBytes { DeflateEncoder.encode(source, into: $0, givingUpEarly: true) }
        }
        XCTAssertNil(count, "given up at the middle although the whole would fit")
        // A JSON value that shrinks from its start is still compressed.
        let json = Array(String(repeating: "{\"city\":\"Paris\",\"tags\":[\"a\",\"b\"]}", count: 5).utf8)
        var jsonOut = [UInt8](repeating: 0, count: json.count - 1)
        let jsonCount = json.withUnsafeBytes { source in
            jsonOut.withUnsafeMutableBytes { DeflateEncoder.encode(source, into: $0, givingUpEarly: true) }
        }
        XCTAssertEqual(jsonCount.map { Array(jsonOut.prefix($0)) }, try encode(json))
    }

    func testMatchesReachAcrossTheWholeWindowAndNoFurther() throws {
        var inputs = Inputs(state: 0x3276_8)
        let block = (0..<32_768).map { _ in UInt8(truncatingIfNeeded: inputs.next(256)) }
        // A repeat at distance 32768 (the window) is found: the second copy costs almost nothing.
        let within = block + block
        let encodedWithin = try encode(within)
        XCTAssertEqual(zlibInflate(encodedWithin, expected: within.count), within)
        XCTAssertLessThan(encodedWithin.count, 32_768 * 9 / 8 + 400)
        // A repeat at distance 32769 is out of reach: both copies are literals.
        let beyond = block + [0x5A] + block
        let encodedBeyond = try encode(beyond)
        XCTAssertEqual(zlibInflate(encodedBeyond, expected: beyond.count), beyond)
        XCTAssertGreaterThan(encodedBeyond.count, 2 * 32_768)
        // Long runs become matches of at most 258 bytes at distance 1.
        let run = [UInt8](repeating: 7, count: 100_000)
        let encodedRun = try encode(run)
        XCTAssertEqual(zlibInflate(encodedRun, expected: run.count), run)
        XCTAssertLessThan(encodedRun.count, 100_000 / 258 * 2 + 16)
    }

    func testCompressesJSONAboutAsWellAsZlibWithFixedCodes() throws {
        // Repetitive JSON arrays like the ones records store: within 10% of zlib level 2 with fixed codes.
        var inputs = Inputs(state: 0x150_4E)
        let places = ["Paris, France", "Berlin, Germany", "Madrid, Spain", "Rome, Italy", "Oslo, Norway"]
        let kinds = ["login", "logout", "purchase", "page_view", "search"]
        for events in [2, 5, 20, 100] {
            var text = "["
            for e in 0..<events {
                if e > 0 { text += "," }
                text += "{\"kind\":\"\(kinds[inputs.next(kinds.count)])\",\"place\":\"\(places[inputs.next(5)])\","
                text += "\"timestamp\":\(1_700_000_000 + inputs.next(1_000_000))}"
            }
            text += "]"
            let input = Array(text.utf8)
            let ours = try encode(input)
            let zlib = zlibDeflate(input, level: 2, strategy: Z_FIXED)
            XCTAssertLessThanOrEqual(Double(ours.count), Double(zlib.count) * 1.10, "\(events) events")
            XCTAssertEqual(zlibInflate(ours, expected: input.count), input)
        }
    }

    func testWorkedExampleOfFormatDocument() throws {
        // FORMAT.md § "Compressed text": 'hello hello hello hello' is six literals and one 17-byte match at
        // distance 6.
        XCTAssertEqual(
            try encode(Array("hello hello hello hello".utf8)), [0xCB, 0x48, 0xCD, 0xC9, 0xC9, 0x57, 0xC0, 0x20, 0x01])
    }

    /// Code lengths of `frequencies` from `HuffmanLengths.build` with `limit`.
    private func lengths(_ frequencies: [UInt32], limit: Int) -> [UInt8] {
        var result = [UInt8](repeating: 0xEE, count: frequencies.count)
        var work = [UInt32](repeating: 0, count: 6 * frequencies.count)
        frequencies.withUnsafeBufferPointer { f in
            result.withUnsafeMutableBufferPointer { r in
                work.withUnsafeMutableBufferPointer { w in
                    HuffmanLengths.build(
                        frequencies: f.baseAddress!, count: f.count, limit: limit, into: r.baseAddress!,
                        work: w.baseAddress!)
                }
            }
        }
        return result
    }

    /// The Kraft sum of `lengths` in units of 2^-limit (a complete code sums to exactly 2^limit).
    private func kraft(_ lengths: [UInt8], limit: Int) -> Int {
        lengths.filter { $0 > 0 }.map { 1 << (limit - Int($0)) }.reduce(0, +)
    }

    func testHuffmanLengthsAreCompleteAndLimited() {
        // Fibonacci frequencies make the deepest Huffman trees: 30 symbols would need 29 levels unlimited.
        var fibonacci: [UInt32] = [1, 1]
        while fibonacci.count < 30 { fibonacci.append(fibonacci[fibonacci.count - 1] + fibonacci[fibonacci.count - 2]) }
        for limit in [7, 15] {
            let l = lengths(fibonacci, limit: limit)
            XCTAssertLessThanOrEqual(Int(l.max()!), limit)
            XCTAssertEqual(kraft(l, limit: limit), 1 << limit, "complete code, limit \(limit)")
            XCTAssertFalse(l.contains(0))
        }
        // One used symbol or none: two symbols of one bit (a complete code zlib's inflater accepts).
        XCTAssertEqual(lengths([0, 0, 5, 0], limit: 15), [1, 0, 1, 0])
        XCTAssertEqual(lengths([0, 0, 0], limit: 7), [1, 1, 0])
        // Random frequencies: complete, limited, and (when the frequencies are small, so no halving was needed to
        // meet the limit) more frequent symbols never get longer codes.
        var state: UInt64 = 0x4AFF_3A11
        for round in 0..<200 {
            let count = [19, 30, 286][round % 3]
            let frequencies = (0..<count).map { _ -> UInt32 in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let r = state >> 33
                return r % 3 == 0 ? 0 : UInt32(r % (round % 2 == 0 ? 20 : 100_000))
            }
            let limit = count == 19 ? 7 : 15
            let l = lengths(frequencies, limit: limit)
            XCTAssertEqual(kraft(l, limit: limit), 1 << limit, "round \(round)")
            XCTAssertLessThanOrEqual(Int(l.max()!), limit, "round \(round)")
            for a in 0..<count where frequencies[a] > 0 {
                XCTAssertGreaterThan(l[a], 0, "round \(round)")
                for b in 0..<count where round % 2 == 0 && frequencies[b] > frequencies[a] {
                    XCTAssertLessThanOrEqual(l[b], l[a], "round \(round): symbols \(b), \(a)")
                }
            }
        }
    }
}
