import Foundation
import Logging
import PassBundle
import Storage

/// Picks up template edits on disk without a restart: every few seconds it asks the template
/// store for each template the events use (the store reloads one whose folder changed) and
/// records the template's content hash. When the hash differs from the one recorded, by this
/// instance or another, the events using the template are re-pushed: their passes get a new
/// revision and a new `Last-Modified`, so phones fetch the new design instead of a 304. Of several
/// instances, the one that records the change starts the jobs. A broken edit keeps the last good
/// template (and is logged by the store's report); nothing is pushed for it.
struct TemplateWatch: Sendable {
    let store: any Store
    let templates: TemplateLibrary
    let logger: Logger
    let jobCreated: @Sendable () -> Void
    var now: @Sendable () -> Date = Date.init

    /// How often the templates in use are looked at.
    static let interval: TimeInterval = 5

    /// One look at every template in use; returns the re-push jobs started.
    @discardableResult
    func check() -> [Job] {
        var started: [Job] = []
        do {
            for name in try store.withSession(.read, { try $0.templates.templatesInUse() }) {
                guard let template = try? templates.template(named: name) else {
                    if let error = templates.loadError(named: name) {
                        logger.error("template cannot be loaded; passes of its events keep what they had", ["template": name, "error": "\(error)"])
                    }
                    continue
                }
                guard try store.withSession(.write, { try $0.templates.recordTemplateVersion(name: name, contentHash: template.contentHash, now: now()) }) else {
                    continue
                }
                let jobs = try store.withSession(.write) { try $0.templates.repushEvents(template: name, now: now()) }
                logger.notice("template changed on disk; re-pushing its events", ["template": name, "jobs": "\(jobs.count)"])
                started += jobs
            }
        } catch {
            logger.warning("template check failed; the next one retries", ["error": "\(error)"])
        }
        if !started.isEmpty { jobCreated() }
        return started
    }
}
