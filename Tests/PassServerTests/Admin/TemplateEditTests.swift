import Foundation
import PassServerFixtures
import PassServerTesting
import Storage
import Testing

@testable import PassServer

/// A template edited on disk reaches the phones without a restart: the watch sees the new
/// content, records it once and re-pushes the events using the template.
@Suite("Templates: an edit on disk re-pushes its events", .offCooperativePool, .timeLimit(.minutes(3)))
struct TemplateEditTests {
    /// A copy of `Passes/` to edit.
    static func copyOfTemplates() throws -> String {
        let directory = try TestCertificates.temporaryDirectory(prefix: "template-edit")
        try FileManager.default.copyItem(
            atPath: PassServerExecutable.packageRoot.appendingPathComponent("Passes").path, toPath: directory + "/Passes"
        )
        return directory + "/Passes"
    }

    @Test("a colour changed in pass.json: a push, the serial listed, the new bundle with a new Last-Modified", arguments: Backend.allCases)
    func editReachesThePhone(backend: Backend) async throws {
        let passes = try Self.copyOfTemplates()
        defer { try? FileManager.default.removeItem(atPath: (passes as NSString).deletingLastPathComponent) }
        let (app, fake) = try AdminSupport.startWithFakeAPNs(backend) { $0.passesDirectory = passes }
        defer { app.stop(); fake.shutdown() }
        let event = try app.createEvent()
        let serial = try app.issueTicket(event: event)
        let phone = Phone(app: app)
        #expect(try phone.register(serial).status == 201)
        let (_, _, tag) = try phone.changedSerials()
        let before = try phone.fetch(serial)
        let lastModified = try #require(before.header("Last-Modified"))
        #expect(try PassArchive.passJSON(before.body)["backgroundColor"] as? String == "rgb(28, 36, 64)")
        // The watch has recorded the template as it is: nothing is pushed without an edit.
        try await eventually("the template's version is recorded", timeout: 30) {
            try app.store.withSession(.read) { try $0.execute("SELECT name FROM template_versions").count } == 1
        }
        let pushesBefore = fake.pushes.count
        #expect(try app.store.withSession(.read) { try $0.jobs.jobs(eventID: event, limit: 5) }.isEmpty, "no re-push before the edit")

        let path = passes + "/event-ticket/pass.json"
        let text = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(of: "rgb(28, 36, 64)", with: "rgb(120, 10, 40)")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(5)], ofItemAtPath: path)

        try await eventually("the phone is pushed after the edit", timeout: 60) { fake.pushes.count > pushesBefore }
        #expect(fake.pushes.last?.token == phone.pushToken)
        #expect(try phone.changedSerials(since: tag).serials == [serial])
        let after = try phone.fetch(serial, ifModifiedSince: lastModified)
        #expect(after.status == 200, "never a 304 for a changed bundle")
        #expect(after.header("Last-Modified") != lastModified)
        #expect(try PassArchive.passJSON(after.body)["backgroundColor"] as? String == "rgb(120, 10, 40)")
        #expect(try app.store.withSession(.read) { try $0.jobs.jobs(eventID: event, limit: 5) }.count == 1, "one re-push for one edit")
    }
}
