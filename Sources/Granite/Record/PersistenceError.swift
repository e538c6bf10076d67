/// The former name of ``RecordError``, kept for apps written for earlier GRDB versions.
@available(*, deprecated, renamed: "RecordError")
public typealias PersistenceError = RecordError
