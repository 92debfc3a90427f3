import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// An event edit fans out through the re-push job: every pass is bumped, every push token pushed once.
@Suite("Admin API: event re-push job", .offCooperativePool, .timeLimit(.minutes(5)))
struct EventRepushTests {
    /// With one batch every token's pushes coalesce into one. With several batches, a token whose
    /// passes fall into two batches is pushed again when its first push already went out between
    /// them: the phone must learn about the later change too. Never more than once per batch.
    @Test(
        "1,000 tickets, 1,500 registrations over 1,200 tokens: every token pushed, once per batch at most",
        arguments: Backend.allCases, [1_000, 128]
    )
    func editingAnEventPushesEveryToken(backend: Backend, batchSize: Int) async throws {
        let (app, fake) = try AdminSupport.startWithFakeAPNs(backend) { $0.jobs.batchSize = batchSize }
        defer { app.stop(); fake.shutdown() }
        let event = try app.createEvent()
        let passes = try AdminSupport.insertPasses(
            1_000, event: event, store: app.store, vault: app.application.passes.vault, passType: app.passTypeIdentifier
        )
        let maxRevisionBefore = try #require(passes.map(\.revision).max())

        // Device d holds pass d % 1000; the first 300 devices also hold pass d + 500.
        let tokens = (0..<1_200).map { _ in Phone.randomPushToken() }
        let now = Date()
        try app.store.transaction { session in
            for (device, token) in tokens.enumerated() {
                var held = [passes[device % 1_000]]
                if device < 300 { held.append(passes[device + 500]) }
                for pass in held {
                    _ = try session.registrations.upsertRegistration(
                        deviceLibraryIdentifier: "device-\(device)", pushToken: .hex(token),
                        passTypeIdentifier: pass.passTypeIdentifier, serialNumber: pass.serialNumber, now: now
                    )
                }
            }
        }
        let counts = try #require(try app.admin("GET", "/admin/v1/events/\(event)").jsonObject?["counts"] as? [String: Any])
        #expect(counts["tickets"] as? Int == 1_000)
        #expect(counts["registeredDevices"] as? Int == 1_200)

        let edit = try app.admin("PATCH", "/admin/v1/events/\(event)", json: #"{"venue":"Osaka Dome"}"#)
        #expect(edit.status == 200)
        let job = try #require(edit.jsonObject?["job"] as? [String: Any])
        let jobID = try #require(job["id"] as? String)
        #expect(job["total"] as? Int == 1_000)

        var state: [String: Any]?
        try await eventually("job done and every phone pushed: job \(state ?? [:]), \(fake.pushes.count) pushes", timeout: 90) {
            state = try? app.admin("GET", "/admin/v1/jobs/\(jobID)").jsonObject
            return state?["state"] as? String == "done" && Set(fake.pushes.map(\.token)).count >= tokens.count
        }
        #expect(state?["done"] as? Int == 1_000)
        #expect(state?["total"] as? Int == 1_000)
        #expect(state?["eventId"] as? String == event)

        // Let stragglers arrive, then count.
        await AdminSupport.pause(1)
        let pushes = fake.pushes
        #expect(Set(pushes.map(\.token)) == Set(tokens))
        if batchSize >= 1_000 {
            #expect(pushes.count == 1_200, "one batch: each token exactly once")
        } else {
            // Tokens 0..<300 hold passes d and d + 500, which lie in different batches of 128.
            let perToken = Dictionary(grouping: pushes, by: \.token).mapValues(\.count)
            #expect(tokens.enumerated().allSatisfy { device, token in (perToken[token] ?? 0) <= (device < 300 ? 2 : 1) })
            #expect(pushes.count <= 1_500)
        }
        #expect(pushes.allSatisfy { $0.topic == app.passTypeIdentifier && $0.status == 200 })

        let after = try app.store.withSession(.read) { try $0.passes.passes(eventID: event, limit: 2_000) }
        #expect(after.count == 1_000)
        #expect(after.allSatisfy { $0.revision > maxRevisionBefore })
        let fetched = try Phone(app: app, deviceLibraryIdentifier: "device-7", pushToken: tokens[7]).fetch(passes[7].serialNumber.rawValue)
        #expect(AdminSupport.field("venue", in: try PassArchive.passJSON(fetched.body))?["value"] as? String == "Osaka Dome")
        try await eventually("no push pending") {
            (try? app.admin("GET", "/admin/v1/events/\(event)").jsonObject?["counts"] as? [String: Any])?["pendingPushes"] as? Int == 0
        }
    }

    @Test("an unchanged event PATCH creates no job", arguments: Backend.allCases)
    func unchangedEventMakesNoJob(backend: Backend) async throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let event = try app.createEvent(venue: "Tokyo Hall")
        _ = try app.issueTicket(event: event)
        let jobs = { try app.store.withSession(.read) { try $0.jobs.jobs(eventID: event, limit: 10) } }
        let edit = try app.admin("PATCH", "/admin/v1/events/\(event)", json: #"{"venue":"Tokyo Hall"}"#)
        #expect(edit.status == 200)
        let body = try #require(edit.jsonObject, "\(edit.text)")
        #expect((body["event"] as? [String: Any])?["venue"] as? String == "Tokyo Hall")
        #expect((body["job"] as? [String: Any]) == nil)
        #expect(try jobs().isEmpty, "no job stored")

        // The same request with a change makes one, seen where the checks above looked.
        let changed = try app.admin("PATCH", "/admin/v1/events/\(event)", json: #"{"venue":"Osaka Dome"}"#)
        #expect(changed.status == 200)
        let job = try #require((changed.jsonObject?["job"] as? [String: Any])?["id"] as? String, "\(changed.text)")
        #expect(try jobs().map(\.id) == [job])
    }
}
