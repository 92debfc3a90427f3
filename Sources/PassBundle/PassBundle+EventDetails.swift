public import Foundation

/// Building passes of an event with its `PassDesign`: the template renders, the design's colours,
/// logo text and Wallet details are written into the tree, and the result is validated and signed
/// like any other pass (the design's images are the template's files: `Template.designed`).
extension PassBundle {
    /// Renders, adds the event's design, validates, signs and zips one pass.
    public static func build(
        template: Template,
        data: TicketData,
        design: PassDesign,
        signer: PassSigner,
        signingTime: Date = Date(),
        options: ValidationOptions = ValidationOptions()
    ) throws(PassBundleError) -> [UInt8] {
        try buildSigned(template: template, data: data, design: design, signer: signer, signingTime: signingTime, options: options).bytes
    }

    /// Renders, adds the event's design, validates and signs one pass, as the two runs of its
    /// archive (`SignedBundle`): what a server keeps and sends.
    public static func buildSigned(
        template: Template,
        data: TicketData,
        design: PassDesign,
        signer: PassSigner,
        signingTime: Date = Date(),
        options: ValidationOptions = ValidationOptions()
    ) throws(PassBundleError) -> SignedBundle {
        let passJSON = try renderPassJSON(template: template, data: data, design: design, signer: signer, options: options)
        return try signed(template: template, passJSON: passJSON, signer: signer, signingTime: signingTime)
    }

    /// The validated pass.json bytes for `data` with the event's design.
    public static func renderPassJSON(
        template: Template,
        data: TicketData,
        design: PassDesign,
        signer: PassSigner,
        options: ValidationOptions = ValidationOptions()
    ) throws(PassBundleError) -> [UInt8] {
        try renderTree(template: template, data: data, design: design, signer: signer, options: options).tree.serialized
    }

    /// The validated pass.json for `data` with the event's design, as the typed model.
    public static func renderPassDefinition(
        template: Template,
        data: TicketData,
        design: PassDesign,
        signer: PassSigner,
        options: ValidationOptions = ValidationOptions()
    ) throws(PassBundleError) -> PassDefinition {
        try renderTree(template: template, data: data, design: design, signer: signer, options: options).definition
    }

    private static func renderTree(
        template: Template,
        data: TicketData,
        design: PassDesign,
        signer: PassSigner,
        options: ValidationOptions
    ) throws(PassBundleError) -> (tree: JSONValue, definition: PassDefinition) {
        let values = try data.templateValues(passTypeIdentifier: signer.passTypeIdentifier, teamIdentifier: signer.teamIdentifier)
        var tree = try template.render(values)
        data.applyAnnouncement(to: &tree, label: template.announcementLabel)
        design.applyLook(to: &tree)
        try design.details.apply(to: &tree, ticket: data)
        let definition = try PassDefinition.decode(tree)
        let issues = definition.validationIssues(passTypeIdentifier: signer.passTypeIdentifier, teamIdentifier: signer.teamIdentifier, options: options)
        guard issues.isEmpty else { throw .invalidPass(issues) }
        return (tree, definition)
    }
}

extension WalletEventDetails {
    /// `apply(to:eventName:startsAt:endsAt:timeZone:)` with the event's name, dates and zone from a ticket.
    public func apply(to pass: inout JSONValue, ticket: TicketData) throws(PassBundleError) {
        guard let zone = TimeZoneCache.zone(ticket.timeZone) else {
            throw PassBundleError(.invalidData, "timeZone: \(ticket.timeZone) is not a known IANA time zone identifier")
        }
        apply(to: &pass, eventName: ticket.eventName, startsAt: ticket.startsAt, endsAt: ticket.endsAt, timeZone: zone)
    }
}
