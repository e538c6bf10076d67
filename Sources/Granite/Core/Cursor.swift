/// A sequence of elements produced one at a time, where producing an element may throw: the way Granite
/// iterates database results without loading them all.
///
/// ```swift
/// let names = try String.fetchCursor(db, sql: "SELECT name FROM player")
/// while let name = try names.next() {
///     print(name)
/// }
/// ```
///
/// Cursors are classes: iterating one consumes it. Database cursors must be used inside the database access
/// closure they were created in.
public protocol Cursor<Element>: AnyObject {
    /// The type of the elements.
    associatedtype Element

    /// The next element, or nil when the cursor is exhausted.
    func next() throws -> Element?
}

extension Cursor {
    /// Whether the cursor has no (more) element. Consumes one element.
    public var isEmpty: Bool {
        get throws { try next() == nil }
    }

    /// Whether an element satisfies `predicate` (consumes elements up to the first match).
    public func contains(where predicate: (Element) throws -> Bool) throws -> Bool {
        while let element = try next() { if try predicate(element) { return true } }
        return false
    }

    /// The first element that satisfies `predicate`.
    public func first(where predicate: (Element) throws -> Bool) throws -> Element? {
        while let element = try next() { if try predicate(element) { return element } }
        return nil
    }

    /// Pairs of a counter starting at zero and an element.
    public func enumerated() -> EnumeratedCursor<Self> { EnumeratedCursor(self) }

    /// The elements that satisfy `isIncluded`.
    public func filter(_ isIncluded: @escaping (Element) throws -> Bool) -> FilterCursor<Self> {
        FilterCursor(self, isIncluded)
    }

    /// The non-nil results of `transform`.
    public func compactMap<ElementOfResult>(
        _ transform: @escaping (Element) throws -> ElementOfResult?
    ) -> MapCursor<FilterCursor<MapCursor<Self, ElementOfResult?>>, ElementOfResult> {
        map(transform).filter { $0 != nil }.map { $0! }
    }

    /// The elements after those that satisfy `predicate`.
    public func drop(while predicate: @escaping (Element) throws -> Bool) -> DropWhileCursor<Self> {
        DropWhileCursor(self, predicate)
    }

    /// The elements after the first `n`.
    public func dropFirst(_ n: Int) -> DropFirstCursor<Self> {
        DropFirstCursor(self, n)
    }

    /// All elements but the last `n`.
    public func dropLast(_ n: Int) throws -> [Element] {
        precondition(n >= 0, "can't drop a negative number of elements")
        let all = try Array(self)
        return Array(all.dropLast(n))
    }

    /// The concatenation of the cursors returned by `transform`.
    public func flatMap<SegmentOfResult: Cursor>(
        _ transform: @escaping (Element) throws -> SegmentOfResult
    ) -> FlattenCursor<MapCursor<Self, SegmentOfResult>> {
        map(transform).joined()
    }

    /// The concatenation of the sequences returned by `transform`.
    public func flatMap<SegmentOfResult: Sequence>(
        _ transform: @escaping (Element) throws -> SegmentOfResult
    ) -> FlattenCursor<MapCursor<Self, AnyCursor<SegmentOfResult.Element>>> {
        map { try AnyCursor(transform($0)) }.joined()
    }

    /// Calls `body` on each element.
    public func forEach(_ body: (Element) throws -> Void) throws {
        while let element = try next() { try body(element) }
    }

    /// The results of `transform` on each element.
    public func map<T>(_ transform: @escaping (Element) throws -> T) -> MapCursor<Self, T> {
        MapCursor(self, transform)
    }

    /// The largest element by `areInIncreasingOrder`.
    public func max(by areInIncreasingOrder: (Element, Element) throws -> Bool) throws -> Element? {
        guard var result = try next() else { return nil }
        while let element = try next() { if try areInIncreasingOrder(result, element) { result = element } }
        return result
    }

