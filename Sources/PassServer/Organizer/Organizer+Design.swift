import Foundation
import PassBundle
import PassImages
import Storage

extension Organizer {
    /// The design `event` stores (empty: its template as it is).
    func design(of event: Event) throws -> PassDesign {
        try PassService.design(of: event)
    }

    /// Checks an uploaded image for `kind`, scales it to @1x, @2x and @3x and stores it once (an
    /// image uploaded twice is the same row). Refuses with the problem under `image` (a wrong
    /// format, too large, the wrong proportions, too small, not an image); nothing is stored then.
    /// `colors` is `palette` (the default) or `full` (`PassImageColors`).
    func uploadImage(_ bytes: [UInt8], kind name: String?, colors: String? = nil, requestID: String) throws -> PassImageRecord {
        let record = try checkImage(bytes, kind: name, colors: colors)
        let stored = try store.withSession(.write) { try $0.images.insertPassImage(record) }
        logger.info("pass image stored", ["image.id": stored.id, "image.kind": stored.kind, "request.id": requestID])
        return stored
    }

    /// An uploaded image for `kind` checked and scaled as `uploadImage` does, but not stored: a
    /// form that uploads images with other fields stores them with the design
    /// (`updateDesign(_:_:uploads:requestID:)`), or not at all when anything is refused.
    func checkImage(_ bytes: [UInt8], kind name: String?, colors: String? = nil) throws -> PassImageRecord {
        guard let name, let kind = PassImageKind(rawValue: name) else {
            throw OrganizerError.invalid("kind", "must be one of \(PassImageKind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard let colors = colors.map(PassImageColors.init(rawValue:)) ?? .palette else {
            throw OrganizerError.invalid("colors", "must be one of \(PassImageColors.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let set = try Self.scale(bytes, as: kind, colors)
        guard let one = set.file(at: 1), let two = set.file(at: 2), let three = set.file(at: 3) else {
            throw PassServiceError("scaling produced no file at some scale")
        }
        return PassImageRecord(
            id: set.contentAddress, kind: kind.rawValue, width: one.size.width, height: one.size.height, image1x: one.png, image2x: two.png,
            image3x: three.png, createdAt: now()
        )
    }

    /// The upload checked and scaled; a problem of the upload is `invalid` under `image`.
    private static func scale(_ bytes: [UInt8], as kind: PassImageKind, _ colors: PassImageColors) throws -> PassImageSet {
        let result: Result<PassImageSet, PassImageError> = Result { () throws(PassImageError) -> PassImageSet in
            try PassImageCheck.check(bytes, as: kind).scaled(colors)
        }
        switch result {
        case .success(let set): return set
        case .failure(let problem) where problem.isUploadProblem: throw OrganizerError.invalid("image", problem.description)
        case .failure(let problem): throw problem
        }
    }

    /// The bytes each stored image of `design` adds to every pass, by image id.
    func imageByteCounts(of design: PassDesign) throws -> [String: Int] {
        try store.withSession(.read) { try $0.images.passImageByteCounts(ids: Array(design.images.values)) }
    }

    /// The image with `id`; `notFound` when there is none.
    func image(id: String?) throws -> PassImageRecord {
        guard let id, id.utf8.count == 64, let image = try store.withSession(.read, { try $0.images.passImage(id: id) }) else {
            throw OrganizerError.notFound("No such image.")
        }
        return image
    }

    /// Replaces the event's design. Every field is checked (colours, logo text, each image id
    /// stored and of its kind, the Wallet details; a poster must meet Wallet's rules, see
    /// `PosterCheck`), then the design is saved as an event change: a new revision and a re-push
    /// job, so every issued pass gets the new design with a new `Last-Modified` and each phone a
    /// push. A design alone changes no field's value, so Wallet shows no change message. Saving
    /// the design the event has already changes nothing and starts no job.
    ///
    /// `uploads` are images checked by `checkImage` and not stored yet, which the design may name:
    /// they are stored in the transaction that saves the design, so a refused design stores none.
    func updateDesign(_ existing: Event, _ given: PassDesign, uploads: [PassImageRecord] = [], requestID: String) throws -> EventUpdate {
        let (design, text) = try checkedDesign(existing, given, uploads: uploads)
        let named = Set(design.images.values)
        return try apply(EventChange(design: .some(text)), to: existing, requestID: requestID, logged: "event design changed; re-push job created") { session in
            for upload in uploads where named.contains(upload.id) { _ = try session.images.insertPassImage(upload) }
        }
    }

    /// `given` checked for `existing` (every field; each image stored, or among `uploads`, and of
    /// its kind; NFC and the poster's rules), normalized, with the text the event stores (nil: the
    /// template as it is); `invalid` naming every problem.
    func checkedDesign(_ existing: Event, _ given: PassDesign, uploads: [PassImageRecord] = []) throws -> (design: PassDesign, text: String?) {
        var issues = given.validate().map { OrganizerError.Issue($0.field, $0.message) }
        let design = given.normalized
        var stored = try store.withSession(.read) { try $0.images.passImages(ids: Array(design.images.values)) }
        for upload in uploads where stored[upload.id] == nil { stored[upload.id] = upload }
        for (kind, id) in design.images.sorted(by: { $0.key < $1.key }) where issues.allSatisfy({ $0.field != "images.\(kind)" }) {
            guard let image = stored[id] else {
                issues.append(.init("images.\(kind)", "is not an uploaded image (upload it first: POST /admin/v1/images)"))
                continue
            }
            if image.kind != kind { issues.append(.init("images.\(kind)", "is a \(image.kind) image, not a \(kind) image")) }
        }
        let nfcMissing = "needs a pass type certificate enabled for NFC: this server has no PASS_NFC_READER_KEY"
        if design.details.nfc != nil, passes.nfcReaderKey == nil {
            issues.append(.init("details.nfc", nfcMissing))
        }
        if design.details.usePoster, issues.isEmpty {
            let template = try passes.templates.template(named: existing.template)
            let images = template.imageKinds.union(design.images.keys.compactMap(PassImageKind.init(rawValue:)))
            let details = design.details.withNFC(readerKey: passes.nfcReaderKey)
            for reason in PosterCheck.reasons(details: details, template: template.passJSON, eventName: existing.name, images: images) {
                var message = reason.message
                if reason == .missingNFC, passes.nfcReaderKey == nil { message += "; NFC entry " + nfcMissing }
                issues.append(.init(reason.field.map { "details." + $0 } ?? "details.usePoster", message))
            }
        }
        guard issues.isEmpty else { throw OrganizerError.invalid(issues) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = design == PassDesign() ? nil : String(decoding: try encoder.encode(design), as: UTF8.self)
        return (design, text)
    }
}
