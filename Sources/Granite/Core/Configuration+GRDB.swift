import Dispatch

extension Configuration {
    /// The quality of service of reads: that of ``targetQueue`` when there is one, else ``qos``.
    public var readQoS: DispatchQoS { targetQueue?.qos ?? qos }

    /// The quality of service of writes: that of ``writeTargetQueue``, else of ``targetQueue``, else ``qos``.
    public var writeQoS: DispatchQoS { writeTargetQueue?.qos ?? targetQueue?.qos ?? qos }
}

extension Database {
    /// Decides whether a connection that finds the database locked tries again: it receives the number of
    /// tries so far, and returns true to try again. See ``BusyMode/callback(_:)``.
    public typealias BusyCallback = @Sendable (_ numberOfTries: Int) -> Bool
}
