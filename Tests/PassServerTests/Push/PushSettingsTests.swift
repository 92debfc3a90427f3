import Foundation
import Testing

@testable import PassServer

/// The dispatcher's operator settings reach the running dispatcher.
@Suite("Push dispatcher: settings")
struct PushSettingsTests {
    @Test("PUSH_HALT_PAUSE and PUSH_LEASE are parsed; the lease defaults to twice the request timeout plus 30 s")
    func parsed() throws {
        let defaults = try Configuration.load(environment: [:])
        #expect(defaults.push.haltPause == 300)
        #expect(defaults.push.lease == nil)
        let configured = try Configuration.load(environment: ["PUSH_HALT_PAUSE": "90s", "PUSH_LEASE": "2m"])
        #expect(configured.push.haltPause == 90)
        #expect(configured.push.lease == 120)
        #expect(throws: ConfigurationError.self) { try Configuration.load(environment: ["PUSH_LEASE": "1"]) }
        #expect(throws: ConfigurationError.self) { try Configuration.load(environment: ["PUSH_HALT_PAUSE": "soon"]) }
    }

    @Test("the application hands the settings to its dispatcher", arguments: Backend.allCases)
    func wired(backend: Backend) throws {
        let derived = try TestApp.start(backend) { $0.apns.requestTimeout = 5 }
        defer { derived.stop() }
        #expect(derived.application.dispatcher.settings.lease == .seconds(40))
        #expect(derived.application.dispatcher.settings.haltPause == 300)

        let explicit = try TestApp.start(backend) { configuration in
            configuration.push.lease = 7
            configuration.push.haltPause = 9
            configuration.push.retryBaseDelay = 0.25
        }
        defer { explicit.stop() }
        #expect(explicit.application.dispatcher.settings.lease == .seconds(7))
        #expect(explicit.application.dispatcher.settings.haltPause == 9)
        #expect(explicit.application.dispatcher.policy.baseDelay == 0.25)
    }
}
