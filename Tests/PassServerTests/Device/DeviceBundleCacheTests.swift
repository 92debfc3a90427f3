import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer

@Suite("Device API: signed bundles are cached per revision", .offCooperativePool, .timeLimit(.minutes(3)))
struct DeviceBundleCacheTests {
    @Test("50 concurrent fetches of an unchanged pass sign once; a change signs again", arguments: Backend.allCases)
    func signsOncePerRevision(backend: Backend) throws {
        let app = try TestApp.start(backend)
        defer { app.stop() }
        let serial = try app.issueTickets(1)[0]
        let phone = Phone(app: app)
        let before = app.application.passes.cacheStatistics

        let results = ConcurrentResults<Result<TestResponse, any Error>>()
        let group = DispatchGroup()
        for _ in 0..<50 {
            group.enter()
            // Threads of their own, so the requests really overlap instead of queueing on two cores.
            Thread.detachNewThread {
                let result = Result { try phone.fetch(serial) }
                results.append(result)
                group.leave()
            }
        }
        #expect(group.wait(timeout: .now() + 120) == .success)
        let responses = try results.values.map { try $0.get() }
        #expect(responses.count == 50)
        #expect(responses.allSatisfy { $0.status == 200 })
        #expect(Set(responses.map(\.body)).count == 1, "every phone got the same signed bytes")

        let afterBurst = app.application.passes.cacheStatistics
        #expect(afterBurst.misses - before.misses == 1, "signed once")
        #expect(afterBurst.entries == before.entries + 1)

        // Unchanged: a later fetch is a hit.
        #expect(try phone.fetch(serial).status == 200)
        let afterHit = app.application.passes.cacheStatistics
        #expect(afterHit.misses == afterBurst.misses)
        #expect(afterHit.hits > afterBurst.hits)

        // A new revision is a new key: signed again, and the new bytes differ.
        try app.renameAttendee(serial, to: "Katherine Johnson")
        let changed = try phone.fetch(serial)
        #expect(changed.status == 200)
        #expect(changed.body != responses[0].body)
        #expect(app.application.passes.cacheStatistics.misses == afterHit.misses + 1)
        #expect(try phone.fetch(serial).body == changed.body)
        #expect(app.application.passes.cacheStatistics.misses == afterHit.misses + 1)
    }
}
