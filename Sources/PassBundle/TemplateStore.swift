import Synchronization

/// Loads templates by name from a root directory (`Passes/`) once and keeps them.
///
/// Thread-safe: the cache sits behind a `Mutex`; a template is read from disk at most a few
/// times if several threads ask for it at once, then served from memory.
public final class TemplateStore: Sendable {
    /// The directory holding one folder per template.
    public let root: String
    private let cache = Mutex<[String: Template]>([:])

    public init(root: String) { self.root = root }

    /// The template in `root/name`, loaded on first use.
    public func template(named name: String) throws(PassBundleError) -> Template {
        guard !name.isEmpty, !name.contains("/"), !name.hasPrefix(".") else {
            throw PassBundleError(.templateUnreadable, "invalid template name \(name)")
        }
        if let cached = cache.withLock({ $0[name] }) { return cached }
        let loaded = try Template.load(directory: root + "/" + name)
        cache.withLock { $0[name] = loaded }
        return loaded
    }

    /// Drops every cached template (for example after templates were edited on disk).
    public func reload() { cache.withLock { $0.removeAll() } }
}
