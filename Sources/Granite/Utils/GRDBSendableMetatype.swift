/// The standard `SendableMetatype` protocol of Swift 6.2, under the name GRDB gives it, for generic code
/// that constrains types whose metatypes cross isolation domains (`T: GRDBSendableMetatype`).
public typealias GRDBSendableMetatype = SendableMetatype
