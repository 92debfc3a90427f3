import Foundation
import PassBundle
import Storage
import Synchronization

extension PassService {
    /// The design `event` stores; an empty one when it stores none.
    static func design(of event: Event?) throws -> PassDesign {
        guard let text = event?.design else { return PassDesign() }
        do {
            return try JSONDecoder().decode(PassDesign.self, from: Data(text.utf8))
        } catch {
            throw PassServiceError("event \(event?.id ?? "") has a design that cannot be read: \(error)")
        }
    }

    /// The template of `event` with its design's images in place of the template's, and the
    /// design. Both are worked out once per (template content, design) and kept: a fetch storm
    /// after an edit asks this for every phone, and decoding the design's JSON cost as much as
    /// rendering the pass. Designed templates are shared by images, so the images are hashed and
    /// deflated once per set of images, not once per pass or per design.
    func designedTemplate(for event: Event?) throws -> (template: Template, design: PassDesign) {
        let base = try templates.template(named: event?.template ?? "event-ticket")
        // The stored text is the key: any instance reading the same row builds the same design,
        // and a changed design is a new key, so nothing kept here can be stale.
        let key = DesignedTemplates.Key(template: base.name, contentHash: base.contentHash, design: event?.design)
        if let cached = designs.looks.withLock({ $0[key] }) { return cached }
        var design = try Self.design(of: event)
        // NFC follows the server's configuration: a pass with nfc needs a certificate enabled for it.
        design.details = design.details.withNFC(readerKey: nfcReaderKey)
        let look = (template: try template(base, with: design.images, event: event), design: design)
        designs.looks.withLock { cache in
            if cache.count >= DesignedTemplates.limit { cache.removeAll() }
            cache[key] = look
        }
        return look
    }

    /// `base` with `images` (kind name → stored image id) in place of its own.
    private func template(_ base: Template, with images: [String: String], event: Event?) throws -> Template {
        guard !images.isEmpty else { return base }
        let key = base.name + "|" + base.contentHash + "|" + images.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
        if let cached = designs.templates.withLock({ $0[key] }) { return cached }
        let records = try loadImages(Array(images.values))
        var files: [PassImageKind: [String: [UInt8]]] = [:]
        for (name, id) in images {
            guard let kind = PassImageKind(rawValue: name), let record = records[id] else {
                throw PassServiceError("the design of event \(event?.id ?? "") names image \(id), which is not stored")
            }
            files[kind] = ["\(name).png": record.image1x, "\(name)@2x.png": record.image2x, "\(name)@3x.png": record.image3x]
        }
        let designed = try base.designed(images: files)
        designs.templates.withLock { cache in
            // A few designs are in use at once; a bound keeps a stream of edits from piling up.
            if cache.count >= DesignedTemplates.limit { cache.removeAll() }
            cache[key] = designed
        }
        return designed
    }
}

/// The designs in use: decoded designs with their templates by (template content, stored design),
/// and designed templates by template content and images.
final class DesignedTemplates: Sendable {
    static let limit = 64

    struct Key: Hashable, Sendable {
        var template: String
        var contentHash: String
        var design: String?
    }

    let looks = Mutex<[Key: (template: Template, design: PassDesign)]>([:])
    let templates = Mutex<[String: Template]>([:])
}
