import Glibc

/// An object per thread, made on the thread's first use and released when the thread ends, kept
/// in a pthread key: a lookup is one `pthread_getspecific`, where Foundation's thread dictionary
/// hashes a bridged key.
public final class ThreadLocal<Value: AnyObject>: @unchecked Sendable {
    // @unchecked: `key` is set once in init; `make` is Sendable; each thread sees only its own value.
    private let key: pthread_key_t
    private let make: @Sendable () -> Value

    /// `make` makes a thread's value on its first use.
    public init(_ make: @escaping @Sendable () -> Value) {
        var key = pthread_key_t()
        let created = pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<AnyObject>.fromOpaque(pointer).release() }
        }
        precondition(created == 0, "pthread_key_create failed: \(created)")
        self.key = key
        self.make = make
    }

    /// This thread's value.
    public var current: Value {
        if let pointer = pthread_getspecific(key) {
            return unsafeDowncast(Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue(), to: Value.self)
        }
        let value = make()
        pthread_setspecific(key, Unmanaged<AnyObject>.passRetained(value).toOpaque())
        return value
    }
}
