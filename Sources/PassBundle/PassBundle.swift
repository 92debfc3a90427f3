public import Certificates
public import Foundation

/// Builds signed `.pkpass` archives.
///
/// A bundle is pass.json (rendered from the template), the template's static files, manifest.json
/// (lowercase hex SHA-1 of every file, keys sorted) and `signature` (detached CMS over
/// manifest.json), zipped with files at the root. The output is byte-for-byte deterministic
/// except for the signing time. Blocking (about 1 ms of CPU, mostly the RSA signature).
public enum PassBundle {
    /// The media type of a `.pkpass`.
    public static let contentType = "application/vnd.apple.pkpass"

    /// Renders, validates, signs and zips one pass, parsing `identity` for this call only.
    /// Servers should create one `PassSigner` and use the other overload.
    public static func build(
        template: Template,
        data: TicketData,
        identity: SigningIdentity,
        signingTime: Date = Date(),
        options: ValidationOptions = ValidationOptions()
    ) throws(PassBundleError) -> [UInt8] {
        try build(template: template, data: data, signer: PassSigner(identity: identity), signingTime: signingTime, options: options)
    }

    /// Renders, validates, signs and zips one pass.
    public static func build(
        template: Template,
        data: TicketData,
        signer: PassSigner,
        signingTime: Date = Date(),
        options: ValidationOptions = ValidationOptions()
    ) throws(PassBundleError) -> [UInt8] {
        let passJSON = try renderPassJSON(template: template, data: data, signer: signer, options: options)
        return try assemble(template: template, passJSON: passJSON, signer: signer, signingTime: signingTime)
    }

    /// The validated pass.json for `data` as the typed model (what a preview of the pass shows).
    public static func renderPassDefinition(
        template: Template,
        data: TicketData,
        signer: PassSigner,
        options: ValidationOptions = ValidationOptions()
    ) throws(PassBundleError) -> PassDefinition {
        let values = try data.templateValues(passTypeIdentifier: signer.passTypeIdentifier, teamIdentifier: signer.teamIdentifier)
        var tree = try template.render(values)
        data.applyAnnouncement(to: &tree, label: template.announcementLabel)
        let definition = try PassDefinition.decode(tree)
        let issues = definition.validationIssues(passTypeIdentifier: signer.passTypeIdentifier, teamIdentifier: signer.teamIdentifier, options: options)
        guard issues.isEmpty else { throw .invalidPass(issues) }
        return definition
    }

    /// The validated pass.json bytes for `data` (what `build` puts into the archive).
    public static func renderPassJSON(
        template: Template,
        data: TicketData,
        signer: PassSigner,
        options: ValidationOptions = ValidationOptions()
    ) throws(PassBundleError) -> [UInt8] {
        let values = try data.templateValues(passTypeIdentifier: signer.passTypeIdentifier, teamIdentifier: signer.teamIdentifier)
        var (tree, bytes) = try template.renderWithBytes(values)
        if data.announcement != nil {
            data.applyAnnouncement(to: &tree, label: template.announcementLabel)
            bytes = tree.serialized
        }
        let definition = try PassDefinition.decode(tree)
        let issues = definition.validationIssues(passTypeIdentifier: signer.passTypeIdentifier, teamIdentifier: signer.teamIdentifier, options: options)
        guard issues.isEmpty else { throw .invalidPass(issues) }
        return bytes
    }

    /// Signs and zips already-rendered pass.json bytes together with the template's files.
    public static func assemble(template: Template, passJSON: [UInt8], signer: PassSigner, signingTime: Date = Date()) throws(PassBundleError) -> [UInt8] {
        try signed(template: template, passJSON: passJSON, signer: signer, signingTime: signingTime).bytes
    }

    /// Signs already-rendered pass.json bytes and lays out the archive as its two runs: the
    /// template's files, shared with every pass of the template, then this pass's own files
    /// (BundleArchive.swift). The archive's entries are the template's files, pass.json,
    /// manifest.json and signature, in that order.
    public static func signed(template: Template, passJSON: [UInt8], signer: PassSigner, signingTime: Date = Date()) throws(PassBundleError) -> SignedBundle {
        let manifest = template.manifest(passJSONHash: try SHA1.hex(passJSON))
        let signature = try signer.sign(manifest, signingTime: signingTime)
        let tail = try template.archive.tail([("pass.json", passJSON), ("manifest.json", manifest), ("signature", signature)])
        return SignedBundle(template: template.archive.run, tail: tail)
    }
}
