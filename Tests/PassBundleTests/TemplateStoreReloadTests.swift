import Foundation
import PassBundle
import PassServerTesting
import Synchronization
import Testing

@Suite("TemplateStore picks up template edits on disk", .offCooperativePool, .timeLimit(.minutes(1)))
struct TemplateStoreReloadTests {
    /// A copy of the bundled template under a fresh root, as `root/event-ticket`.
    private func copiedTemplate() throws -> (root: String, folder: String) {
        let root = try Fixture.directory("template-store")
        let folder = root + "/event-ticket"
        try FileManager.default.copyItem(atPath: Fixture.templateDirectory, toPath: folder)
        return (root, folder)
    }

    /// Writes `text` as the folder's pass.json with a modification time `seconds` ahead, so the
    /// change shows even where the clock's resolution is coarse. The file is written beside the
    /// folder and moved in, so no check sees it half done.
    private func write(_ text: String, to folder: String, ahead seconds: TimeInterval = 60) throws {
        let staging = folder + ".pass.json.new"
        try Data(text.utf8).write(to: URL(fileURLWithPath: staging))
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(seconds)], ofItemAtPath: staging)
        #expect(rename(staging, folder + "/pass.json") == 0)
    }

    private func passText(_ folder: String) throws -> String {
        String(decoding: try Data(contentsOf: URL(fileURLWithPath: folder + "/pass.json")), as: UTF8.self)
    }

    private func logoText(_ template: Template) -> String? {
        if case .object(let root) = template.passJSON, case .string(let text)? = root["logoText"] { text } else { nil }
    }

    @Test("an edit is served after the check interval, with a new content hash, and reported")
    func editIsPickedUp() async throws {
        let (root, folder) = try copiedTemplate()
        let events = Mutex<[String]>([])
        let store = TemplateStore(root: root, checkInterval: .milliseconds(200)) { event in
            if case .reloaded(let name, let hash) = event { events.withLock { $0.append("\(name) \(hash)") } }
        }
        let first = try store.template(named: "event-ticket")
        #expect(logoText(first) == "{{organizationName}}")
        try write(try passText(folder).replacingOccurrences(of: #""logoText": "{{organizationName}}""#, with: #""logoText": "Edited""#), to: folder)
        try await eventually("the edited pass.json is served") { logoText(try store.template(named: "event-ticket")) == "Edited" }
        let edited = try store.template(named: "event-ticket")
        #expect(edited.contentHash != first.contentHash)
        #expect(events.withLock { $0 } == ["event-ticket \(edited.contentHash)"])
        #expect(store.loadError(named: "event-ticket") == nil)
    }

    @Test("the folder is looked at once per interval: an edit waits for the next check; reload() drops the cache at once")
    func intervalAndReload() async throws {
        let (root, folder) = try copiedTemplate()
        let store = TemplateStore(root: root, checkInterval: .seconds(5))
        let first = try store.template(named: "event-ticket")
        let original = try passText(folder)
        try write(original.replacingOccurrences(of: #""logoText": "{{organizationName}}""#, with: #""logoText": "Edited""#), to: folder)
        #expect(logoText(try store.template(named: "event-ticket")) == "{{organizationName}}", "looked at again within the interval")
        try await eventually("the edit is served after the interval") { logoText(try store.template(named: "event-ticket")) == "Edited" }
        try write(original.replacingOccurrences(of: #""logoText": "{{organizationName}}""#, with: #""logoText": "Again""#), to: folder, ahead: 120)
        store.reload()
        let reloaded = try store.template(named: "event-ticket")
        #expect(logoText(reloaded) == "Again" && reloaded.contentHash != first.contentHash)
    }

    @Test("a broken edit keeps the last good template in service and reports the error until it is fixed")
    func brokenEditKeepsLastGood() async throws {
        let (root, folder) = try copiedTemplate()
        let failures = Mutex<[String]>([])
        let store = TemplateStore(root: root, checkInterval: .milliseconds(200)) { event in
            if case .failed(let name, let error) = event { failures.withLock { $0.append("\(name): \(error.code)") } }
        }
        let good = try store.template(named: "event-ticket")
        let original = try passText(folder)
        try write("{\"formatVersion\": 1,", to: folder)
        // Folders are looked at when a template is asked for.
        try await eventually("the broken edit is reported") {
            _ = try store.template(named: "event-ticket")
            return store.loadError(named: "event-ticket") != nil
        }
        #expect(store.loadError(named: "event-ticket")?.code == .invalidTemplate)
        let served = try store.template(named: "event-ticket")
        #expect(served.contentHash == good.contentHash)
        let certificates = try Fixture.certificates()
        #expect(throws: Never.self) { _ = try PassBundle.build(template: served, data: Fixture.ticket(), identity: certificates.identity) }
        // Reported once for the change, not again at every check of the unchanged broken folder.
        try await Task.sleep(for: .milliseconds(600))
        _ = try store.template(named: "event-ticket")
        #expect(failures.withLock { $0 } == ["event-ticket: invalidTemplate"])

        try write(original.replacingOccurrences(of: #""logoText": "{{organizationName}}""#, with: #""logoText": "Fixed""#), to: folder, ahead: 120)
        try await eventually("the fixed template is served") { logoText(try store.template(named: "event-ticket")) == "Fixed" }
        #expect(store.loadError(named: "event-ticket") == nil)
    }

    @Test("a folder that disappears keeps its template in service; a template never loaded is an error")
    func removedFolder() async throws {
        let (root, folder) = try copiedTemplate()
        let store = TemplateStore(root: root, checkInterval: .zero)
        let good = try store.template(named: "event-ticket")
        try FileManager.default.removeItem(atPath: folder)
        #expect(try store.template(named: "event-ticket").contentHash == good.contentHash)
        #expect(store.loadError(named: "event-ticket")?.code == .templateUnreadable)
        #expect(throws: PassBundleError.self) { _ = try store.template(named: "missing") }
        #expect(store.loadError(named: "missing")?.code == .templateUnreadable)
    }

    @Test("the content hash follows what goes into a pass: not spacing, not mail texts; any image byte")
    func contentHash() throws {
        let (_, folder) = try copiedTemplate()
        let hash = { () throws -> String in try Template.load(directory: folder).contentHash }
        let original = try hash()
        #expect(try hash() == original)
        #expect(try Template.load(directory: Fixture.templateDirectory).contentHash == original)
        try write(try passText(folder).replacingOccurrences(of: "\n", with: "\n  "), to: folder)
        #expect(try hash() == original)
        let mail = try #require(FileManager.default.subpaths(atPath: folder + "/mail")?.first { $0.hasSuffix(".txt") })
        try Data("Changed mail".utf8).write(to: URL(fileURLWithPath: folder + "/mail/" + mail))
        #expect(try hash() == original)
        var logo = try DesignerFixture.png("logo.png")
        logo[logo.count - 1] ^= 1
        try Data(logo).write(to: URL(fileURLWithPath: folder + "/logo.png"))
        #expect(try hash() != original)
    }
}
