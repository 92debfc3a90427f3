import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// A change made through the admin API reaches the registered phones through the real dispatcher,
/// APNs client, TLS and HTTP/2 (the fake APNs), and leaves the database as the reply table says.
@Suite("Push dispatcher: delivery", .offCooperativePool, .timeLimit(.minutes(3)))
struct PushDeliveryTests {
    @Test("a ticket change sends one empty background push per registered token", arguments: Backend.allCases)
    func headersTopicBody(backend: Backend) async throws {
        let fixture = try PushFixture(backend)
        defer { fixture.stop() }
        let (phone, serial) = try fixture.registeredPhone()
        let second = Phone(app: fixture.app)
        #expect(try second.register(serial).status == 201)

        try fixture.change(serial)
        try await eventually("both phones pushed") { fixture.fake.count(token: phone.pushToken) == 1 && fixture.fake.count(token: second.pushToken) == 1 }

        let push = try #require(fixture.fake.pushes.first { $0.token == phone.pushToken })
        #expect(push.method == "POST")
        #expect(push.path == "/3/device/\(phone.pushToken)")
        #expect(push.topic == fixture.app.passTypeIdentifier)
        #expect(push.headers["apns-push-type"] == "background")
        #expect(push.headers["apns-priority"] == "5")
        #expect(push.body == Array("{}".utf8))
        try await eventually("outbox emptied") { try fixture.counts.summary == [0, 0, 0] }
        let log = try fixture.log(phone.pushToken)
        #expect(log.map(\.status) == [200])
        #expect(log.first?.passTypeIdentifier == fixture.app.passType)
        #expect(log.first?.apnsID?.isEmpty == false)
    }

    @Test("two changes committed before the claim coalesce into one push per token", arguments: Backend.allCases)
    func coalescing(backend: Backend) async throws {
        let fixture = try PushFixture(backend)
        defer { fixture.stop() }
        let (phone, serial) = try fixture.registeredPhone()
        let passType = fixture.app.passType
        try fixture.app.store.transaction { session in
            _ = try session.passes.updatePass(passTypeIdentifier: passType, serialNumber: "\(serial)", change: PassChange(seat: "B1"), now: Date())
            _ = try session.passes.updatePass(passTypeIdentifier: passType, serialNumber: "\(serial)", change: PassChange(seat: "B2"), now: Date())
        }
        fixture.app.application.dispatcher.wake()
        try await eventually("pushed") { fixture.fake.count(token: phone.pushToken) == 1 }
        try await eventually("outbox emptied") { try fixture.counts.pending == 0 }
        try await Task.sleep(for: .seconds(1.5))
        #expect(fixture.fake.pushes.filter { $0.token == phone.pushToken }.count == 1)
        #expect(try fixture.log(phone.pushToken).count == 1)
    }

    @Test("a change made while its push is in flight is pushed again after the answer", arguments: Backend.allCases)
    func changeDuringFlight(backend: Backend) async throws {
        let fixture = try PushFixture(backend)
        defer { fixture.stop() }
        let (phone, serial) = try fixture.registeredPhone()
        fixture.fake.script(token: phone.pushToken, [.delayed(seconds: 1.5, then: .success)])
        try fixture.change(serial, seat: "C1")
        try await eventually("first push received") { fixture.fake.pushes.contains { $0.token == phone.pushToken } }
        try fixture.change(serial, seat: "C2")
        try await eventually("second push answered") { fixture.fake.count(token: phone.pushToken) == 2 }
        try await eventually("outbox emptied") { try fixture.counts.pending == 0 }
        #expect(try fixture.log(phone.pushToken).map(\.status) == [200, 200])
    }
}
