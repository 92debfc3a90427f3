import Foundation
package import PassServer
import Storage
package import SystemSupport

extension CommandLineInterface {
    static var tokenCommand: Command {
        Command(
            "token", summary: "Create, list and revoke admin API tokens.",
            subcommands: [tokenCreateCommand, tokenListCommand, tokenRevokeCommand]
        )
    }

    static var tokenCreateCommand: Command {
        Command(
            "create", summary: "Mint an admin token; it is printed once and stored only as a hash.",
            usage: "--name NAME [--role admin|viewer|scanner] [--database-url URL]",
            details: """
                --role admin    everything (the default)
                --role viewer   read only: every GET of the admin API
                --role scanner  check-in at the door only (POST /admin/v1/checkins, …:batch, an event's check-in count,
                                and the dashboard's scanner page /admin/scan)
                NAME must be unique among active tokens and not a number (`token revoke` takes an id or a name).
                """
        ) { arguments, context in
            let (options, configuration) = try commandOptions(arguments, context: context, valued: ["name", "role"])
            let name = try options.required("name")
            guard !name.isEmpty, name.count <= 100, !name.contains(where: { $0.isNewline }) else {
                throw UsageError("--name must be one line of 1 to 100 characters")
            }
            guard Int64(name) == nil else { throw UsageError("--name must not be a number: `token revoke` would read it as an id") }
            let roleName = options.options["role"] ?? AdminRole.admin.rawValue
            guard let role = AdminRole(rawValue: roleName) else {
                throw UsageError("--role must be one of \(AdminRole.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            let store = try Application.openStore(configuration)
            defer { store.close() }
            try store.migrate()
            let token = AdminAuthentication.newToken()
            do {
                _ = try store.withSession(.write) { try $0.admin.createAdminToken(name: name, role: role, tokenHash: TokenVault.hash(token), now: Date()) }
            } catch let error as StorageError where error.code == .conflict {
                context.standardError("error: an active admin token is named '\(name)'; choose another name, or revoke it first (`pass-server token revoke \(name)`)")
                return ExitCode.failure
            }
            context.standardOutput(token)
            context.standardError(
                "Admin token '\(name)' (role \(role.rawValue)) created. It is shown only now: keep it secret. Use it as 'Authorization: Bearer <token>'."
            )
            return ExitCode.success
        }
    }

    static var tokenListCommand: Command {
        Command("list", summary: "List admin tokens (ids, names, roles and dates, never the tokens).", usage: "[--database-url URL]") { arguments, context in
            let (_, configuration) = try commandOptions(arguments, context: context, valued: [])
            let store = try Application.openStore(configuration)
            defer { store.close() }
            try store.migrate()
            let tokens = try store.withSession(.read) { try $0.admin.adminTokens() }
            if tokens.isEmpty { context.standardOutput("no admin tokens") }
            for token in tokens {
                let state = token.revokedAt.map { "revoked \(ISODate.format($0))" } ?? "active"
                context.standardOutput("\(token.id)\t\(token.name)\t\(token.role.rawValue)\tcreated \(ISODate.format(token.createdAt))\t\(state)")
            }
            return ExitCode.success
        }
    }

    static var tokenRevokeCommand: Command {
        Command(
            "revoke", summary: "Revoke an admin token by id or by name.", usage: "ID_OR_NAME [--database-url URL]",
            details: "A number is an id (as `token list` shows); otherwise the active token with that name."
        ) { arguments, context in
            let (options, configuration) = try commandOptions(arguments, context: context, valued: [])
            guard options.positional.count == 1 else { throw UsageError("give exactly one token id or name") }
            let store = try Application.openStore(configuration)
            defer { store.close() }
            try store.migrate()
            let revoked = try store.withSession(.write) { try $0.admin.revokeAdminToken(idOrName: options.positional[0], now: Date()) }
            guard revoked > 0 else {
                context.standardError("error: no active admin token '\(options.positional[0])'")
                return ExitCode.failure
            }
            context.standardOutput("revoked \(revoked) token(s)")
            return ExitCode.success
        }
    }

    /// Splits a command's own options from configuration flags and loads the configuration.
    package static func commandOptions(
        _ arguments: [String], context: CommandContext, valued: Set<String>, booleans: Set<String> = [],
        requirements: Configuration.Requirements = []
    ) throws -> (OptionParser, Configuration) {
        let settingFlags = Set(Configuration.settings.map { String($0.flag.dropFirst(2)) })
        let options = try OptionParser(arguments, valued: valued.union(settingFlags), booleans: booleans.union(["development"]))
        var configurationArguments: [String] = []
        for (name, value) in options.options where settingFlags.contains(name) && !valued.contains(name) {
            configurationArguments += ["--\(name)", value]
        }
        for flag in options.flags where flag == "development" { configurationArguments.append("--development") }
        let configuration = try Configuration.load(environment: context.environment, arguments: configurationArguments, requirements: requirements)
        return (options, configuration)
    }
}
