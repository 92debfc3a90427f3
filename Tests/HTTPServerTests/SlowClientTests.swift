import Foundation
import PassServerTesting
import Testing

@testable import HTTPServer

/// Slow and greedy clients: a deadline for a whole request, a cap per client address, and a
/// server that keeps answering others while one address holds connections open.
@Suite(.offCooperativePool, .timeLimit(.minutes(5)), .serialized) struct SlowClientTests {
    static func slowRouter() -> Router {
        var router = echoRouter()
        router.get("/slow") { _ in
            usleep(2_500_000)
            return .text("finished")
        }
        return router
    }

    /// Only 127.0.0.1 is a proxy, so 127.0.0.2 and 127.0.0.3 are ordinary clients.
    static func configure(_ configuration: inout ServerConfiguration) {
        configuration.trustedProxies = [AddressRange("127.0.0.1/32")].compactMap { $0 }
        configuration.requestTimeout = .seconds(2)
    }

    @Test(arguments: [
        "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n",  // the body trickles
        "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ",  // the headers trickle
    ])
    func aTricklingClientIsCutOffAtTheRequestDeadline(head: String) throws {
        try TestServer.with(Self.slowRouter(), configure: Self.configure) { server in
            let client = try server.client(timeout: 1)
            let started = ContinuousClock.now
            client.send(head)
            // One byte every 0.5 s: never idle for long, so an idle timeout (30 s here) never fires.
            var closedAfter: Duration?
            for _ in 0..<30 {
                usleep(500_000)
                if client.isClosedByPeer || !client.send("a") {
                    closedAfter = ContinuousClock.now - started
                    break
                }
            }
            let elapsed = try #require(closedAfter, "still connected after 15 s of trickling")
            print("trickling client (\(head.prefix(4))) disconnected after \(elapsed) (HTTP request timeout 2 s)")
            #expect(elapsed >= .milliseconds(1_900))
            #expect(elapsed < .seconds(8), "the deadline is 2 s; the sweep runs every 0.5 s")
            #expect(server.isHealthy())
        }
    }

    @Test func theDeadlineCoversArrivalNotTheHandlerOrKeepAlive() throws {
        try TestServer.with(Self.slowRouter(), configure: Self.configure) { server in
            let client = try server.client(timeout: 10)
            // A handler slower than the deadline still answers: the request had arrived.
            #expect(try client.request("GET", "/slow").text == "finished")
            // The same connection serves another request: the clock starts again after each response.
            #expect(try client.request("GET", "/healthz").status == 200)
        }
    }

    @Test func theThirtyThirdConnectionFromOneAddressIsRefusedWhileOthersConnect() throws {
        try TestServer.with(echoRouter(), configure: Self.configure) { server in
            #expect(server.server.core.configuration.maxConnectionsPerClient == 32, "the default")
            // 32 connections from 127.0.0.2, each proven accepted by an answer on it.
            var held: [TestClient] = []
            for _ in 0..<32 {
                let client = try server.client(source: "127.0.0.2")
                #expect(try client.request("GET", "/healthz").status == 200)
                held.append(client)
            }
            let address = try #require(IPAddress("127.0.0.2"))
            #expect(server.server.core.connections.connections(from: address) == 32)
            // The 33rd is closed before it is read.
            let refused = try server.client(timeout: 5, source: "127.0.0.2")
            refused.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            // Closed without an answer (nil); a connection merely left waiting would time out and throw.
            #expect(try refused.readResponse() == nil)
            // Another address is served, and so is a trusted proxy.
            #expect(try server.client(source: "127.0.0.3").request("GET", "/healthz").status == 200)
            #expect(try server.client(source: "127.0.0.1").request("GET", "/healthz").status == 200)
            // Closing one frees its slot.
            held.removeLast()
            var readmitted = false
            let deadline = Date().addingTimeInterval(10)
            while !readmitted, Date() < deadline {
                readmitted = (try? server.client(timeout: 2, source: "127.0.0.2").request("GET", "/healthz").status) == 200
                if !readmitted { usleep(50_000) }
            }
            #expect(readmitted)
        }
    }

    @Test func trustedProxiesAreNotCapped() throws {
        try TestServer.with(echoRouter(), configure: { $0.maxConnectionsPerClient = 4 }) { server in
            // Loopback is trusted by default: a proxy's connections carry many clients.
            var held: [TestClient] = []
            for _ in 0..<10 {
                let client = try server.client(source: "127.0.0.2")
                #expect(try client.request("GET", "/healthz").status == 200)
                held.append(client)
            }
            #expect(held.count == 10)
        }
    }

    /// Median and maximum of `count` fresh-connection `/healthz` round trips from 127.0.0.1.
    static func probeHealth(_ server: TestServer, count: Int = 15) throws -> (median: Duration, maximum: Duration) {
        var samples: [Duration] = []
        for _ in 0..<count {
            let started = ContinuousClock.now
            let response = try server.client(timeout: 5).request("GET", "/healthz")
            samples.append(ContinuousClock.now - started)
            #expect(response.status == 200)
        }
        samples.sort()
        return (samples[samples.count / 2], samples[samples.count - 1])
    }

    @Test func aThousandConnectionsFromOneAddressDoNotSlowOthers() throws {
        let configure: (inout ServerConfiguration) -> Void = {
            Self.configure(&$0)
            $0.requestTimeout = .seconds(60)  // the attackers stay for the whole measurement
        }
        try TestServer.with(echoRouter(), configure: configure) { server in
            let attackers = HeldConnections(count: 1_000, port: server.port, source: "127.0.0.2")
            let held = attackers.settledOpenCount()
            let (median, maximum) = try Self.probeHealth(server)
            print("1,000 connections from 127.0.0.2: \(held) held; /healthz from 127.0.0.1 median \(median), max \(maximum)")
            #expect(held == 32, "the per-client cap holds the rest off")
            #expect(median < .milliseconds(100))
            #expect(maximum < .seconds(1), "generous: the machine is shared")
        }
    }

    @Test func evenAThousandHeldSlowConnectionsTieUpNoWorker() throws {
        let configure: (inout ServerConfiguration) -> Void = {
            Self.configure(&$0)
            $0.requestTimeout = .seconds(60)
            $0.maxConnectionsPerClient = 2_000
            $0.maxConnections = 4_096
        }
        try TestServer.with(echoRouter(), configure: configure) { server in
            let attackers = HeldConnections(count: 1_000, port: server.port, source: "127.0.0.2")
            let held = attackers.settledOpenCount()
            let (median, maximum) = try Self.probeHealth(server)
            print("1,000 held slow connections (cap raised): \(held) held; /healthz median \(median), max \(maximum)")
            #expect(held == 1_000)
            #expect(median < .milliseconds(100))
            #expect(maximum < .seconds(1), "generous: the machine is shared")
        }
    }
}
