// Implements FORMAT.md § "Compressed text": the Huffman codes of dynamic deflate blocks (RFC 1951 § 3.2.2).

/// Length-limited Huffman code lengths and the canonical codes deflate derives from them.
enum HuffmanLengths {
    /// Fills `lengths[0..<count]` with the code lengths of a prefix code for `frequencies` (0 for unused symbols),
    /// none above `limit`. At least two symbols get a length, so the code is always complete, as zlib's inflater
    /// requires. `work` holds at least 3 × 2 × `count` words.
    ///
    /// The code is a Huffman code (two-queue construction over the symbols sorted by frequency); when it is deeper
    /// than `limit`, the frequencies are halved (staying above zero) and the code built again, which flattens it.
    static func build(
        frequencies: UnsafePointer<UInt32>, count: Int, limit: Int, into lengths: UnsafeMutablePointer<UInt8>,
        work: UnsafeMutablePointer<UInt32>
    ) {
        lengths.update(repeating: 0, count: count)
        // Leaves sorted by (weight, symbol), packed as weight << 16 | symbol in 64-bit keys over the work area.
        let keys = UnsafeMutableRawPointer(work).bindMemory(to: UInt64.self, capacity: count)
        let weight = work + 2 * count
        let parent = weight + 2 * count
        var shift: UInt32 = 0
        while true {
            var leaves = 0
            for symbol in 0..<count where frequencies[symbol] != 0 {
                keys[leaves] = UInt64(max(1, frequencies[symbol] >> shift)) << 16 | UInt64(symbol)
                leaves += 1
            }
            // Pad to two symbols with unused ones of weight 1.
            var filler = 0
            while leaves < 2 {
                while frequencies[filler] != 0 { filler += 1 }
                keys[leaves] = 1 << 16 | UInt64(filler)
                leaves += 1
                filler += 1
            }
            var sorted = UnsafeMutableBufferPointer(start: keys, count: leaves)
            sorted.sort()
            // Nodes 0..<leaves are the leaves in order; internal nodes follow in the order they are made, which is
            // also nondecreasing weight, so the smallest node is always at the front of one of the two queues.
            for k in 0..<leaves { weight[k] = UInt32(truncatingIfNeeded: keys[k] >> 16) }
            var nextLeaf = 0
            var nextInternal = leaves
            var end = leaves
            @inline(__always) func takeSmallest() -> Int {
                if nextLeaf < leaves && (nextInternal == end || weight[nextLeaf] <= weight[nextInternal]) {
                    nextLeaf += 1
                    return nextLeaf - 1
                }
                nextInternal += 1
                return nextInternal - 1
            }
            for _ in 0..<(leaves - 1) {
                let a = takeSmallest()
                let b = takeSmallest()
                weight[end] = weight[a] &+ weight[b]
                parent[a] = UInt32(end)
                parent[b] = UInt32(end)
                end += 1
            }
            // Depths, from the root down (a parent always comes after its children), stored over the weights.
            let root = end - 1
            weight[root] = 0
            var deepest: UInt32 = 0
            var node = root - 1
            while node >= 0 {
                weight[node] = weight[Int(parent[node])] + 1
                if node < leaves { deepest = max(deepest, weight[node]) }
                node -= 1
            }
            if deepest <= limit {
                for k in 0..<leaves { lengths[Int(keys[k] & 0xFFFF)] = UInt8(weight[k]) }
                return
            }
            shift += 1
        }
    }

    /// Fills `codes[0..<count]` with the canonical codes (RFC 1951 § 3.2.2) of `lengths`, bit-reversed for
    /// least-significant-bit-first packing.
    static func assignCodes(
        lengths: UnsafePointer<UInt8>, count: Int, into codes: UnsafeMutablePointer<DeflateCode>
    ) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 16) { next in
            next.initialize(repeating: 0)
            for symbol in 0..<count { next[Int(lengths[symbol])] += 1 }
            next[0] = 0
            // next[bits] becomes the first code of that length.
            var code: UInt32 = 0
            var previousCount: UInt32 = 0
            for bits in 1..<16 {
                let lengthCount = next[bits]
                code = (code + previousCount) << 1
                next[bits] = code
                previousCount = lengthCount
            }
            let reverse = DeflateTables.shared.reverseByte
            for symbol in 0..<count {
                let length = UInt32(lengths[symbol])
                if length == 0 {
                    codes[symbol] = DeflateCode(bits: 0, count: 0)
                    continue
                }
                let value = next[Int(length)]
                next[Int(length)] = value + 1
                let reversed =
                    (UInt32(reverse[Int(value & 0xFF)]) << 8 | UInt32(reverse[Int(value >> 8 & 0xFF)])) >> (16 - length)
                codes[symbol] = DeflateCode(bits: reversed, count: length)
            }
        }
    }
}
