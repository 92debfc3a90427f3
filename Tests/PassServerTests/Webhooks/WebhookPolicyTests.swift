import Foundation
import HTTPClient
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// The webhook reply table, the target rules and the sender's lanes, as pure values.
@Suite("Webhooks: reply policy, targets, lanes", .offCooperativePool, .timeLimit(.minutes(1)))
struct WebhookPolicyTests {
    let policy = WebhookPolicy(schedule: RetrySchedule(baseDelay: 10, maxDelay: 3_600, maxRetryAge: 3 * 86_400))
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func decide(_ answer: WebhookAnswer, attempts: Int = 1, enqueued: TimeInterval = 0, random: Double = 0.5) -> OutboxDecision<Never> {
        policy.decide(answer, attempts: attempts, enqueuedAt: now.addingTimeInterval(-enqueued), now: now, random: random)
    }

    @Test("2xx delivers; any other status, no answer or a deferral retries with delays that grow; blocked and unsendable fail; held and not sent go back at once")
    func table() {
        for status in [200, 201, 202, 204, 299] {
            #expect(decide(.answered(status: status)).settlement == .completed, "\(status)")
            #expect(decide(.answered(status: status)).outcome == "delivered")
        }
        for answer: WebhookAnswer in [.answered(status: 500), .answered(status: 503), .answered(status: 404), .answered(status: 301), .answered(status: 199),
                                      .unreachable("timedOut: no complete answer"), .deferred("not sent: unreachable moments ago")] {
            var delays: [TimeInterval] = []
            for attempts in 1...8 {
                guard case .retry(let delay) = decide(answer, attempts: attempts, random: 1).settlement else {
                    Issue.record("\(answer) is not retried at attempt \(attempts)")
                    continue
                }
                delays.append(delay)
            }
            // The ceiling of the full jitter doubles each attempt: 10, 20, 40 … seconds.
            #expect(delays == [10, 20, 40, 80, 160, 320, 640, 1_280], "\(answer): \(delays)")
            // Full jitter: at the bottom of the range every attempt waits at least half the first delay.
            guard case .retry(let smallest) = decide(answer, attempts: 5, random: 0).settlement else { continue }
            #expect(smallest == 5)
            guard case .failed(let reason) = decide(answer, attempts: 40, enqueued: 3 * 86_400).settlement else {
                Issue.record("\(answer) is retried past three days")
                continue
            }
            #expect(reason.hasPrefix("gave up after 40 attempts"))
        }
        #expect(decide(.blocked("127.0.0.1, a loopback address")).settlement == .failed(reason: "127.0.0.1, a loopback address"))
        #expect(decide(.blocked("x")).outcome == "blocked")
        #expect(decide(.unsendable("the endpoint is gone")).settlement == .failed(reason: "the endpoint is gone"))
        #expect(decide(.held).settlement == .retry(after: 0) && decide(.held).outcome == "held")
        #expect(decide(.notSent("stopping")).settlement == .retry(after: 0))
        // Never a halt: one endpoint failing stops no other.
        for answer: WebhookAnswer in [.answered(status: 401), .answered(status: 403), .unreachable("tls")] {
            if case .halt = decide(answer).settlement { Issue.record("\(answer) halts") }
        }
    }

    @Test("what an answer says of the endpoint's health")
    func health() {
        #expect(WebhookAnswer.answered(status: 204).attempt == .succeeded)
        #expect(WebhookAnswer.answered(status: 500).attempt == .failed(reason: "answered 500"))
        #expect(WebhookAnswer.unreachable("refused").attempt == .failed(reason: "refused"))
        #expect(WebhookAnswer.blocked("loopback").attempt == .failed(reason: "loopback"))
        for answer: WebhookAnswer in [.deferred("x"), .held, .notSent("x"), .unsendable("x")] {
            #expect(answer.attempt == .notAttempted, "\(answer)")
        }
    }

    @Test("address scopes: IPv4, IPv6 and the IPv6 forms carrying IPv4")
    func scopes() throws {
        let table: [(String, WebhookTargets.Scope)] = [
            ("93.184.216.34", .global), ("8.8.8.8", .global), ("1.1.1.1", .global),
            ("127.0.0.1", .loopback), ("127.255.255.254", .loopback), ("0.0.0.0", .unspecified), ("0.1.2.3", .unspecified),
            ("10.0.0.1", .privateNetwork), ("172.16.0.1", .privateNetwork), ("172.31.255.255", .privateNetwork), ("172.32.0.1", .global),
            ("192.168.0.1", .privateNetwork), ("100.64.0.1", .privateNetwork), ("100.128.0.1", .global), ("169.254.169.254", .linkLocal),
            ("192.0.2.1", .reserved), ("198.51.100.7", .reserved), ("203.0.113.9", .reserved), ("198.18.0.1", .reserved), ("192.0.0.8", .reserved),
            ("224.0.0.1", .multicast), ("239.255.255.250", .multicast), ("240.0.0.1", .reserved), ("255.255.255.255", .reserved),
            ("::1", .loopback), ("::", .unspecified), ("::ffff:127.0.0.1", .loopback), ("::ffff:10.1.2.3", .privateNetwork),
            ("::ffff:93.184.216.34", .global), ("::127.0.0.1", .loopback), ("64:ff9b::7f00:1", .loopback), ("64:ff9b::5db8:d822", .global),
            ("64:ff9b:1::1", .privateNetwork), ("2002:7f00:1::1", .loopback), ("2002:5db8:d822::1", .global), ("fe80::1", .linkLocal),
            ("febf::1", .linkLocal), ("fec0::1", .privateNetwork), ("fc00::1", .privateNetwork), ("fd12:3456::1", .privateNetwork),
            ("ff02::1", .multicast), ("2001:db8::1", .reserved), ("2001::1", .reserved), ("2001:20::1", .reserved), ("3fff::1", .reserved),
            ("100::1", .reserved), ("2606:4700:4700::1111", .global), ("2a00:1450:4001::1", .global),
        ]
        for (text, scope) in table {
            let address = try #require(IPAddress(text), "\(text)")
            #expect(WebhookTargets.scope(of: address) == scope, "\(text)")
        }
    }

