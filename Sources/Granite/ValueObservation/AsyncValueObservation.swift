/// The values of a ``ValueObservation`` as an asynchronous sequence (see
/// ``ValueObservation/values(in:scheduling:bufferingPolicy:)``). Each iteration starts the observation, and
/// ending the iteration (or cancelling its task) stops it.
public struct AsyncValueObservation<Element: Sendable>: AsyncSequence, Sendable {
    /// How values wait when the iteration is slower than the observation.
    public typealias BufferingPolicy = AsyncThrowingStream<Element, any Error>.Continuation.BufferingPolicy
    public typealias AsyncIterator = Iterator

    /// Starts an observation that reports to the given callbacks.
    typealias Start =
        @Sendable (
            _ onError: @escaping @Sendable (any Error) -> Void, _ onChange: @escaping @Sendable (Element) -> Void
        ) -> AnyDatabaseCancellable

    private let bufferingPolicy: BufferingPolicy
    private let start: Start

    init(bufferingPolicy: BufferingPolicy, start: @escaping Start) {
        self.bufferingPolicy = bufferingPolicy
        self.start = start
    }

    public func makeAsyncIterator() -> Iterator {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Element.self, bufferingPolicy: bufferingPolicy)
        let cancellable = start(
            { error in continuation.finish(throwing: error) },
            { element in continuation.yield(element) })
        continuation.onTermination = { _ in cancellable.cancel() }
        return Iterator(base: stream.makeAsyncIterator(), cancellable: cancellable)
    }

    /// Iterates the values of the observation; the observation stops when the iterator is released.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Element, any Error>.AsyncIterator
        let cancellable: AnyDatabaseCancellable

        public mutating func next() async throws -> Element? {
            try await base.next()
        }
    }
}
