import Synchronization

/// A value kept in several copies, each behind a lock of its own, where each thread updates the
/// copy of its slot: for counters that every request thread bumps and a reader adds up now and
/// then (the HTTP metrics).
///
/// One lock shared by every request thread is the busiest thing in a server answering small
/// requests on few cores: a thread preempted while holding it makes every other one spin and then
/// sleep in the kernel. With a copy per thread, a thread takes a lock only the readers share.
/// Threads get their slots in turn (the first `count` threads one each; later ones share), so the
/// server's worker pool, started together, has one copy per worker.
public final class ThreadShards<Value: Sendable>: Sendable {
    private final class Shard: Sendable {
        let value: Mutex<Value>
        init(_ value: sending Value) { self.value = Mutex(value) }
    }

    private let shards: [Shard]

    /// `count` copies, each made by `make`.
    public init(count: Int = 32, _ make: () -> Value) {
        shards = (0..<max(count, 1)).map { _ in Shard(make()) }
    }

    /// Runs `body` on this thread's copy.
    public func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
        shards[ThreadSlot.current % shards.count].value.withLock { body(&$0) }
    }

    /// `body` of every copy, each read under its lock.
    public func map<Result>(_ body: (Value) -> Result) -> [Result] {
        shards.map { shard in shard.value.withLock { body($0) } }
    }
}

/// A small number per thread, handed out in turn on the thread's first use.
enum ThreadSlot {
    private final class Slot {
        let index: Int
        init(_ index: Int) { self.index = index }
    }

    private static let next = Atomic<Int>(0)
    private static let slot = ThreadLocal { Slot(next.wrappingAdd(1, ordering: .relaxed).oldValue & Int(Int32.max)) }

    static var current: Int { slot.current.index }
}