    @Test("targets: https to public addresses only, unless private targets are allowed; every resolved address checked")
    func targets() throws {
        let strict = WebhookTargets(allowPrivate: false)
        let open = WebhookTargets(allowPrivate: true)
        #expect(throws: WebhookTargets.Refusal.self) { try strict.target("http://93.184.216.34/hook") }
        #expect(try strict.target("https://93.184.216.34:8443/hook?x=1").port == 8443)
        #expect(try open.target("http://127.0.0.1:9/hook").host == "127.0.0.1")
        #expect(throws: WebhookTargets.Refusal.self) { try open.target("http://224.0.0.1/hook") }
        #expect(throws: WebhookTargets.Refusal.self) { try open.target("https://u:p@example.org/hook") }
        #expect(throws: WebhookTargets.Refusal.self) { try strict.target("https://example.org/" + String(repeating: "a", count: 2_100)) }
        let target = try strict.target("https://hooks.example.org/x")
        // A name that resolves to one public and one private address is refused: each address counts.
        let mixed: @Sendable (String) throws(HTTPClientError) -> [IPAddress] = { _ in [IPAddress("93.184.216.34")!, IPAddress("10.0.0.7")!] }
        #expect(throws: WebhookTargets.Refusal.self) { try strict.addresses(of: target, resolve: mixed) }
        #expect(try open.addresses(of: target, resolve: mixed).count == 2)
        let failing: @Sendable (String) throws(HTTPClientError) -> [IPAddress] = { _ throws(HTTPClientError) in throw HTTPClientError(.unresolvedHost, "nxdomain") }
        do {
            _ = try strict.addresses(of: target, resolve: failing)
            Issue.record("an unresolvable host passed")
        } catch {
            #expect(error.message.hasPrefix("cannot be resolved"))
        }
    }

    @Test("lanes: a few in flight per endpoint, endpoints in turn; an unreachable endpoint's lane rests, then probes alone")
    func lanes() {
        var lanes = WebhookLanes<Int>(concurrency: 2, rest: 30)
        for item in 0..<4 { #expect(lanes.add(item, endpoint: "a", now: now) == nil) }
        for item in 10..<12 { #expect(lanes.add(item, endpoint: "b", now: now) == nil) }
        var taken: [String] = []
        while let next = lanes.next(now: now) { taken.append("\(next.endpoint)\(next.item)") }
        #expect(taken == ["a0", "b10", "a1", "b11"], "two per endpoint, in turn: \(taken)")
        #expect(lanes.finished(endpoint: "a", unreachable: nil, now: now).deferred.isEmpty)
        #expect(lanes.next(now: now).map { "\($0.endpoint)\($0.item)" } == "a2")
        // a3 waits; the endpoint fails to answer: a3 is handed back and newcomers are deferred.
        let rest = lanes.finished(endpoint: "a", unreachable: "timedOut", now: now)
        #expect(rest.deferred == [3] && !rest.opened)
        #expect(lanes.add(4, endpoint: "a", now: now.addingTimeInterval(10)) != nil)
        #expect(lanes.next(now: now.addingTimeInterval(10)) == nil)
        // a2, in flight all along, is answered: the endpoint is reachable again.
        _ = lanes.finished(endpoint: "a", unreachable: nil, now: now.addingTimeInterval(11))
        #expect(lanes.add(5, endpoint: "a", now: now.addingTimeInterval(12)) == nil)
        #expect(lanes.next(now: now.addingTimeInterval(12))?.item == 5)
        #expect(lanes.finished(endpoint: "a", unreachable: "refused", now: now.addingTimeInterval(13)).deferred.isEmpty)
        // After the rest: one probe at a time; its answer opens the lane.
        #expect(lanes.add(6, endpoint: "a", now: now.addingTimeInterval(44)) == nil)
        #expect(lanes.add(7, endpoint: "a", now: now.addingTimeInterval(44)) == nil)
        #expect(lanes.next(now: now.addingTimeInterval(44))?.item == 6)
        #expect(lanes.next(now: now.addingTimeInterval(44)) == nil, "the probe goes alone")
        #expect(lanes.finished(endpoint: "a", unreachable: nil, now: now.addingTimeInterval(45)).opened)
        #expect(lanes.next(now: now.addingTimeInterval(45))?.item == 7)
        #expect(lanes.drain().isEmpty)
        #expect(lanes.finished(endpoint: "b", unreachable: nil, now: now).deferred.isEmpty)
    }
}