    /// The smallest element by `areInIncreasingOrder`.
    public func min(by areInIncreasingOrder: (Element, Element) throws -> Bool) throws -> Element? {
        guard var result = try next() else { return nil }
        while let element = try next() { if try areInIncreasingOrder(element, result) { result = element } }
        return result
    }

    /// The first `maxLength` elements.
    public func prefix(_ maxLength: Int) -> PrefixCursor<Self> { PrefixCursor(self, maxLength) }

    /// The elements up to the first that does not satisfy `predicate`.
    public func prefix(while predicate: @escaping (Element) throws -> Bool) -> PrefixWhileCursor<Self> {
        PrefixWhileCursor(self, predicate)
    }

    /// Combines the elements with `nextPartialResult`, starting from `initialResult`.
    public func reduce<Result>(
        _ initialResult: Result, _ nextPartialResult: (Result, Element) throws -> Result
    ) throws -> Result {
        var result = initialResult
        while let element = try next() { result = try nextPartialResult(result, element) }
        return result
    }

    /// Combines the elements into `initialResult` with `updateAccumulatingResult`.
    public func reduce<Result>(
        into initialResult: Result, _ updateAccumulatingResult: (inout Result, Element) throws -> Void
    ) throws -> Result {
        var result = initialResult
        while let element = try next() { try updateAccumulatingResult(&result, element) }
        return result
    }

    /// The last `maxLength` elements.
    public func suffix(_ maxLength: Int) throws -> [Element] {
        precondition(maxLength >= 0, "can't take a suffix of negative length")
        return Array(try Array(self).suffix(maxLength))
    }
}

extension Cursor where Element: Equatable {
    /// Whether the cursor holds `element` (consumes elements up to the first match).
    public func contains(_ element: Element) throws -> Bool {
        try contains { $0 == element }
    }
}

extension Cursor where Element: Comparable {
    /// The largest element.
    public func max() throws -> Element? { try max(by: <) }
    /// The smallest element.
    public func min() throws -> Element? { try min(by: <) }
}

extension Cursor where Element: Cursor {
    /// The elements of each cursor, in order.
    public func joined() -> FlattenCursor<Self> { FlattenCursor(self) }
}

extension Cursor where Element: Sequence {
    /// The elements of each sequence, in order.
    public func joined() -> FlattenCursor<MapCursor<Self, AnyCursor<Element.Element>>> {
        map { AnyCursor($0) }.joined()
    }
}

extension Cursor where Element: StringProtocol {
    /// The strings, concatenated with `separator` between them.
    public func joined(separator: String = "") throws -> String {
        var result = ""
        var first = true
        while let element = try next() {
            if !first { result += separator }
            result += element
            first = false
        }
        return result
    }
}

// MARK: - Collections from cursors

extension RangeReplaceableCollection {
    /// A collection of the cursor's elements.
    public init(_ cursor: some Cursor<Element>) throws {
        self.init()
        while let element = try cursor.next() { append(element) }
    }

    /// A collection of the cursor's elements, with room for `minimumCapacity` elements.
    public init(_ cursor: some Cursor<Element>, minimumCapacity: Int) throws {
        self.init()
        reserveCapacity(minimumCapacity)
        while let element = try cursor.next() { append(element) }
    }

    /// Appends the cursor's elements.
    public mutating func append(contentsOf newElements: some Cursor<Element>) throws {
        while let element = try newElements.next() { append(element) }
    }
}

extension Set {
    /// A set of the cursor's elements.
    public init(_ cursor: some Cursor<Element>) throws {
        self.init()
        while let element = try cursor.next() { insert(element) }
    }

    /// A set of the cursor's elements, with room for `minimumCapacity` elements.
    public init(_ cursor: some Cursor<Element>, minimumCapacity: Int) throws {
        self.init(minimumCapacity: minimumCapacity)
        while let element = try cursor.next() { insert(element) }
    }

    /// The union with the cursor's elements.
    public func union(_ cursor: some Cursor<Element>) throws -> Set<Element> {
        var result = self
        try result.formUnion(cursor)
        return result
    }

