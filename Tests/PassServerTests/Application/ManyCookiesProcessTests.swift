import Dispatch
import Foundation
import PassServerFixtures
import PassServerTesting
import Synchronization
import Testing

/// A browser carrying many cookies for the domain, against the `pass-server` process: 30,000
/// requests with a `Cookie` header of 600 pairs (4.7 KB) are each answered (431 with a JSON body:
/// more than the 200 cookies allowed), the server's resident memory stays put, and a graceful stop
/// afterwards does not wait for requests that were never completed. A control shows that the stop
/// does wait for a request in flight, so the timing can fail. SQLite only: no request here reaches
/// the database.
@Suite("Many-cookie requests against the real process", .offCooperativePool, .timeLimit(.minutes(6)), .serialized, .tags(.endToEnd))
struct ManyCookiesProcessTests {
    static let cookieHead =
        "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: \((0..<600).map { "k\($0)=v" }.joined(separator: "; "))\r\nConnection: close\r\n\r\n"

    /// Sends `count` many-cookie requests, each on a fresh connection, from 4 threads, for at most
    /// `seconds`; returns how many got each answer (`closed`: no answer at all).
    static func sendMany(_ count: Int, port: Int, seconds: Double) -> [String: Int] {
        let outcomes = Mutex<[String: Int]>([:])
        let deadline = Date().addingTimeInterval(seconds)
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            var local: [String: Int] = [:]
            for _ in stride(from: worker, to: count, by: 4) where Date() < deadline {
                let outcome: String
                do {
                    let client = try TestClient(port: port, timeout: 15)
                    client.send(cookieHead)
                    outcome = try client.readResponse().map { "\($0.status) \($0.errorCode ?? "")" } ?? "closed"
                } catch {
                    outcome = "\(error)"
                }
                local[outcome, default: 0] += 1
            }
            outcomes.withLock { all in all.merge(local, uniquingKeysWith: +) }
        }
        return outcomes.withLock { $0 }
    }

    /// The server's log from byte `offset` on.
    static func log(of server: ServerProcess, from offset: Int) -> String {
        guard let handle = FileHandle(forReadingAtPath: server.errorPath) else { return "" }
        defer { try? handle.close() }
        try? handle.seek(toOffset: UInt64(offset))
        return String(decoding: (try? handle.readToEnd()) ?? Data(), as: UTF8.self)
    }

    /// Signals SIGTERM and returns how long the HTTP server took to stop (its "http server stopped"
    /// line), polled every 10 ms for at most `timeout` seconds; nil if it did not stop in that time.
    static func stopDuration(of server: ServerProcess, timeout: Double) async -> Duration? {
        let offset = server.standardError.utf8.count
        let started = ContinuousClock.now
        server.signal(SIGTERM)
        while ContinuousClock.now - started < .seconds(timeout) {
            if log(of: server, from: offset).contains("http server stopped") { return ContinuousClock.now - started }
            await AdminSupport.pause(0.01)
        }
        return nil
    }

    @Test("30,000 requests with 600 cookies: each answered 431, RSS flat (±5 MiB), and the stop after them takes < 1 s")
    func manyCookieRequestsLeaveNothingBehind() async throws {
        let fixture = try ProcessFixture(.sqlite)
        fixture.store.close()
        let server = try fixture.launch(extra: ["SHUTDOWN_DRAIN_TIMEOUT": "10s"])
        defer { server.forceKill() }
        let port = try await server.port(timeout: 180)
        let pid = server.process.processIdentifier

        // Warm up: every code path of the answer has run, and the allocator has settled.
        let warmUp = Self.sendMany(2_000, port: port, seconds: 60)
        #expect(warmUp == ["431 header_fields_too_large": 2_000])
        let before = try AdminEarlyRefusalTests.residentKiB(pid)
        let started = Date()
        let outcomes = Self.sendMany(30_000, port: port, seconds: 150)
        let elapsed = Date().timeIntervalSince(started)
        await AdminSupport.pause(0.5)
        let after = try AdminEarlyRefusalTests.residentKiB(pid)
        let growth = Double(after - before) / 1024
        print(
            "30,000 600-cookie requests in \(String(format: "%.1f", elapsed)) s: \(outcomes); "
                + "server RSS \(before) KiB -> \(after) KiB (\(String(format: "%+.1f", growth)) MiB)"
        )
        #expect(outcomes == ["431 header_fields_too_large": 30_000])
        #expect(abs(growth) <= 5, "RSS changed by \(growth) MiB")
        #expect(try TestClient(port: port).request("GET", "/healthz").status == 200)

        let stop = await Self.stopDuration(of: server, timeout: 30)
        print("graceful stop after them: \(stop.map { "\($0)" } ?? "none within 30 s")")
        let duration = try #require(stop, "\(server.standardError.suffix(1_000))")
        #expect(duration < .seconds(1))
        #expect(!server.standardError.contains("drain timeout"))
        #expect(await server.waitForExit(timeout: 30) == 0)
    }

    @Test("control: the stop waits for a request in flight (its body held back) until the drain timeout")
    func stopWaitsForARequestInFlight() async throws {
        let fixture = try ProcessFixture(.sqlite)
        fixture.store.close()
        let server = try fixture.launch(extra: ["SHUTDOWN_DRAIN_TIMEOUT": "3s"])
        defer { server.forceKill() }
        let port = try await server.port(timeout: 180)
        let held = try TestClient(port: port, timeout: 30)
        #expect(held.send("POST /v1/log HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"logs\":"))
        await AdminSupport.pause(0.5)

        let stop = await Self.stopDuration(of: server, timeout: 30)
        print("graceful stop with a request in flight: \(stop.map { "\($0)" } ?? "none within 30 s")")
        let duration = try #require(stop, "\(server.standardError.suffix(1_000))")
        #expect(duration >= .milliseconds(2_900))
        #expect(server.standardError.contains("drain timeout: closing in-flight requests"))
        withExtendedLifetime(held) {}
    }
}
