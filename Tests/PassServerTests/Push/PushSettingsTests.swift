import APNs
import Foundation
import PassServerFixtures
import PassServerTesting
import Testing

@testable import PassServer
import PassServerCLI

/// The dispatcher's operator settings reach the running dispatcher.
@Suite("Push dispatcher: settings", .offCooperativePool, .timeLimit(.minutes(3)))
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

    @Test("APNS_PUSH_TYPE and APNS_PRIORITY default to background and 5; every combination APNs accepts loads")
    func headerSettings() throws {
        let defaults = try Configuration.load(environment: [:])
        #expect(defaults.apns.pushType == .background)
        #expect(defaults.apns.priority == .considerPower)
        for (pushType, priority, expected) in [("background", "5", (APNSPushType.background, APNSPriority.considerPower)),
                                                ("alert", "5", (.alert, .considerPower)), ("alert", "10", (.alert, .immediate)),
                                                (" ALERT ", "10", (.alert, .immediate))] {
            let loaded = try Configuration.load(environment: ["APNS_PUSH_TYPE": pushType, "APNS_PRIORITY": priority])
            #expect(loaded.apns.pushType == expected.0)
            #expect(loaded.apns.priority == expected.1)
        }
        #expect(try Configuration.load(environment: ["APNS_PRIORITY": "10"], arguments: ["--apns-push-type", "alert"]).apns.priority == .immediate)
    }

    @Test("priority 10 with the background push type is refused, naming both keys and APNs's answer")
    func backgroundWithPriorityTenRefused() {
        #expect {
            try Configuration.load(environment: ["APNS_PRIORITY": "10"])
        } throws: { error in
            guard let problems = (error as? ConfigurationError)?.problems, problems.count == 1, let problem = problems.first else { return false }
            return problem.hasPrefix("APNS_PRIORITY") && problem.contains("APNS_PUSH_TYPE=background") && problem.contains("BadPriority")
        }
    }

    @Test("unknown push types and priorities are refused together with the other problems")
    func badValuesRefused() {
        #expect {
            try Configuration.load(environment: ["APNS_PUSH_TYPE": "voip", "APNS_PRIORITY": "1", "APNS_UNREACHABLE_GRACE": "never"])
        } throws: { error in
            let problems = (error as? ConfigurationError)?.problems ?? []
            return problems.count == 3 && problems.contains { $0.hasPrefix("APNS_PUSH_TYPE: 'voip'") }
                && problems.contains { $0.hasPrefix("APNS_PRIORITY: '1'") } && problems.contains { $0.hasPrefix("APNS_UNREACHABLE_GRACE") }
        }
    }

    @Test("pass-server serve exits 64 on priority 10 with background pushes")
    func serveRefusesBadCombination() {
        let output = CapturedOutput()
        let code = CommandLineInterface.run(["serve"], context: output.context(environment: ["APNS_PRIORITY": "10", "APNS_PUSH_TYPE": "background"]))
        #expect(code == ExitCode.usage)
        #expect(output.standardError.contains("APNS_PRIORITY: 10 with APNS_PUSH_TYPE=background"))
    }

    @Test("APNS_UNREACHABLE_GRACE defaults to 60 s and reaches the dispatcher", arguments: Backend.allCases)
    func unreachableGrace(backend: Backend) throws {
        #expect(try Configuration.load(environment: [:]).apns.unreachableGrace == 60)
        #expect(try Configuration.load(environment: ["APNS_UNREACHABLE_GRACE": "2m"]).apns.unreachableGrace == 120)
        let app = try TestApp.start(backend) { $0.apns.unreachableGrace = 17 }
        defer { app.stop() }
        #expect(app.application.dispatcher.settings.unreachableGrace == 17)
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
