import Certificates
import Foundation
import PassBundle

extension CommandLineInterface {
    static var certsCommand: Command {
        Command("certs", summary: "Certificates for local development.", subcommands: [certsDevCommand])
    }

    static var certsDevCommand: Command {
        Command(
            "dev",
            summary: "Create a throwaway CA, a WWDR-like intermediate, a pass certificate and a TLS server certificate.",
            usage: "[--dir Certificates/dev] [--pass-type-identifier ID] [--team-identifier ID]",
            details: "Idempotent: a complete set still valid for 30 days is kept. Phones do not accept passes signed with these."
        ) { arguments, context in
            let options = try OptionParser(arguments, valued: ["dir", "pass-type-identifier", "team-identifier"])
            let paths = try DevelopmentCertificates.generate(
                directory: options.options["dir"] ?? Configuration.developmentCertificatesDirectory,
                passTypeIdentifier: options.options["pass-type-identifier"] ?? DevelopmentCertificates.defaultPassTypeIdentifier,
                teamIdentifier: options.options["team-identifier"] ?? DevelopmentCertificates.defaultTeamIdentifier
            )
            for path in [paths.rootCertificate, paths.wwdrCertificate, paths.passCertificate, paths.passKey, paths.serverCertificate, paths.serverKey] {
                context.standardOutput(path)
            }
            return ExitCode.success
        }
    }

    static var passCommand: Command {
        Command("pass", summary: "Build pass files without running the server.", subcommands: [passBuildCommand])
    }

    /// The attendee file of `pass build`.
    struct AttendeeFile: Decodable {
        var serialNumber: String
        var authenticationToken: String?
        var eventName: String
        var venue: String
        var startsAt: String
        var endsAt: String?
        var timeZone: String?
        var attendeeName: String
        var seat: String?
        var voided: Bool?
        var organizationName: String?
        var description: String?
    }

    static var passBuildCommand: Command {
        Command(
            "build",
            summary: "Sign one .pkpass from a template and an attendee JSON file.",
            usage: "--template NAME --data attendee.json --out ticket.pkpass [signing options]",
            details: """
                attendee.json: {"serialNumber", "eventName", "venue", "startsAt" (ISO 8601 with zone), "attendeeName",
                optional "endsAt", "timeZone", "seat", "voided", "authenticationToken", "organizationName", "description"}.
                Signing uses PASS_CERTIFICATE/PASS_PRIVATE_KEY or PASS_P12, WWDR_CERTIFICATE, PUBLIC_URL (or --development).
                """
        ) { arguments, context in
            let (options, configuration) = try commandOptions(
                arguments, context: context, valued: ["template", "data", "out"], requirements: [.signing]
            )
            let templateName = try options.required("template")
            let dataPath = try options.required("data")
            let outPath = try options.required("out")
            guard let bytes = FileManager.default.contents(atPath: dataPath) else { throw UsageError("cannot read \(dataPath)") }
            let attendee: AttendeeFile
            do {
                attendee = try JSONDecoder().decode(AttendeeFile.self, from: bytes)
            } catch {
                throw UsageError("\(dataPath) is not a valid attendee file: \(error)")
            }
            guard let startsAt = ISODate.parse(attendee.startsAt) else { throw UsageError("startsAt must be ISO 8601 with a time zone") }
            guard let organizationName = attendee.organizationName ?? configuration.signing.organizationName else {
                throw UsageError("give organizationName in \(dataPath) or set ORGANIZATION_NAME (--organization-name)")
            }
            let identity = try Application.signingIdentity(configuration, logger: .init(label: "pass", level: .warning), now: Date())
            let template = try TemplateStore(root: configuration.passesDirectory).template(named: templateName)
            let data = TicketData(
                serialNumber: attendee.serialNumber,
                authenticationToken: attendee.authenticationToken ?? Crypto.randomToken(bytes: 24),
                webServiceURL: configuration.http.publicURL?.absoluteString ?? "https://example.invalid",
                organizationName: organizationName,
                description: attendee.description ?? "Ticket for \(attendee.eventName)",
                eventName: attendee.eventName, venue: attendee.venue, startsAt: startsAt,
                endsAt: attendee.endsAt.flatMap(ISODate.parse), timeZone: attendee.timeZone ?? "UTC",
                attendeeName: attendee.attendeeName, seat: attendee.seat, voided: attendee.voided ?? false
            )
            let bundle = try PassBundle.build(
                template: template, data: data, identity: identity,
                options: ValidationOptions(allowHTTPWebService: configuration.http.allowInsecurePublicURL)
            )
            try Data(bundle).write(to: URL(fileURLWithPath: outPath))
            context.standardOutput("wrote \(outPath) (\(bundle.count) bytes)")
            return ExitCode.success
        }
    }
}
