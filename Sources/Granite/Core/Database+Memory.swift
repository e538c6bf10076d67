import Dispatch

extension Database {
    /// Frees as much memory as the connection can: its prepared statements, schema caches and page cache (the
    /// page cache only between transactions, when no statement runs). Everything is read or prepared again
    /// when needed.
    public func releaseMemory() {
        clearStatementCache()
        clearSchemaCache()
        connection.engine.releaseMemory()
    }
}

extension DatabaseQueue {
    /// Frees as much memory as the connection can (``Database/releaseMemory()``), once the accesses in
    /// progress are done.
    public func releaseMemory() {
        writer.syncRethrowing { db in db.releaseMemory() }
    }
}

extension DatabasePool {
    /// Frees as much memory as the writer and the readers can (``Database/releaseMemory()``), waiting for the
    /// reads in progress to end.
    public func releaseMemory() {
        writer.syncRethrowing { db in db.releaseMemory() }
        readerPool.barrier {
            for reader in readerPool.readers { reader.syncRethrowing { db in db.releaseMemory() } }
        }
    }

    /// Frees memory like ``releaseMemory()``, without waiting: the work runs in the background once the reads
    /// in progress end.
    public func releaseMemoryEventually() {
        DispatchQueue.global(qos: configuration.qos.qosClass).async { [self] in releaseMemory() }
    }
}
