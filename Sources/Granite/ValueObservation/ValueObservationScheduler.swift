import Dispatch
import Foundation

/// Where and when a ``ValueObservation`` delivers its values.
public protocol ValueObservationScheduler: Sendable {
    /// Whether the first value is delivered synchronously, before `start` returns.
    func immediateInitialValue() -> Bool

    /// Runs `action`, which delivers one value or error. Actions run in the order they are scheduled.
    func schedule(_ action: @escaping @Sendable () -> Void)
}

extension ValueObservationScheduler {
    /// Runs the delivery of the first value: right away when the scheduler asks for it, else scheduled.
    func scheduleInitial(_ action: @escaping @Sendable () -> Void) {
        if immediateInitialValue() { action() } else { schedule(action) }
    }
}

/// A scheduler that delivers values on the main actor.
public protocol ValueObservationMainActorScheduler: ValueObservationScheduler {
    /// Runs `action` on the main actor.
    func scheduleOnMainActor(_ action: @escaping @MainActor () -> Void)
}

extension ValueObservationMainActorScheduler {
    public func schedule(_ action: @escaping @Sendable () -> Void) {
        scheduleOnMainActor(action)
    }
}

/// Delivers every value asynchronously on a dispatch queue.
public struct AsyncValueObservationScheduler: ValueObservationScheduler {
    let queue: DispatchQueue

    /// A scheduler delivering on `queue`.
    public init(queue: DispatchQueue) {
        self.queue = queue
    }

    public func immediateInitialValue() -> Bool { false }

    public func schedule(_ action: @escaping @Sendable () -> Void) {
        queue.async(execute: action)
    }
}

extension ValueObservationScheduler where Self == AsyncValueObservationScheduler {
    /// Delivers every value asynchronously on `queue`.
    public static func async(onQueue queue: DispatchQueue) -> AsyncValueObservationScheduler {
        AsyncValueObservationScheduler(queue: queue)
    }
}

/// Delivers the first value synchronously, before `start` returns (which must be called on the main thread),
/// and the others asynchronously on the main queue.
public struct ImmediateValueObservationScheduler: ValueObservationMainActorScheduler {
    public init() {}

    public func immediateInitialValue() -> Bool {
        precondition(Thread.isMainThread, "ValueObservation must be started from the main thread.")
        return true
    }

    public func scheduleOnMainActor(_ action: @escaping @MainActor () -> Void) {
        DispatchQueue.main.async(execute: action)
    }
}

extension ValueObservationScheduler where Self == ImmediateValueObservationScheduler {
    /// Delivers the first value synchronously on the main thread, the others asynchronously on the main queue.
    public static var immediate: ImmediateValueObservationScheduler { ImmediateValueObservationScheduler() }
}

extension ValueObservationMainActorScheduler where Self == ImmediateValueObservationScheduler {
    /// Delivers the first value synchronously on the main thread, the others asynchronously on the main queue.
    public static var immediate: ImmediateValueObservationScheduler { ImmediateValueObservationScheduler() }
}

/// Delivers every value from one task, in order.
public final class TaskValueObservationScheduler: ValueObservationScheduler {
    private let continuation: AsyncStream<@Sendable () -> Void>.Continuation
    private let task: Task<Void, Never>

    init(priority: TaskPriority?) {
        let (actions, continuation) = AsyncStream.makeStream(of: (@Sendable () -> Void).self)
        self.continuation = continuation
        task = Task(priority: priority) {
            for await action in actions { action() }
        }
    }

    deinit {
        continuation.finish()
    }

    public func immediateInitialValue() -> Bool { false }

    public func schedule(_ action: @escaping @Sendable () -> Void) {
        continuation.yield(action)
    }
}

extension ValueObservationScheduler where Self == TaskValueObservationScheduler {
    /// Delivers every value from a task of its own.
    public static var task: TaskValueObservationScheduler { TaskValueObservationScheduler(priority: nil) }

    /// Delivers every value from a task of its own, of `priority`.
    public static func task(priority: TaskPriority) -> TaskValueObservationScheduler {
        TaskValueObservationScheduler(priority: priority)
    }
}

/// Delivers every value asynchronously on the main actor.
public final class DelayedMainActorValueObservationScheduler: ValueObservationMainActorScheduler {
    public func immediateInitialValue() -> Bool { false }

    public func scheduleOnMainActor(_ action: @escaping @MainActor () -> Void) {
        DispatchQueue.main.async(execute: action)
    }
}

extension ValueObservationScheduler where Self == DelayedMainActorValueObservationScheduler {
    /// Delivers every value asynchronously on the main actor.
    public static var mainActor: DelayedMainActorValueObservationScheduler {
        DelayedMainActorValueObservationScheduler()
    }
}
