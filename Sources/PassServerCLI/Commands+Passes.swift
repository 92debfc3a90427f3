import Certificates
import Foundation
import PassBundle
import PassServer
import SystemSupport

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

    static var passBuildCommand: Command {
        Command(
            "build",
            summary: "Sign one .pkpass from a template and an attendee JSON file.",
            usage: "--template NAME --data attendee.json --out ticket.pkpass [--development | signing options]",
            details: """
                attendee.json: \(AttendeeFile.summary).
                Templates come from PASSES_DIR (--passes-dir, default ./Passes). Signing uses PASS_CERTIFICATE/PASS_PRIVATE_KEY
                or PASS_P12, WWDR_CERTIFICATE and PUBLIC_URL; --development instead signs with throwaway certificates made in
                ./Certificates/dev (openssl verifies them, phones refuse them).

                Example (from the repository's top directory):
                  pass-server pass build --development --template event-ticket --data attendee.json --out ticket.pkpass
                """
        ) { arguments, context in
            let (options, configuration) = try passBuildOptions(arguments, context: context)
            let templateName = try options.required("template")
            let dataPath = try options.required("data")
            let outPath = try options.required("out")
            // Inputs first: a run that cannot succeed stops before it makes development certificates.
            let data = try readAttendeeFile(dataPath, defaults: AttendeeFile.Defaults(
                webServiceURL: configuration.http.publicURL?.absoluteString ?? "https://example.invalid",
                organizationName: configuration.signing.organizationName,
                authenticationToken: { Crypto.randomToken(bytes: 24) }
            ))
            let template = try buildTemplate(named: templateName, in: configuration.passesDirectory)
            let identity = try Application.signingIdentity(configuration, logger: .init(label: "pass", level: .notice), now: Date())
            let bundle = try PassBundle.build(
                template: template, data: data, identity: identity,
                options: ValidationOptions(allowHTTPWebService: configuration.http.allowInsecurePublicURL)
            )
            try Data(bundle).write(to: URL(fileURLWithPath: outPath))
            context.standardOutput("wrote \(outPath) (\(bundle.count) bytes)")
            return ExitCode.success
        }
    }

    /// The options and configuration of `pass build`; when signing is not configured, the error
    /// points at `--development`.
    private static func passBuildOptions(_ arguments: [String], context: CommandContext) throws -> (OptionParser, Configuration) {
        do {
            return try commandOptions(arguments, context: context, valued: ["template", "data", "out"], requirements: [.signing])
        } catch let error as ConfigurationError where error.aboutSigning {
            throw UsageError("\(error)\nhint: to try it without Apple's certificates, add --development (throwaway certificates in ./Certificates/dev)")
        }
    }

    /// The ticket the attendee file describes, or a usage error listing every problem in it.
    private static func readAttendeeFile(_ path: String, defaults: AttendeeFile.Defaults) throws(UsageError) -> TicketData {
        guard let bytes = FileManager.default.contents(atPath: path) else { throw UsageError("cannot read the attendee file \(path)") }
        do {
            return try AttendeeFile.ticket(from: Array(bytes), defaults: defaults)
        } catch {
            let count = error.list.count == 1 ? "1 problem" : "\(error.list.count) problems"
            throw UsageError("\(path) has \(count):\n" + error.list.map { "  - \($0)" }.joined(separator: "\n"))
        }
    }

    /// The template to build with, or a usage error that names the directory searched.
    private static func buildTemplate(named name: String, in root: String) throws -> Template {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory), isDirectory.boolValue else {
            let directory = FileManager.default.currentDirectoryPath
            throw UsageError(
                "templates directory '\(root)' not found (looked in \(directory)): run pass build from the repository's top "
                    + "directory, or set PASSES_DIR (--passes-dir) to the folder that holds \(name)/"
            )
        }
        let available = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
            .filter { FileManager.default.fileExists(atPath: root + "/" + $0 + "/pass.json") }.sorted()
        guard available.contains(name) else {
            let listed = available.isEmpty ? "none" : available.joined(separator: ", ")
            throw UsageError("no template '\(name)' in \(root) (templates there: \(listed))")
        }
        return try TemplateStore(root: root).template(named: name)
    }
}