    /// Inserts the cursor's elements.
    public mutating func formUnion(_ cursor: some Cursor<Element>) throws {
        while let element = try cursor.next() { insert(element) }
    }

    /// The elements also in the cursor.
    public func intersection(_ cursor: some Cursor<Element>) throws -> Set<Element> {
        var result = self
        try result.formIntersection(cursor)
        return result
    }

    /// Keeps the elements also in the cursor.
    public mutating func formIntersection(_ cursor: some Cursor<Element>) throws {
        self = intersection(try Set(cursor))
    }
}

extension Dictionary {
    /// The cursor's elements grouped by `keyForValue`.
    public init<C: Cursor>(grouping cursor: C, by keyForValue: (C.Element) throws -> Key) throws
    where Value == [C.Element] {
        self.init()
        while let element = try cursor.next() { self[try keyForValue(element), default: []].append(element) }
    }

    /// The cursor's elements grouped by `keyForValue`, with room for `minimumCapacity` keys.
    public init<C: Cursor>(minimumCapacity: Int, grouping cursor: C, by keyForValue: (C.Element) throws -> Key)
        throws
    where Value == [C.Element] {
        self.init(minimumCapacity: minimumCapacity)
        while let element = try cursor.next() { self[try keyForValue(element), default: []].append(element) }
    }

    /// A dictionary of the cursor's key-value pairs; a duplicate key is a programmer error.
    public init(uniqueKeysWithValues keysAndValues: some Cursor<(Key, Value)>) throws {
        self.init()
        while let (key, value) = try keysAndValues.next() {
            precondition(updateValue(value, forKey: key) == nil, "Dictionary literal contains duplicate keys")
        }
    }

    /// A dictionary of the cursor's key-value pairs, with room for `minimumCapacity` keys.
    public init(minimumCapacity: Int, uniqueKeysWithValues keysAndValues: some Cursor<(Key, Value)>) throws {
        self.init(minimumCapacity: minimumCapacity)
        while let (key, value) = try keysAndValues.next() {
            precondition(updateValue(value, forKey: key) == nil, "Dictionary literal contains duplicate keys")
        }
    }
}

extension Sequence {
    /// The concatenation of the cursors returned by `transform`.
    public func flatMap<SegmentOfResult: Cursor>(
        _ transform: @escaping (Element) throws -> SegmentOfResult
    ) -> FlattenCursor<MapCursor<AnyCursor<Element>, SegmentOfResult>> {
        AnyCursor(self).flatMap(transform)
    }
}

// MARK: - Cursor types

/// A type-erased cursor.
public final class AnyCursor<Element>: Cursor {
    private let element: () throws -> Element?

    /// Wraps `base`.
    public init<C: Cursor>(_ base: C) where C.Element == Element {
        element = base.next
    }

    /// Wraps an iterator.
    public convenience init<I: IteratorProtocol>(iterator: I) where I.Element == Element {
        var iterator = iterator
        self.init { iterator.next() }
    }

    /// Wraps a sequence.
    public convenience init<S: Sequence>(_ sequence: S) where S.Element == Element {
        self.init(iterator: sequence.makeIterator())
    }

    /// A cursor whose elements come from `next`.
    public init(_ next: @escaping () throws -> Element?) {
        element = next
    }

    /// The next element.
    public func next() throws -> Element? { try element() }
}

/// The elements of a cursor after the first few.
public final class DropFirstCursor<Base: Cursor>: Cursor {
    private let base: Base
    private var remaining: Int
    init(_ base: Base, _ n: Int) {
        precondition(n >= 0, "can't drop a negative number of elements")
        self.base = base
        remaining = n
    }
    /// The next element.
    public func next() throws -> Base.Element? {
        while remaining > 0 {
            remaining -= 1
            if try base.next() == nil { return nil }
        }
        return try base.next()
    }
}

