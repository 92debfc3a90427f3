// A log sink for the busy server: no lock shared by the writing threads, no system call on them.
//
// Every thread that writes gets a buffer of its own (found through a pthread key), guarded by a
// lock that only that thread and the flusher ever take, so a line costs an uncontended lock and a
// copy. One writer thread takes every buffer's bytes each `interval`, or sooner when a buffer
// passes `threshold` bytes, and writes them to the file descriptor with one `write(2)` per batch.
// `flush()` does the same at once from the caller; `shutdown()` stops the writer after a last
// flush, so nothing written before it is lost (the server calls it when SIGTERM's drain is done).
// A crash loses at most the last `interval` of lines.
//
// Order: each thread's lines keep their order; lines of different threads written within one
// interval may come out of order between threads (every line carries its timestamp).
//
// Memory: a thread's buffer holds at most `bufferLimit` bytes; lines past it (the file descriptor
// blocked for long) are dropped and counted, and the count is written as a line of its own once
// the writer gets through, rather than stalling request threads on a full pipe.

import Foundation
import Synchronization

/// Writes lines to a file descriptor in batches from a thread of its own (see the file's header).
public final class BufferedSink: LogSink, Sendable {
    /// One writing thread's pending bytes.
    private final class ThreadBuffer: Sendable {
        struct State {
            var bytes: [UInt8] = []
            var dropped = 0
            /// The thread ended: the buffer is forgotten once emptied.
            var ended = false
        }
        let state = Mutex(State())
    }

    private let descriptor: Int32
    private let interval: Duration
    private let threshold: Int
    private let bufferLimit: Int
    private let key: pthread_key_t
    /// Every thread's buffer; taken when a thread writes its first line and by the writer.
    private let buffers = Mutex<[ThreadBuffer]>([])
    private let stopped = Atomic(false)
    /// Taken by whoever writes to the descriptor (the writer thread, `flush`), so batches never
    /// interleave; never by the threads that log.
    private let output = Mutex(())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    /// A sink writing to `descriptor` (standard error by default) every `interval`, or sooner once
    /// a thread has `threshold` bytes waiting; at most `bufferLimit` bytes wait per thread.
    public init(descriptor: Int32 = 2, interval: Duration = .milliseconds(50), threshold: Int = 32 << 10, bufferLimit: Int = 4 << 20) {
        self.descriptor = descriptor
        self.interval = interval
        self.threshold = threshold
        self.bufferLimit = bufferLimit
        var key = pthread_key_t()
        // The destructor runs when a thread that wrote ends: it marks the buffer so the writer
        // forgets it once it is empty, and releases the thread's reference.
        pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            let buffer = Unmanaged<ThreadBuffer>.fromOpaque(pointer).takeRetainedValue()
            buffer.state.withLock { $0.ended = true }
        }
        self.key = key
        // The writer holds the sink until `shutdown()`.
        let thread = Thread { self.writerLoop() }
        thread.name = "log-writer"
        thread.start()
    }

    public func write(_ line: String) {
        let buffer = threadBuffer()
        let waiting = buffer.state.withLock { state -> Int in
            let count = line.utf8.count + 1
            guard state.bytes.count + count <= bufferLimit else {
                state.dropped += 1
                return 0
            }
            state.bytes.append(contentsOf: line.utf8)
            state.bytes.append(0x0A)
            return state.bytes.count
        }
        if stopped.load(ordering: .acquiring) {
            flush()
        } else if waiting >= threshold, waiting - line.utf8.count - 1 < threshold {
            wake.signal()
        }
    }

    /// Writes every line written so far before returning.
    public func flush() {
        output.withLock { _ in drain() }
    }

    /// Writes what is waiting and stops the writer thread; lines written afterwards go out at once,
    /// from the thread that writes them. Safe to call more than once.
    public func shutdown() {
        guard stopped.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return flush() }
        wake.signal()
        finished.wait()
        flush()
    }

    /// This thread's buffer, made and registered on its first line.
    private func threadBuffer() -> ThreadBuffer {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<ThreadBuffer>.fromOpaque(pointer).takeUnretainedValue()
        }
        let buffer = ThreadBuffer()
        pthread_setspecific(key, Unmanaged.passRetained(buffer).toOpaque())
        buffers.withLock { $0.append(buffer) }
        return buffer
    }

    private func writerLoop() {
        let nanoseconds = interval.components.seconds * 1_000_000_000 + interval.components.attoseconds / 1_000_000_000
        while true {
            _ = wake.wait(timeout: .now() + .nanoseconds(Int(nanoseconds)))
            let stopping = stopped.load(ordering: .acquiring)
            output.withLock { _ in drain() }
            if stopping { break }
        }
        finished.signal()
    }

    /// Takes every buffer's bytes (forgetting the buffers of ended threads) and writes them. Called
    /// with `output` held.
    private func drain() {
        let buffers = buffers.withLock { buffers -> [ThreadBuffer] in
            buffers.removeAll { buffer in buffer.state.withLock { $0.ended && $0.bytes.isEmpty && $0.dropped == 0 } }
            return buffers
        }
        var batch: [UInt8] = []
        var dropped = 0
        for buffer in buffers {
            buffer.state.withLock { state in
                if batch.isEmpty {
                    swap(&batch, &state.bytes)
                } else {
                    batch.append(contentsOf: state.bytes)
                    state.bytes.removeAll(keepingCapacity: true)
                }
                dropped += state.dropped
                state.dropped = 0
            }
        }
        if dropped > 0 {
            let line = Logger.format(level: .warning, label: "log", message: "lines dropped while the log could not be written", metadata: ["count": String(dropped)])
            batch.append(contentsOf: (line + "\n").utf8)
        }
        writeAll(batch)
    }

    private func writeAll(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            guard var start = raw.baseAddress else { return }
            var remaining = raw.count
            while remaining > 0 {
                let written = Foundation.write(descriptor, start, remaining)
                if written < 0, errno == EINTR { continue }
                if written <= 0 { return }
                start += written
                remaining -= written
            }
        }
    }
}
