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
    /// design. Designed templates are built once per (template content, images) and kept, so the
    /// images are hashed and deflated once per design, not once per pass.
    func designedTemplate(for event: Event?) throws -> (template: Template, design: PassDesign) {
        let base = try templates.template(named: event?.template ?? "event-ticket")
        var design = try Self.design(of: event)
        // NFC follows the server's configuration: a pass with nfc needs a certificate enabled for it.
        design.details = design.details.withNFC(readerKey: nfcReaderKey)
        guard !design.images.isEmpty else { return (base, design) }
        let key = base.name + "|" + base.contentHash + "|" + design.images.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
        if let cached = designs.templates.withLock({ $0[key] }) { return (cached, design) }
        let records = try loadImages(Array(design.images.values))
        var images: [PassImageKind: [String: [UInt8]]] = [:]
        for (name, id) in design.images {
            guard let kind = PassImageKind(rawValue: name), let record = records[id] else {
                throw PassServiceError("the design of event \(event?.id ?? "") names image \(id), which is not stored")
            }
            images[kind] = ["\(name).png": record.image1x, "\(name)@2x.png": record.image2x, "\(name)@3x.png": record.image3x]
        }
        let designed = try base.designed(images: images)
        designs.templates.withLock { cache in
            // A few designs are in use at once; a bound keeps a stream of edits from piling up.
            if cache.count >= DesignedTemplates.limit { cache.removeAll() }
            cache[key] = designed
        }
        return (designed, design)
    }
}

/// The designed templates in use, by template content and images.
final class DesignedTemplates: Sendable {
    static let limit = 64
    let templates = Mutex<[String: Template]>([:])
}
