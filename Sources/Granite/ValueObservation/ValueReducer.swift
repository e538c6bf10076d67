/// The machinery of ``ValueReducer``: a Sendable fetcher that reads the database, and a reduction of the
/// fetched values into the values an observation delivers (which may skip some). Reducers are not Sendable:
/// an observation runs its reducer from one place at a time.
public protocol _ValueReducer: SendableMetatype {
    /// Reads the database.
    associatedtype Fetcher: _ValueReducerFetcher
    /// The delivered values.
    associatedtype Value: Sendable
    /// The fetcher of the reducer.
    func _makeFetcher() -> Fetcher
    /// The value to deliver for a fetched value, or nil to deliver nothing.
    mutating func _value(_ fetched: Fetcher.Value) throws -> Value?
}

/// Reads the database for a ``ValueReducer``, from any connection, possibly concurrently.
public protocol _ValueReducerFetcher: Sendable {
    /// What it fetches.
    associatedtype Value
    /// Fetches from `db`.
    func fetch(_ db: Database) throws -> Value
}

/// Fetches and transforms the values of a ``ValueObservation``.
public protocol ValueReducer: _ValueReducer {}

/// The reducers of ``ValueObservation`` and its operators.
public enum ValueReducers {}

extension ValueReducers {
    /// Delivers each fetched value as it is.
    public struct Fetch<Value: Sendable>: ValueReducer {
        /// The fetch closure, as a fetcher.
        public struct _Fetcher: _ValueReducerFetcher {
            let fetch: @Sendable (Database) throws -> Value
            public func fetch(_ db: Database) throws -> Value { try fetch(db) }
        }

        private let fetch: @Sendable (Database) throws -> Value

        init(_ fetch: @escaping @Sendable (Database) throws -> Value) {
            self.fetch = fetch
        }

        public func _makeFetcher() -> _Fetcher { _Fetcher(fetch: fetch) }

        public func _value(_ fetched: Value) throws -> Value? { fetched }
    }

    /// Delivers the values of its base reducer, transformed.
    public struct Map<Base: _ValueReducer, Value: Sendable>: ValueReducer {
        var base: Base
        let transform: @Sendable (Base.Value) throws -> Value

        public func _makeFetcher() -> Base.Fetcher { base._makeFetcher() }

        public mutating func _value(_ fetched: Base.Fetcher.Value) throws -> Value? {
            guard let value = try base._value(fetched) else { return nil }
            return try transform(value)
        }
    }

    /// Delivers the values of its base reducer that differ from the previous one delivered.
    public struct RemoveDuplicates<Base: ValueReducer>: ValueReducer {
        var base: Base
        let isDuplicate: (Base.Value, Base.Value) -> Bool
        private var previous: Base.Value?

        init(base: Base, isDuplicate: @escaping (Base.Value, Base.Value) -> Bool) {
            self.base = base
            self.isDuplicate = isDuplicate
        }

        public func _makeFetcher() -> Base.Fetcher { base._makeFetcher() }

        public mutating func _value(_ fetched: Base.Fetcher.Value) throws -> Base.Value? {
            guard let value = try base._value(fetched) else { return nil }
            if let previous, isDuplicate(previous, value) { return nil }
            previous = value
            return value
        }
    }

    /// Delivers the values of its base reducer, telling ``ValueObservation/handleEvents(willStart:willFetch:willTrackRegion:databaseDidChange:didReceiveValue:didFail:didCancel:)``
    /// of each fetch and value.
    public struct Trace<Base: ValueReducer>: ValueReducer {
        /// The base fetcher, announcing each fetch.
        public struct _Fetcher: _ValueReducerFetcher {
            let base: Base.Fetcher
            let willFetch: @Sendable () -> Void

            public func fetch(_ db: Database) throws -> Base.Fetcher.Value {
                willFetch()
                return try base.fetch(db)
            }
        }

        var base: Base
        let willFetch: @Sendable () -> Void
        let didReceiveValue: @Sendable (Base.Value) -> Void

        public func _makeFetcher() -> _Fetcher { _Fetcher(base: base._makeFetcher(), willFetch: willFetch) }

        public mutating func _value(_ fetched: Base.Fetcher.Value) throws -> Base.Value? {
            guard let value = try base._value(fetched) else { return nil }
            didReceiveValue(value)
            return value
        }
    }
}
