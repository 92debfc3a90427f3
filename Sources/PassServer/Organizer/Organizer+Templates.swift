import Foundation
import PassBundle
import Storage

/// Templates: the folders under PASSES_DIR and the Pass Designer templates organizers upload.
///
/// An upload is a zipped `.pkpasstemplate` folder. It is read and checked with every reason at
/// once (`PassDesignerTemplate`), its fields are mapped to ticket data by the guesses their keys
/// and labels suggest, and the template made from it is tried on sample tickets; only then is it
/// stored, archive and mapping, so every instance builds the same passes from it. Uploading
/// again under the same name replaces the archive (a field it still has keeps its mapping);
/// changing the mapping is its own operation. Either one that changes what goes into a pass
/// re-pushes the events using the template: every pass gets a new revision and each phone a push.
extension Organizer {
    /// The fields of the refusals: the name and the archive of an upload, the mapping.
    static let templateFields = ["name", "archive", "mapping"]

    /// Every template, folders first, each group sorted by name.
    func templates() throws -> [TemplateSummary] {
        let library = passes.templates
        let folders = library.fileTemplateNames.map { name in
            TemplateSummary(folder: name, loading: Result { try library.template(named: name) })
        }
        return folders + (try library.uploadedTemplates().map(TemplateSummary.init))
    }

    /// The template `name`; `notFound` when there is none.
    func template(named name: String?) throws -> TemplateSummary {
        let library = passes.templates
        guard let name, AdminIdentifiers.isPlausible(name) else { throw OrganizerError.notFound("No such template.") }
        if library.isFileTemplate(name) {
            return TemplateSummary(folder: name, loading: Result { try library.template(named: name) })
        }
        guard let uploaded = try library.uploaded(named: name) else { throw OrganizerError.notFound("No such template.") }
        return TemplateSummary(uploaded)
    }

    /// Imports a zipped Pass Designer template as `name`, or replaces the archive of the uploaded
    /// template of that name. Refused (`invalid`) with every problem of the name (`name`) and of
    /// the archive (`archive`: not a zip, an unsafe path, no pass.json, broken JSON, no icon …);
    /// nothing is stored then.
    func importTemplate(_ archive: [UInt8], name given: String?, requestID: String) throws -> TemplateChange {
        var check = FieldCheck(reported: [], fields: Self.templateFields)
        var name: String?
        if let given {
            name = check.apply("name", given, FieldRules.templateName)
            if let chosen = name, passes.templates.isFileTemplate(chosen) {
                check.problem("name", "is the name of a template in the templates folder; choose another")
                name = nil
            }
        } else {
            check.problem("name", "is required")
        }
        var designer: PassDesignerTemplate?
        if archive.isEmpty {
            check.problem("archive", "is empty: send the zipped .pkpasstemplate folder")
        } else {
            do {
                designer = try PassDesignerTemplate(archive: archive, limits: TemplateLibrary.archiveLimits)
            } catch {
                Self.archiveProblems(error, into: &check)
            }
        }
        try check.validate()
        guard let name, let designer else { throw OrganizerError.invalid(check.allIssues) }

        let previous = try store.withSession(.read) { try $0.templates.storedTemplateMapping(name: name) }
        let kept = previous.flatMap { try? TemplateLibrary.decodeMapping($0.mapping) } ?? [:]
        // A field the previous archive had keeps the source chosen for it; a new one gets the guess.
        var mapping = designer.defaultMapping
        for (key, source) in kept where mapping[key] != nil { mapping[key] = source }
        let template: Template
        do {
            template = try designer.template(name: name, mapping: mapping)
        } catch {
            // The kept choices may not suit the new archive: the guesses alone are tried too.
            guard mapping != designer.defaultMapping, let guessed = try? designer.template(name: name, mapping: designer.defaultMapping) else {
                Self.archiveProblems(error, into: &check)
                throw OrganizerError.invalid(check.allIssues)
            }
            mapping = designer.defaultMapping
            template = guessed
        }
        return try save(
            name: name, archiveHash: try TemplateLibrary.archiveHash(archive), designer: designer, mapping: mapping, template: template,
            expected: previous?.sourceHash, requestID: requestID
        ) { session, text, hash, now in
            try session.templates.saveTemplate(name: name, files: archive, mapping: text, sourceHash: hash, now: now)
            return true
        }
    }

