import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// Scheduled event edits end to end on both backends: applied once at their time as the event
/// edit they are (its re-push job included), after a restart too; cancelled ones never, while a
/// sibling due at the same moment does; edited and cancelled while pending, refused once applied;
/// checked when saved and again when applied, failing with the reason when they no longer fit.
@Suite("Scheduled changes", .offCooperativePool, .timeLimit(.minutes(6)))
struct ScheduledChangeTests {
    /// Schedules a change of `event` (the body's fields, `applyAt` added); 201 expected.
    static func schedule(
        _ app: TestApp, event: String, at due: Date, _ fields: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> String {
        let body = #"{"applyAt":"\#(ISODate.format(due))"\#(fields.isEmpty ? "" : ",")\#(fields)}"#
        let response = try app.admin("POST", "/admin/v1/events/\(event)/scheduled-changes", json: body)
        try #require(response.status == 201, "not scheduled: \(response.status) \(response.text)", sourceLocation: sourceLocation)
        return try #require(response.jsonObject?["id"] as? String, sourceLocation: sourceLocation)
    }

    static func action(_ app: TestApp, _ id: String) throws -> ScheduledAction? {
        try app.store.withSession(.read) { try $0.schedule.scheduledAction(id: id) }
    }

    /// Waits until the action has left `pending`, and returns it.
    static func finished(_ app: TestApp, _ id: String, timeout: Double = 20, sourceLocation: SourceLocation = #_sourceLocation) async throws -> ScheduledAction {
        var found: ScheduledAction?
        try await eventually("scheduled action \(id) finished", timeout: timeout, sourceLocation: sourceLocation) {
            found = try action(app, id)
            return found.map { $0.state != .pending } ?? false
        }
        return try #require(found, sourceLocation: sourceLocation)
    }

    @Test("applied once at its time as an event edit; a cancelled sibling due at the same time never applies", arguments: Backend.allCases)
    func appliesOnce(backend: Backend) async throws {
        let app = try await offPool { try TestApp.start(backend) }
        defer { app.stop() }
        let event = try await offPool { try app.createEvent(name: "Swift Night", venue: "First Hall") }
        let serial = try await offPool { try app.issueTicket(event: event) }
        let phone = Phone(app: app)
        #expect(try await offPool { try phone.register(serial) }.status == 201)
        let due = Date().addingTimeInterval(3)
        let moved = try await offPool { try Self.schedule(app, event: event, at: due, #""venue":"Second Hall""#) }
        let renamed = try await offPool { try Self.schedule(app, event: event, at: due, #""name":"Renamed Night""#) }
        let cancelled = try await offPool { try app.admin("POST", "/admin/v1/events/\(event)/scheduled-changes/\(renamed)/cancel") }
        #expect(cancelled.status == 200 && cancelled.jsonObject?["state"] as? String == "cancelled")

        let applied = try await Self.finished(app, moved)
        #expect(applied.state == .applied)
        #expect(applied.finishedAt.map { $0 >= applied.dueAt && $0 <= applied.dueAt.addingTimeInterval(5) } == true, "applied within 5 s of its time")
        let job = try #require(try app.store.withSession(.read) { try $0.jobs.job(id: applied.jobID ?? "") }, "the edit started its re-push job")
        #expect(job.kind == Job.repushKind)
        try await SchedulingSupport.settled(app, job: job.id)
        let shown = try #require(try await app.adminOffPool("GET", "/admin/v1/events/\(event)").jsonObject)
        #expect(shown["venue"] as? String == "Second Hall")
        #expect(shown["name"] as? String == "Swift Night", "the cancelled change, due at the same moment, never applied")
        #expect(try Self.action(app, renamed)?.state == .cancelled)
        #expect(try app.store.withSession(.read) { try $0.jobs.jobs(eventID: event, limit: 10) }.count == 1, "one job: the change applied once")
        let pass = try PassArchive.passJSON(try await offPool { try phone.fetch(serial) }.body)
        #expect(AdminSupport.field("venue", in: pass)?["value"] as? String == "Second Hall")
        // Listed with their states; the applied one can no longer be edited or cancelled.
        let list = try #require(try await app.adminOffPool("GET", "/admin/v1/events/\(event)/scheduled-changes").jsonObject?["items"] as? [[String: Any]])
        #expect(Set(list.compactMap { $0["state"] as? String }) == ["applied", "cancelled"])
        let late = try await app.adminOffPool("PUT", "/admin/v1/events/\(event)/scheduled-changes/\(moved)", json: #"{"applyAt":"2030-01-01T00:00:00Z","venue":"x"}"#)
        #expect(late.status == 409 && late.errorCode == "not_pending")
        #expect(try await app.adminOffPool("POST", "/admin/v1/events/\(event)/scheduled-changes/\(moved)/cancel").status == 409)
    }

    @Test("a change scheduled before a restart applies once after it", arguments: Backend.allCases)
    func survivesRestart(backend: Backend) async throws {
        let first = try await offPool { try TestApp.start(backend) }
        let event = try await offPool { try first.createEvent(name: "Restart Night", venue: "Old Hall") }
        let due = Date().addingTimeInterval(4)
        let id = try await offPool { try Self.schedule(first, event: event, at: due, #""venue":"New Hall""#) }
        #expect(try Self.action(first, id)?.state == .pending)
        await offPool { first.stop() }
        #expect(Date() < due.addingTimeInterval(-1), "stopped before its time")
        let second = try await offPool { try TestApp.start(backend, databaseURL: first.databaseURL, certificates: first.certificates) }
        defer { second.stop() }
        let applied = try await Self.finished(second, id)
        #expect(applied.state == .applied)
        #expect(applied.finishedAt.map { $0 <= applied.dueAt.addingTimeInterval(5) } == true)
        #expect(try second.store.withSession(.read) { try $0.events.event(id: event) }?.venue == "New Hall")
        #expect(try second.store.withSession(.read) { try $0.jobs.jobs(eventID: event, limit: 10) }.count == 1)
    }

    @Test("a pending change is edited (time and fields) and applies as edited", arguments: Backend.allCases)
    func edited(backend: Backend) async throws {
        let app = try await offPool { try TestApp.start(backend) }
        defer { app.stop() }
        let event = try await offPool { try app.createEvent() }
        let id = try await offPool { try Self.schedule(app, event: event, at: Date().addingTimeInterval(3_600), #""venue":"Hall B""#) }
        let due = ISODate.format(Date().addingTimeInterval(3))
        let replaced = try await app.adminOffPool(
            "PUT", "/admin/v1/events/\(event)/scheduled-changes/\(id)", json: #"{"applyAt":"\#(due)","venue":"Hall C","endsAt":"2027-03-01T23:00:00+09:00"}"#
        )
        #expect(replaced.status == 200, "\(replaced.text)")
        let edit = try #require(replaced.jsonObject?["edit"] as? [String: Any])
        #expect(edit["venue"] as? String == "Hall C")
        #expect(edit["endsAt"] as? String == "2027-03-01T23:00:00+09:00", "times in the event's zone")
        #expect(try await Self.finished(app, id).state == .applied)
        let stored = try #require(try app.store.withSession(.read) { try $0.events.event(id: event) })
        #expect(stored.venue == "Hall C" && stored.endsAt.map { ISODate.format($0) } == "2027-03-01T14:00:00Z")
    }

    @Test("what can no longer apply fails with its reason: an archived event, a deleted one, an edit that no longer fits", arguments: Backend.allCases)
    func failures(backend: Backend) async throws {
        let app = try await offPool { try TestApp.start(backend) }
        defer { app.stop() }
        let (archived, deleted, refit, sibling) = try await offPool {
            (try app.createEvent(name: "Archived"), try app.createEvent(name: "Deleted"), try app.createEvent(name: "Refit"), try app.createEvent(name: "Sibling"))
        }
        // A phone that never fetches keeps the deleted event's row until retention's cutoff (an
        // event whose phones all have the void goes at once, and its scheduled changes with it).
        let phone = Phone(app: app)
        #expect(try await offPool { try phone.register(try app.issueTicket(event: deleted)) }.status == 201)
        // Far enough ahead for the three admin calls below to land first on a loaded machine.
        let due = Date().addingTimeInterval(6)
        let ids = try await offPool {
            [
                try Self.schedule(app, event: archived, at: due, #""venue":"A""#),
                try Self.schedule(app, event: deleted, at: due, #""venue":"B""#),
                // Valid when saved (the event starts 2027-03-01T19:00 in Tokyo); not once the start moves after it.
                try Self.schedule(app, event: refit, at: due, #""endsAt":"2027-03-01T21:00:00+09:00""#),
                try Self.schedule(app, event: sibling, at: due, #""venue":"D""#),
            ]
        }
        try await offPool { () throws -> Void in
            #expect(try app.admin("POST", "/admin/v1/events/\(archived)/archive").status == 200)
            #expect(try app.admin("DELETE", "/admin/v1/events/\(deleted)?confirm=Deleted").status == 202)
            #expect(try app.admin("PATCH", "/admin/v1/events/\(refit)", json: #"{"startsAt":"2027-03-01T22:00:00+09:00"}"#).status == 200)
        }
        #expect(try await Self.finished(app, ids[3]).state == .applied, "the scheduler ran: the sibling applied")
        let reasons = try await [Self.finished(app, ids[0]), Self.finished(app, ids[1]), Self.finished(app, ids[2])]
        #expect(reasons.map(\.state) == [.failed, .failed, .failed])
        #expect(reasons[0].reason == "The event is archived.")
        #expect(reasons[1].reason == "The event was deleted.")
        #expect(reasons[2].reason?.contains("endsAt: must not be before startsAt") == true, "\(reasons[2].reason ?? "")")
        #expect(try app.store.withSession(.read) { try $0.events.event(id: refit) }?.endsAt == nil, "nothing of it applied")
        let listed = try #require(try await app.adminOffPool("GET", "/admin/v1/events/\(refit)/scheduled-changes").jsonObject?["items"] as? [[String: Any]])
        #expect(listed.first?["state"] as? String == "failed" && (listed.first?["reason"] as? String)?.contains("endsAt") == true)
    }

    @Test("refused when saved: no time, a past time, bad fields, nothing to change, a design that does not fit", arguments: Backend.allCases)
    func refusals(backend: Backend) async throws {
        let app = try await offPool { try TestApp.start(backend) }
        defer { app.stop() }
        try await offPool {
            let event = try app.createEvent()
            let later = ISODate.format(Date().addingTimeInterval(3_600))
            let cases: [(String, [String])] = [
                (#"{"venue":"x"}"#, ["applyAt: is required"]),
                (#"{"applyAt":"2020-01-01T00:00:00Z","venue":"x"}"#, ["applyAt: must be in the future"]),
                (#"{"applyAt":"soon","venue":"x"}"#, ["applyAt: must be an ISO 8601"]),
                (#"{"applyAt":"\#(later)","timeZone":"Mars/Olympus","name":" "}"#, ["timeZone:", "name: must not be empty"]),
                (#"{"applyAt":"\#(later)"}"#, ["edit: changes nothing"]),
                (#"{"applyAt":"\#(later)","design":{"backgroundColor":"navy"}}"#, ["design.backgroundColor"]),
                (#"{"applyAt":"\#(later)","design":{"images":{"logo":"\#(String(repeating: "a", count: 64))"}}}"#, ["design.images.logo"]),
                (#"{"applyAt":"\#(later)","colour":"red"}"#, ["colour: unknown field"]),
            ]
            for (body, problems) in cases {
                let response = try app.admin("POST", "/admin/v1/events/\(event)/scheduled-changes", json: body)
                #expect(response.status == 400, "\(body): \(response.status) \(response.text)")
                for problem in problems { #expect(response.text.contains(problem), "\(body): \(response.text)") }
            }
            #expect(try app.store.withSession(.read) { try $0.schedule.scheduledActions(eventID: event, kind: .eventEdit) }.isEmpty)
            // A design alone is a change.
            let design = try app.admin("POST", "/admin/v1/events/\(event)/scheduled-changes", json: ##"{"applyAt":"\##(later)","design":{"backgroundColor":"#102030"}}"##)
            #expect(design.status == 201, "\(design.text)")
            #expect((design.jsonObject?["design"] as? [String: Any])?["backgroundColor"] as? String == "rgb(16, 32, 48)")
            #expect(try app.admin("GET", "/admin/v1/events/\(event)/scheduled-changes/AAAAAAAAAAAAAAAAAAAAAA").status == 404)
        }
    }

    @Test("an edit of a pending change waits while the scheduler holds its row, then is refused: never both", arguments: Backend.allCases)
    func editWhileApplying(backend: Backend) async throws {
        let app = try await offPool { try TestApp.start(backend) }
        defer { app.stop() }
        let event = try await offPool { try app.createEvent() }
        let id = try await offPool { try Self.schedule(app, event: event, at: Date().addingTimeInterval(3_600), #""venue":"Hall B""#) }
        // What the scheduler does, held open: the row claimed (locked) in a transaction.
        let holder = try await offPool { try ScheduledRowHolder(app.store, id: id) }
        defer { holder.finish(applied: false) }
        let answer = SendableBox<TestResponse?>(nil)
        let editing = Thread {
            answer.set(try? app.admin("PUT", "/admin/v1/events/\(event)/scheduled-changes/\(id)", json: #"{"applyAt":"2031-01-01T00:00:00Z","venue":"Hall C"}"#))
        }
        editing.start()
        // The edit could answer at once if it did not wait for the row: give it the time to.
        try await Task.sleep(for: .milliseconds(800))
        #expect(answer.get() == nil, "the edit waits while the row is being applied")
        holder.finish(applied: true)
        try await eventually("the edit answered", timeout: 30) { answer.get() != nil }
        let response = try #require(answer.get())
        #expect(response.status == 409 && response.errorCode == "not_pending", "\(response.status) \(response.text)")
        let stored = try #require(try Self.action(app, id))
        #expect(stored.state == .applied)
        #expect(try ScheduledPayload.decode(EventEditPayload.self, of: stored).edit.venue == "Hall B", "the edit did not land on the applied row")
    }
}

/// Holds a scheduled action's row as the scheduler does while it applies it: claimed (`FOR UPDATE
/// SKIP LOCKED`; SQLite's writer) in a transaction on a thread of its own, until `finish`, which
/// marks it applied (or leaves it) and commits.
final class ScheduledRowHolder: Sendable {
    private let finishing = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let outcome = SendableBox<Bool?>(nil)

    init(_ store: any Store, id: String) throws {
        let held = DispatchSemaphore(value: 0)
        let failure = SendableBox<String?>(nil)
        Thread { [self] in
            do {
                try store.transaction { session in
                    guard try session.schedule.lockedScheduledAction(id: id) != nil else { throw AdminSupport.Failure(description: "no row \(id)") }
                    held.signal()
                    _ = self.finishing.wait(timeout: .now() + 120)
                    if self.outcome.get() == true { _ = try session.schedule.finishScheduledAction(id: id, state: .applied, now: Date()) }
                }
            } catch {
                failure.set("\(error)")
                held.signal()
            }
            self.finished.signal()
        }.start()
        guard held.wait(timeout: .now() + 60) == .success else { throw AdminSupport.Failure(description: "the row was not locked within 60 s") }
        if let message = failure.get() { throw AdminSupport.Failure(description: message) }
    }

    /// Commits (marking the row applied when `applied`); only the first call does anything.
    func finish(applied: Bool) {
        guard outcome.get() == nil else { return }
        outcome.set(applied)
        finishing.signal()
        _ = finished.wait(timeout: .now() + 60)
    }
}
