import GraniteSQL

extension Database {
    /// Registers `function` on this connection, replacing the function of the same name and argument count
    /// (and, for the calls it accepts, hiding a built-in SQL function of the same name).
    ///
    /// A ``DatabasePool`` has several connections: register functions for all of them in
    /// ``Configuration/prepareDatabase(_:)``:
    ///
    /// ```swift
    /// var config = Configuration()
    /// config.prepareDatabase { db in
    ///     db.add(function: succ)
    /// }
    /// let dbPool = try DatabasePool(path: path, configuration: config)
    /// ```
    public func add(function: DatabaseFunction) {
        connection.addFunction(function.engineFunction)
    }

    /// Unregisters the function with the name and argument count of `function`; SQL calling it then fails
    /// with `no such function`.
    public func remove(function: DatabaseFunction) {
        connection.removeFunction(
            named: function.name, argumentCount: function.id.argumentCount < 0 ? nil : function.id.argumentCount)
    }

    /// Registers `collation` on this connection, replacing the collation of the same name (ignoring ASCII
    /// case). Register collations for all connections of a ``DatabasePool`` in
    /// ``Configuration/prepareDatabase(_:)``.
    public func add(collation: DatabaseCollation) {
        connection.addCollation(collation.engineCollation)
    }

    /// Unregisters the collation named like `collation`; SQL naming it then fails with
    /// `no such collation sequence`.
    public func remove(collation: DatabaseCollation) {
        connection.removeCollation(named: collation.name)
    }

    /// Registers the functions and collations GRDB gives every connection.
    func addStandardFunctionsAndCollations() {
        for function in DatabaseFunction.registeredOnEveryConnection { add(function: function) }
        for collation in DatabaseCollation.registeredOnEveryConnection { add(collation: collation) }
    }
}
