import Dispatch
import Foundation
import HTTPServer
import Synchronization
import PassServerTesting
import Testing

@Suite(.offCooperativePool, .timeLimit(.minutes(2))) struct ConcurrencyTests {
    @Test func twoHundredConcurrentRequestsEachGetTheirOwnEcho() throws {
        var router = echoRouter()
        router.post("/echo/:n") { request in
            // A little blocking work, as a database call would be.
            usleep(1000)
            return .text("\(request.parameters["n"] ?? "?"):\(request.query["q"] ?? "?"):\(request.bodyText ?? "?")")
        }
        try TestServer.with(router) { server in
            let failures = Mutex<[String]>([])
            let answered = Atomic<Int>(0)
            let port = server.port
            DispatchQueue.concurrentPerform(iterations: 8) { worker in
                // Each worker: 25 requests, alternating fresh connections and keep-alive reuse.
                var reused: TestClient?
                for index in 0..<25 {
                    let n = worker * 25 + index
                    do {
                        let client = try (index.isMultiple(of: 2) ? nil : reused) ?? TestClient(port: port, timeout: 30)
                        reused = client
                        let response = try client.request("POST", "/echo/\(n)?q=\(n * 7)", body: Array("body-\(n)".utf8))
                        if response.status == 200, response.text == "\(n):\(n * 7):body-\(n)" {
                            answered.add(1, ordering: .relaxed)
                        } else {
                            failures.withLock { $0.append("\(n): \(response.status) \(response.text)") }
                        }
                    } catch {
                        failures.withLock { $0.append("\(n): \(error)") }
                    }
                }
            }
            #expect(failures.withLock { $0 } == [])
            #expect(answered.load(ordering: .relaxed) == 200)
        }
    }
}
