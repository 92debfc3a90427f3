import Dispatch
import Foundation
@testable import HTTPServer
import Logging
import Synchronization
import PassServerTesting
import Testing

@Suite(.offCooperativePool) struct LifecycleTests {
    @Test func shutdownLetsASlowRequestFinishAndRefusesNewConnections() throws {
        let entered = DispatchSemaphore(value: 0)
        var router = echoRouter()
        router.get("/slow") { _ in
            entered.signal()
            usleep(1_500_000)
            return .text("done")
        }
        let server = HTTPServer(configuration: ServerConfiguration(port: 0, threads: 2), router: router, logger: Logger(label: "t", sink: MemorySink()))
        try server.start()
        let port = server.port
        let slow = Mutex<TestResponse?>(nil)
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let response = try? TestClient(port: port, timeout: 30).request("GET", "/slow")
            slow.withLock { $0 = response }
            finished.signal()
        }
        #expect(entered.wait(timeout: .now() + 20) == .success)
        let shutdownDone = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            server.shutdown()
            shutdownDone.signal()
        }
        // New connections are refused while the slow request is still running.
        var refused = false
        for _ in 0..<100 where !refused {
            if (try? TestClient(port: port, timeout: 2)) == nil { refused = true } else { usleep(10_000) }
        }
        #expect(refused)
        #expect(finished.wait(timeout: .now() + 30) == .success)
        let response = slow.withLock { $0 }
        #expect(response?.status == 200)
        #expect(response?.text == "done")
        #expect(response?.header("Connection")?.lowercased() == "close")
        #expect(shutdownDone.wait(timeout: .now() + 30) == .success)
        server.waitUntilStopped()
        server.shutdown()  // idempotent
        #expect(server.inFlightRequests == 0)
    }

    @Test func drainIsBoundedByTheTimeout() throws {
        var router = Router()
        let entered = DispatchSemaphore(value: 0)
        router.get("/stuck") { _ in
            entered.signal()
            usleep(3_000_000)
            return .text("late")
        }
        let configuration = ServerConfiguration(port: 0, threads: 2, drainTimeout: .milliseconds(200))
        let server = HTTPServer(configuration: configuration, router: router, logger: Logger(label: "t", sink: MemorySink()))
        try server.start()
        let port = server.port
        DispatchQueue.global().async { _ = try? TestClient(port: port, timeout: 30).request("GET", "/stuck") }
        #expect(entered.wait(timeout: .now() + 20) == .success)
        let started = ContinuousClock.now
        server.shutdown()
        // stop waits for the blocked handler's thread, but not for a full drain of more work.
        #expect(ContinuousClock.now - started < .seconds(20))
    }

    @Test func portZeroPicksAFreePortAndAddressInUseIsReported() throws {
        let first = HTTPServer(configuration: ServerConfiguration(port: 0), router: echoRouter(), logger: Logger(label: "t", sink: MemorySink()))
        #expect(first.port == 0)
        try first.start()
        defer { first.shutdown() }
        #expect(first.port > 0)
        let second = HTTPServer(configuration: ServerConfiguration(port: first.port), router: echoRouter(), logger: Logger(label: "t", sink: MemorySink()))
        #expect {
            try second.start()
        } throws: { error in
            (error as? HTTPServerError)?.code == .addressInUse
        }
        second.shutdown()
        second.waitUntilStopped()
        #expect {
            try first.start()
        } throws: { error in
            (error as? HTTPServerError)?.code == .alreadyStarted
        }
    }

    @Test("a socket opened before the server holds the port from then on, and the server serves on it")
    func servesOnASocketOpenedBefore() throws {
        let socket = try ListeningSocket(host: "127.0.0.1", port: 0)
        #expect(socket.port > 0)
        // Held already: another bind of the port fails before any server has started.
        #expect {
            _ = try ListeningSocket(host: "127.0.0.1", port: socket.port)
        } throws: { error in
            (error as? HTTPServerError)?.code == .addressInUse
        }
        // The configuration's port is ignored in favour of the socket's.
        let server = HTTPServer(
            configuration: ServerConfiguration(port: 0), router: echoRouter(), logger: Logger(label: "t", sink: MemorySink()), listening: socket
        )
        try server.start()
        defer { server.shutdown() }
        #expect(server.port == socket.port)
        #expect((try? TestClient(port: socket.port).request("GET", "/healthz").status) == 200)
    }

    @Test func concurrentShutdownsAllReturnOnceStopped() throws {
        let server = HTTPServer(configuration: ServerConfiguration(port: 0), router: echoRouter(), logger: Logger(label: "t", sink: MemorySink()))
        try server.start()
        let port = server.port
        #expect((try? TestClient(port: port).request("GET", "/healthz").status) == 200)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in server.shutdown() }
        server.waitUntilStopped()
        #expect((try? TestClient(port: port)) == nil)
    }

    @Test func badHostIsReported() {
        let server = HTTPServer(configuration: ServerConfiguration(host: "not a host", port: 0), router: Router(), logger: Logger(label: "t", sink: MemorySink()))
        #expect {
            try server.start()
        } throws: { error in
            (error as? HTTPServerError)?.code == .invalidHost
        }
    }

    @Test func servesOnIPv6Loopback() throws {
        let server = HTTPServer(configuration: ServerConfiguration(host: "::1", port: 0), router: echoRouter(), logger: Logger(label: "t", sink: MemorySink()))
        do {
            try server.start()
        } catch let error where error.code == .bindFailed {
            return  // No IPv6 loopback on this machine; IPv4 is covered everywhere else.
        }
        defer { server.shutdown() }
        #expect(server.port > 0)
    }
}