/// The elements of a cursor after those that satisfy a predicate.
public final class DropWhileCursor<Base: Cursor>: Cursor {
    private let base: Base
    private let predicate: (Base.Element) throws -> Bool
    private var dropped = false
    init(_ base: Base, _ predicate: @escaping (Base.Element) throws -> Bool) {
        self.base = base
        self.predicate = predicate
    }
    /// The next element.
    public func next() throws -> Base.Element? {
        if dropped { return try base.next() }
        while let element = try base.next() {
            if try !predicate(element) {
                dropped = true
                return element
            }
        }
        return nil
    }
}

/// Pairs of a counter and the elements of a cursor.
public final class EnumeratedCursor<Base: Cursor>: Cursor {
    private let base: Base
    private var index = 0
    init(_ base: Base) { self.base = base }
    /// The next pair.
    public func next() throws -> (Int, Base.Element)? {
        guard let element = try base.next() else { return nil }
        defer { index += 1 }
        return (index, element)
    }
}

/// The elements of a cursor that satisfy a predicate.
public final class FilterCursor<Base: Cursor>: Cursor {
    private let base: Base
    private let isIncluded: (Base.Element) throws -> Bool
    init(_ base: Base, _ isIncluded: @escaping (Base.Element) throws -> Bool) {
        self.base = base
        self.isIncluded = isIncluded
    }
    /// The next included element.
    public func next() throws -> Base.Element? {
        while let element = try base.next() { if try isIncluded(element) { return element } }
        return nil
    }
}

/// The elements of the cursors of a cursor.
public final class FlattenCursor<Base: Cursor>: Cursor where Base.Element: Cursor {
    private let base: Base
    private var inner: Base.Element?
    init(_ base: Base) { self.base = base }
    /// The next element.
    public func next() throws -> Base.Element.Element? {
        while true {
            if let inner, let element = try inner.next() { return element }
            guard let nextInner = try base.next() else { return nil }
            inner = nextInner
        }
    }
}

/// The transformed elements of a cursor.
public final class MapCursor<Base: Cursor, Element>: Cursor {
    private let base: Base
    private let transform: (Base.Element) throws -> Element
    init(_ base: Base, _ transform: @escaping (Base.Element) throws -> Element) {
        self.base = base
        self.transform = transform
    }
    /// The next transformed element.
    public func next() throws -> Element? {
        guard let element = try base.next() else { return nil }
        return try transform(element)
    }
}

/// The first elements of a cursor.
public final class PrefixCursor<Base: Cursor>: Cursor {
    private let base: Base
    private var remaining: Int
    init(_ base: Base, _ maxLength: Int) {
        precondition(maxLength >= 0, "can't take a prefix of negative length")
        self.base = base
        remaining = maxLength
    }
    /// The next element.
    public func next() throws -> Base.Element? {
        guard remaining > 0 else { return nil }
        remaining -= 1
        return try base.next()
    }
}

/// The elements of a cursor up to the first that fails a predicate.
public final class PrefixWhileCursor<Base: Cursor>: Cursor {
    private let base: Base
    private let predicate: (Base.Element) throws -> Bool
    private var done = false
    init(_ base: Base, _ predicate: @escaping (Base.Element) throws -> Bool) {
        self.base = base
        self.predicate = predicate
    }
    /// The next element.
    public func next() throws -> Base.Element? {
        guard !done, let element = try base.next() else { return nil }
        if try predicate(element) { return element }
        done = true
        return nil
    }
}

@available(*, unavailable) extension AnyCursor: Sendable {}
@available(*, unavailable) extension DropFirstCursor: Sendable {}
@available(*, unavailable) extension DropWhileCursor: Sendable {}
@available(*, unavailable) extension EnumeratedCursor: Sendable {}
@available(*, unavailable) extension FilterCursor: Sendable {}
@available(*, unavailable) extension FlattenCursor: Sendable {}
@available(*, unavailable) extension MapCursor: Sendable {}
@available(*, unavailable) extension PrefixCursor: Sendable {}
@available(*, unavailable) extension PrefixWhileCursor: Sendable {}
