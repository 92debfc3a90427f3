/// A bounded map from a statement's key (its SQL text, plus parameter types on PostgreSQL) to the
/// handle of that statement prepared on one connection; the least recently used entry makes room.
///
/// Each connection owns one and uses it from one thread at a time, so it is a plain value. The
/// cache only does the bookkeeping: the connection prepares, and releases what `insert` evicts and
/// what `removeAll` returns (`DEALLOCATE`, `sqlite3_finalize`).
struct StatementCache<Handle> {
    private struct Entry {
        var handle: Handle
        var lastUse: UInt64
    }

    /// How many statements are kept at most (at least one).
    let capacity: Int
    private var entries: [String: Entry] = [:]
    private var clock: UInt64 = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 1)
        entries.reserveCapacity(self.capacity)
    }

    /// The number of cached statements.
    var count: Int { entries.count }

    /// The handle prepared for `key`, marked as just used.
    mutating func handle(for key: String) -> Handle? {
        clock += 1
        guard let index = entries.index(forKey: key) else { return nil }
        entries.values[index].lastUse = clock
        return entries.values[index].handle
    }

    /// Adds a freshly prepared handle and returns the one evicted to make room, if any (the caller
    /// releases it). A handle already cached under `key` is replaced and returned.
    mutating func insert(_ handle: Handle, for key: String) -> Handle? {
        clock += 1
        if let previous = entries.updateValue(Entry(handle: handle, lastUse: clock), forKey: key) {
            return previous.handle
        }
        guard entries.count > capacity else { return nil }
        // A linear scan, but only when a new statement arrives at a full cache: the hot statements
        // of a server are a few dozen, far below the capacity, so this is rare.
        var oldestKey: String?
        var oldestUse = UInt64.max
        for (candidate, entry) in entries where candidate != key && entry.lastUse < oldestUse {
            oldestKey = candidate
            oldestUse = entry.lastUse
        }
        guard let oldestKey else { return nil }
        return entries.removeValue(forKey: oldestKey)?.handle
    }

    /// Forgets the handle for `key` and returns it.
    mutating func remove(_ key: String) -> Handle? {
        entries.removeValue(forKey: key)?.handle
    }

    /// Forgets every handle and returns them.
    mutating func removeAll() -> [Handle] {
        defer { entries.removeAll(keepingCapacity: true) }
        return entries.values.map(\.handle)
    }
}