    /// Replaces the mapping of the uploaded template `name`: `given` names, by field key, the
    /// source of each field (`FieldSource`'s text form); a field left out keeps the designer's
    /// value. Refused (`invalid`, under `mapping.<key>`) for a key the template has no field
    /// for, a source that is not one, or a mapping whose passes Wallet would refuse.
    func updateMapping(template name: String?, _ given: [String: String], unreadable: [OrganizerError.Issue] = [], requestID: String) throws -> TemplateChange {
        guard let name, AdminIdentifiers.isPlausible(name) else { throw OrganizerError.notFound("No such template.") }
        if passes.templates.isFileTemplate(name) {
            throw OrganizerError.conflict(
                code: "folder_template", message: "Template \(name) is a folder in the templates folder: its fields are set in its pass.json."
            )
        }
        guard let uploaded = try passes.templates.uploaded(named: name) else { throw OrganizerError.notFound("No such template.") }
        var check = FieldCheck(reported: unreadable, fields: Self.templateFields)
        let keys = Set(uploaded.designer.fields.map(\.key))
        var mapping: [String: FieldSource] = [:]
        for (key, raw) in given.sorted(by: { $0.key < $1.key }) {
            guard keys.contains(key) else {
                check.problem("mapping.\(key)", "the template has no field with this key")
                continue
            }
            guard let source = FieldSource(rawValue: raw) else {
                check.problem("mapping.\(key)", "must be one of \(FieldSource.ticketSources.map(\.rawValue).joined(separator: ", ")) or extra.<name>")
                continue
            }
            mapping[key] = source
        }
        try check.validate()
        // Every field is named, those left out as the designer's: an archive uploaded later keeps each choice.
        for key in keys where mapping[key] == nil { mapping[key] = .constant }
        let template: Template
        do {
            template = try uploaded.designer.template(name: name, mapping: mapping)
        } catch {
            for issue in error.issues {
                if issue.key.hasPrefix("mapping.") { check.problem(issue.key, issue.problem) } else { check.problem("mapping", issue.description) }
            }
            if check.isValid { check.problem("mapping", error.message) }
            throw OrganizerError.invalid(check.allIssues)
        }
        return try save(
            name: name, archiveHash: uploaded.archiveHash, designer: uploaded.designer, mapping: mapping, template: template,
            expected: uploaded.sourceHash, requestID: requestID
        ) { session, text, hash, now in
            try session.templates.setTemplateMapping(name: name, expected: uploaded.sourceHash, mapping: text, sourceHash: hash, now: now)
        }
    }

    /// Stores a checked template in one transaction, if the row is still as it was read
    /// (`expected`: its source hash, nil for none), records its content and re-pushes the events
    /// using it when what goes into their passes changed.
    private func save(
        name: String, archiveHash: [UInt8], designer: PassDesignerTemplate, mapping: [String: FieldSource], template: Template,
        expected: String?, requestID: String,
        _ write: (StoreSession, _ mapping: String, _ sourceHash: String, _ now: Date) throws -> Bool
    ) throws -> TemplateChange {
        let text = TemplateLibrary.encodeMapping(mapping)
        let hash = try TemplateLibrary.sourceHash(archiveHash: archiveHash, mapping: text)
        let now = now()
        let changed = OrganizerError.conflict(code: "template_changed", message: "Template \(name) was changed meanwhile; try again.")
        let jobs = try store.transaction { session -> [Job] in
            guard try session.templates.storedTemplateVersion(name: name) == expected else { throw changed }
            guard try write(session, text, hash, now) else { throw changed }
            // Recorded here, with the change: the template watch finds it recorded and pushes nothing more.
            let differs = try session.templates.recordTemplateVersion(name: name, contentHash: template.contentHash, now: now)
            return differs ? try session.templates.repushEvents(template: name, now: now) : []
        }
        let uploaded = TemplateLibrary.Uploaded(
            name: name, sourceHash: hash, archiveHash: archiveHash, designer: designer, mapping: mapping, template: template, updatedAt: now
        )
        passes.templates.remember(uploaded)
        logger.info(expected == nil ? "template uploaded" : "template changed", [
            "template": name, "jobs": "\(jobs.count)", "request.id": requestID,
        ])
        if !jobs.isEmpty { jobCreated() }
        return TemplateChange(template: TemplateSummary(uploaded), created: expected == nil, jobs: jobs)
    }

    /// The problems of an archive that cannot be imported, under `archive`, every one.
    private static func archiveProblems(_ error: any Error, into check: inout FieldCheck) {
        guard let error = error as? PassBundleError else {
            check.problem("archive", "cannot be read")
            return
        }
        if error.issues.isEmpty {
            check.problem("archive", error.message)
        } else {
            for issue in error.issues { check.problem("archive", issue.description) }
        }
    }
}
