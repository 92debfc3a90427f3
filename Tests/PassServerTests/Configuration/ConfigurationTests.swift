import Foundation
import PassServerTesting
import Testing

@testable import PassServer

@Suite("Configuration", .offCooperativePool)
struct ConfigurationTests {
    @Test("defaults match the documented table")
    func defaults() throws {
        let configuration = try Configuration.load(environment: [:])
        #expect(configuration.http.host == "127.0.0.1")
        #expect(configuration.http.port == 8080)
        #expect(configuration.database.url == "sqlite://.data/pass-server.sqlite")
        #expect(configuration.apns.url == "https://api.push.apple.com")
        #expect(configuration.apns.mode == .live)
        #expect(configuration.logLevel == .info)
        var checked = 0
        for setting in Configuration.settings where setting.documentedDefault != nil && !setting.documentedDefault!.contains(" ") {
            // Applying the documented default must be accepted and leave the configuration unchanged.
            let applied = try Configuration.load(environment: [setting.key: setting.documentedDefault!])
            #expect(applied == configuration, "documented default of \(setting.key) differs from the real default")
            checked += 1
        }
        #expect(checked >= 30, "most settings have a documented default to apply: \(checked) did")
    }

    @Test("flags win over environment variables")
    func flagsWin() throws {
        let configuration = try Configuration.load(
            environment: ["HTTP_PORT": "9000", "LOG_LEVEL": "debug"],
            arguments: ["--http-port", "9100", "--log-level=error", "--no-migrate"]
        )
        #expect(configuration.http.port == 9100)
        #expect(configuration.logLevel == .error)
        #expect(configuration.database.migrateOnStart == false)
    }

    @Test("durations accept units")
    func durations() throws {
        let configuration = try Configuration.load(environment: ["APNS_EXPIRATION": "2d", "HTTP_CONNECTION_TIMEOUT": "90s", "PUSH_MAX_RETRY_AGE": "3h"])
        #expect(configuration.apns.expiration == 172_800)
        #expect(configuration.http.connectionTimeout == 90)
        #expect(configuration.push.maxRetryAge == 10_800)
    }

    @Test("ERASE_AFTER_DAYS is off unless set, a whole number of days from 1; DELETED_EVENT_GRACE is a duration")
    func erasure() throws {
        #expect(try Configuration.load(environment: [:]).retention.eraseAfterDays == nil)
        #expect(try Configuration.load(environment: ["ERASE_AFTER_DAYS": "30"]).retention.eraseAfterDays == 30)
        #expect(try Configuration.load(environment: [:], arguments: ["--erase-after-days", "7"]).retention.eraseAfterDays == 7)
        for refused in ["0", "-1", "30d", "many"] {
            #expect(throws: ConfigurationError.self, "\(refused)") { _ = try Configuration.load(environment: ["ERASE_AFTER_DAYS": refused]) }
        }
        #expect(try Configuration.load(environment: ["DELETED_EVENT_GRACE": "2d"]).retention.deletedEvents == 172_800)
    }

    @Test("every problem is reported together")
    func problemsTogether() {
        #expect {
            _ = try Configuration.load(
                environment: ["HTTP_PORT": "eighty", "DATABASE_URL": "mysql://x", "LOG_LEVEL": "loud"],
                arguments: ["--bogus"]
            )
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            let text = error.description
            return error.problems.count == 4 && text.contains("HTTP_PORT") && text.contains("DATABASE_URL")
                && text.contains("LOG_LEVEL") && text.contains("--bogus")
        }
    }

    @Test("serve requires a public https URL, a token secret, an organization name and a signing identity")
    func serveRequirements() {
        #expect {
            _ = try Configuration.load(environment: ["PUBLIC_URL": "http://tickets.example.com"], requirements: .serve)
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            let text = error.description
            return text.contains("PUBLIC_URL: must be https") && text.contains("TOKEN_SECRET") && text.contains("PASS_CERTIFICATE")
                && text.contains("WWDR_CERTIFICATE") && text.contains("ORGANIZATION_NAME: required")
        }
    }

    @Test("P12 and PEM together are refused; missing files are named")
    func signingConflicts() {
        #expect {
            _ = try Configuration.load(
                environment: [
                    "PUBLIC_URL": "https://tickets.example.com", "TOKEN_SECRET": String(repeating: "ab", count: 32),
                    "PASS_P12": "/nonexistent/a.p12", "PASS_CERTIFICATE": "/nonexistent/c.pem", "WWDR_CERTIFICATE": "/nonexistent/w.pem",
                ],
                requirements: .serve
            )
        } throws: { error in
            let text = String(describing: error)
            return text.contains("not both") && text.contains("cannot read '/nonexistent/w.pem'")
        }
    }

    @Test("development mode fills in certificates, an http public URL and logged pushes")
    func development() throws {
        let configuration = try Configuration.load(environment: ["HTTP_PORT": "9300"], arguments: ["--development"], requirements: .serve)
        #expect(configuration.http.publicURL?.absoluteString == "http://127.0.0.1:9300")
        #expect(configuration.apns.mode == .log)
        #expect(configuration.signing.certificate == "Certificates/dev/pass-certificate.pem")
        #expect(configuration.signing.organizationName == "PassServer")
        let named = try Configuration.load(environment: ["ORGANIZATION_NAME": "Swift Events"], arguments: ["--development"], requirements: .serve)
        #expect(named.signing.organizationName == "Swift Events")
    }

    @Test("token secrets must be long enough", arguments: ["abcd", "not base64 at all!", String(repeating: "a", count: 62)])
    func shortSecret(_ secret: String) {
        #expect(throws: ConfigurationError.self) {
            _ = try Configuration.load(environment: ["TOKEN_SECRET": secret])
        }
    }
}

@Suite("Configuration documentation", .offCooperativePool)
struct ConfigurationDocumentationTests {
    @Test("the README table lists every key with its flag and default")
    func readmeTable() throws {
        let readme = try String(contentsOf: PassServerExecutable.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(Configuration.settings.count >= 40, "\(Configuration.settings.count) settings")
        for setting in Configuration.settings {
            let defaultText = setting.documentedDefault.map { "`\($0)`" } ?? "—"
            #expect(
                readme.contains("| `\(setting.key)` | `\(setting.flag)` | \(defaultText) |"),
                "README.md lacks the row of \(setting.key); regenerate it with scripts/config-table.py"
            )
        }
    }
}
