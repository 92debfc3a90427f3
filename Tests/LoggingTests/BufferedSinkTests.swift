import Foundation
import PassServerTesting
import Synchronization
import Testing

@testable import Logging

/// The server's log sink: lines batched per thread and written by a thread of its own, none lost.
@Suite("Buffered log sink", .offCooperativePool, .timeLimit(.minutes(1)))
struct BufferedSinkTests {
    /// A pipe whose read end the test drains; the write end is the sink's descriptor.
    final class Pipe: @unchecked Sendable {
        // Safe because: the descriptors are set once and only read afterwards.
        let readEnd: Int32
        let writeEnd: Int32

        /// A pipe holding `capacity` bytes (Linux's default is 64 KiB): a writer of more blocks
        /// until the test reads.
        init(capacity: Int32 = 1 << 20) throws {
            var ends: [Int32] = [0, 0]
            try #require(pipe(&ends) == 0)
            readEnd = ends[0]
            writeEnd = ends[1]
            _ = fcntl(readEnd, F_SETFL, fcntl(readEnd, F_GETFL) | O_NONBLOCK)
            // F_SETPIPE_SZ (Linux, 1031): Glibc's module leaves the GNU-only name out.
            let setPipeSize: Int32 = 1031
            #expect(fcntl(writeEnd, setPipeSize, capacity) >= capacity)
        }

        deinit {
            close(readEnd)
            close(writeEnd)
        }

        /// Whatever has arrived, without waiting.
        func available() -> String {
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = Glibc.read(readEnd, &chunk, chunk.count)
                if count <= 0 { break }
                bytes += chunk[0..<count]
            }
            return String(decoding: bytes, as: UTF8.self)
        }

        /// What arrives until `done` holds for everything read so far, or `timeout` passes.
        func read(until done: (String) -> Bool, timeout: TimeInterval, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
            let deadline = Date().addingTimeInterval(timeout)
            var text = ""
            while true {
                text += available()
                if done(text) { return text }
                try #require(Date() < deadline, "not within \(timeout) s; got \(text.count) characters", sourceLocation: sourceLocation)
                usleep(5_000)
            }
        }
    }

    @Test("eight threads' lines all arrive once after flush, each thread's in its order")
    func manyThreads() throws {
        let pipe = try Pipe()
        // Longer than the test: only flush() writes.
        let sink = BufferedSink(descriptor: pipe.writeEnd, interval: .seconds(60), threshold: 1 << 30)
        defer { sink.shutdown(); withExtendedLifetime(pipe) {} }
        let threads = 8, lines = 500
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for line in 0..<lines { sink.write("thread=\(thread) line=\(line)") }
        }
        #expect(pipe.available().isEmpty, "nothing is written before the interval or a flush")
        sink.flush()
        let written = pipe.available().split(separator: "\n").map(String.init)
        #expect(written.count == threads * lines)
        for thread in 0..<threads {
            let own = written.filter { $0.hasPrefix("thread=\(thread) ") }
            #expect(own == (0..<lines).map { "thread=\(thread) line=\($0)" }, "thread \(thread)'s lines in order")
        }
    }

    @Test("a line goes out within the interval without a flush")
    func interval() throws {
        let pipe = try Pipe()
        let sink = BufferedSink(descriptor: pipe.writeEnd, interval: .milliseconds(50))
        defer { sink.shutdown(); withExtendedLifetime(pipe) {} }
        sink.write("first")
        let text = try pipe.read(until: { $0.contains("first\n") }, timeout: 5)
        #expect(text == "first\n")
    }

    @Test("a thread passing the threshold wakes the writer before the interval")
    func threshold() throws {
        let pipe = try Pipe()
        let sink = BufferedSink(descriptor: pipe.writeEnd, interval: .seconds(60), threshold: 1_000)
        defer { sink.shutdown(); withExtendedLifetime(pipe) {} }
        sink.write(String(repeating: "a", count: 500))
        usleep(200_000)
        #expect(pipe.available().isEmpty, "under the threshold it waits for the interval")
        sink.write(String(repeating: "b", count: 600))
        let text = try pipe.read(until: { $0.hasSuffix(String(repeating: "b", count: 600) + "\n") }, timeout: 5)
        #expect(text.count == 1_102)
    }

    @Test("shutdown writes what waits; a line after it is written at once")
    func shutdown() throws {
        let pipe = try Pipe()
        let sink = BufferedSink(descriptor: pipe.writeEnd, interval: .seconds(60), threshold: 1 << 30)
        sink.write("before")
        #expect(pipe.available().isEmpty)
        sink.shutdown()
        #expect(pipe.available() == "before\n")
        sink.write("after")
        #expect(pipe.available() == "after\n", "no writer thread is left to wait for")
        sink.shutdown()
        withExtendedLifetime(pipe) {}
    }

    @Test("a thread's lines past its limit while the descriptor is blocked are dropped and counted, not held")
    func blockedDescriptor() throws {
        let pipe = try Pipe(capacity: 65_536)
        let sink = BufferedSink(descriptor: pipe.writeEnd, interval: .milliseconds(10), threshold: 1 << 30, bufferLimit: 4_096)
        defer { sink.shutdown(); withExtendedLifetime(pipe) {} }
        // 64 KiB fills the pipe: the writer blocks in write(2) until the test reads.
        let line = String(repeating: "x", count: 99)
        for _ in 0..<2_000 { sink.write(line) }
        usleep(100_000)
        // The writer is blocked on the full pipe, so these wait in the buffer up to its limit.
        for _ in 0..<2_000 { sink.write(line) }
        func accounted(_ text: String) -> (kept: Int, dropped: Int) {
            var kept = 0, dropped = 0
            for line in text.split(separator: "\n") {
                if line.count == 99, line.allSatisfy({ $0 == "x" }) {
                    kept += 1
                } else if line.contains("lines dropped"), let count = line.split(separator: "=").last.flatMap({ Int($0) }) {
                    dropped += count
                }
            }
            return (kept, dropped)
        }
        let text = try pipe.read(until: { let (kept, dropped) = accounted($0); return kept + dropped >= 4_000 }, timeout: 10)
        let (kept, dropped) = accounted(text)
        #expect(dropped > 0, "the buffer's limit was reached while the pipe was full")
        #expect(kept + dropped == 4_000, "every line is written or counted: \(kept) + \(dropped)")
    }
}
