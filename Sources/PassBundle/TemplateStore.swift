import Synchronization

/// Loads templates by name from a root directory (`Passes/`) and keeps them, picking up edits on
/// disk without a restart.
///
/// A template is loaded on first use. After that, a request at least `checkInterval` after the
/// last check compares the folder's `TemplateFolderStamp` (file names, sizes, modification times:
/// no file is read) with the one the template was loaded from, and reloads the template when it
/// differs. An edit that does not load (broken JSON, a missing icon, a half-written file) leaves
/// the last good template in service: every pass keeps building, `loadError(named:)` returns the
/// problem until a later edit loads, and `onEvent` is told once per change. A caller that keeps
/// `Template.contentHash` can tell whether a reload changed what goes into a pass.
///
/// Thread-safe: the cache sits behind a `Mutex` that is never held while reading the disk. One
/// caller per interval does the check (it moves the check time forward first); the others are
/// served the cached template meanwhile. A first load may run on several threads at once.
public final class TemplateStore: Sendable {
    /// What happened to a template on disk, reported to `onEvent`.
    public enum Event: Sendable {
        /// The template was reloaded after its folder changed; its new content hash.
        case reloaded(name: String, contentHash: String)
        /// A changed folder did not load: the last good template stays in service.
        case failed(name: String, error: PassBundleError)
    }

    /// The directory holding one folder per template.
    public let root: String
    /// How often a template's folder is looked at for changes, at most.
    public let checkInterval: Duration
    private let onEvent: (@Sendable (Event) -> Void)?
    private let state = Mutex(State())
    private let clock = ContinuousClock()

    private struct State {
        var entries: [String: Entry] = [:]
        var errors: [String: PassBundleError] = [:]
    }

    private struct Entry {
        var template: Template
        /// The stamp of the folder as last looked at (nil: the folder could not be listed).
        var stamp: TemplateFolderStamp?
        var checkedAt: ContinuousClock.Instant
    }

    /// A store over `root`. `checkInterval` zero looks at the folder on every request;
    /// `onEvent` (called on the requesting thread, outside the store's lock) hears of reloads
    /// and failed ones.
    public init(root: String, checkInterval: Duration = .seconds(2), onEvent: (@Sendable (Event) -> Void)? = nil) {
        self.root = root
        self.checkInterval = checkInterval
        self.onEvent = onEvent
    }

    /// The template in `root/name`: loaded on first use, reloaded when its folder changed.
    public func template(named name: String) throws(PassBundleError) -> Template {
        guard !name.isEmpty, !name.contains("/"), !name.hasPrefix(".") else {
            throw PassBundleError(.templateUnreadable, "invalid template name \(name)")
        }
        let now = clock.now
        let lookup: Lookup = state.withLock { state in
            guard var entry = state.entries[name] else { return .missing }
            if now - entry.checkedAt < checkInterval { return .fresh(entry.template) }
            let previous = entry
            entry.checkedAt = now
            state.entries[name] = entry
            return .due(previous)
        }
        switch lookup {
        case .missing: return try loadFirst(name, at: now)
        case .fresh(let template): return template
        case .due(let entry): return recheck(name, entry, at: now)
        }
    }

    /// What the cache holds for a name at a request.
    private enum Lookup {
        case missing
        /// Looked at less than `checkInterval` ago.
        case fresh(Template)
        /// To be looked at; this caller does it.
        case due(Entry)
    }

    /// Why the last load of `name` failed, while the template on disk does not load; nil once it
    /// loads again (or before anything failed).
    public func loadError(named name: String) -> PassBundleError? {
        state.withLock { $0.errors[name] }
    }

    /// Drops every cached template and error: the next request loads afresh.
    public func reload() {
        state.withLock { $0 = State() }
    }

    private func directory(_ name: String) -> String { root + "/" + name }

    private func loadFirst(_ name: String, at now: ContinuousClock.Instant) throws(PassBundleError) -> Template {
        // Stamped before reading: an edit during the load shows as a change at the next check.
        let stamp = TemplateFolderStamp(directory: directory(name))
        do {
            let template = try Template.load(directory: directory(name))
            state.withLock { state in
                state.entries[name] = Entry(template: template, stamp: stamp, checkedAt: now)
                state.errors[name] = nil
            }
            return template
        } catch {
            state.withLock { $0.errors[name] = error }
            throw error
        }
    }

    private func recheck(_ name: String, _ entry: Entry, at now: ContinuousClock.Instant) -> Template {
        let stamp = TemplateFolderStamp(directory: directory(name))
        guard stamp != entry.stamp else { return entry.template }
        let result: Result<Template, PassBundleError> = Result { () throws(PassBundleError) in try Template.load(directory: directory(name)) }
        state.withLock { state in
            switch result {
            case .success(let template):
                state.entries[name] = Entry(template: template, stamp: stamp, checkedAt: now)
                state.errors[name] = nil
            case .failure(let error):
                // The broken folder's stamp is kept, so it is not read again until it changes.
                state.entries[name] = Entry(template: entry.template, stamp: stamp, checkedAt: now)
                state.errors[name] = error
            }
        }
        switch result {
        case .success(let template):
            onEvent?(.reloaded(name: name, contentHash: template.contentHash))
            return template
        case .failure(let error):
            onEvent?(.failed(name: name, error: error))
            return entry.template
        }
    }
}
