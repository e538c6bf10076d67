import Synchronization

/// What a connection knows of its file's ``DatabaseChangeFeed``: the subscriptions it last saw, and what it
/// records for them.
struct ChangeFeedState {
    /// The feed's ``DatabaseChangeFeed/version`` when the connection last looked at the subscriptions.
    var versionSeen: UInt64 = 0
    /// Whether observations hosted by other connections were subscribed then: the connection's commits are
    /// published only while they are.
    var isWatchedByOthers = false
    /// The storage engine's latest commit when the connection last looked.
    var commitsSeen: UInt64 = 0
    /// The recorder of the rows the connection's transactions change, while other connections watch.
    var recorder: ChangeFeedRecorder?
}

extension Database {
    /// After each statement: when the file's feed changed or another connection watches it, publishes the commit
    /// the statement made, if any (inlined, with one test for the common statement: nobody else watches).
    @inline(__always)
    func noteStatementForChangeFeed() {
        if changeFeedState.isWatchedByOthers
            || changeFeed.version.load(ordering: .relaxed) != changeFeedState.versionSeen
        {
            updateChangeFeed(changeFeed)
        }
    }

    /// Reads the subscriptions again when they changed, publishes a commit made since the last statement, and
    /// installs or removes the recorder of changes.
    @inline(never)
    private func updateChangeFeed(_ feed: DatabaseChangeFeed) {
        let version = feed.version.load(ordering: .sequentiallyConsistent)
        let subscriptionsChanged = version != changeFeedState.versionSeen
        changeFeedState.versionSeen = version
        // A connection that cannot write has no commit to tell.
        guard publishesToChangeFeed else { return }
        if subscriptionsChanged {
            changeFeedState.isWatchedByOthers = feed.isWatched(byOtherThan: self)
        }
        let commit = connection.engine.lastCommitSequence
        if commit != changeFeedState.commitsSeen {
            changeFeedState.commitsSeen = commit
            // Without a recorder that heard the whole transaction, the commit may have changed anything.
            let changes = changeFeedState.recorder?.takeCommitted() ?? .fullDatabase
            if changeFeedState.isWatchedByOthers && !changes.isEmpty {
                feed.publish(changes, committedBy: self, sequence: commit)
            }
        }
        if changeFeedState.isWatchedByOthers {
            if changeFeedState.recorder == nil {
                // Inside a transaction that changed nothing yet (after `BEGIN`), the recorder hears everything.
                let recorder = ChangeFeedRecorder(
                    missedChanges: isInsideTransaction && connection.engine.pager.hasChanges)
                changeFeedState.recorder = recorder
                add(transactionObserver: recorder, extent: .observerLifetime)
            }
        } else if let recorder = changeFeedState.recorder, !isInsideTransaction {
            changeFeedState.recorder = nil
            remove(transactionObserver: recorder)
        }
    }
}
