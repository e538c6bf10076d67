#if compiler(>=6.2)
/// `SendableMetatype` where the compiler has it (Swift 6.2 and later), else `Any`: protocols whose conforming
/// types are used from `@Sendable` closures (such as ``DatabaseAggregate``) refine it, as in GRDB.
public typealias GRDBSendableMetatype = SendableMetatype
#else
/// `SendableMetatype` where the compiler has it (Swift 6.2 and later), else `Any`: protocols whose conforming
/// types are used from `@Sendable` closures (such as ``DatabaseAggregate``) refine it, as in GRDB.
public typealias GRDBSendableMetatype = Any
#endif
