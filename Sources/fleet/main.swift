// fleet: a simulated fleet of phones against a running pass-server (see FleetOptions.usage).

import Fleet
import Foundation

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("fleet: \(message)\n".utf8))
    exit(2)
}

let options: FleetOptions
do {
    options = try FleetOptions(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
} catch {
    fail("\(error)\n\n\(FleetOptions.usage)")
}

do {
    let fleet = try Fleet(configuration: options.configuration)
    let layout = options.configuration.layout
    FileHandle.standardError.write(Data("fleet: fake APNs on \(fleet.apns.url); setting up \(layout.tickets) tickets on \(layout.phones) phones\n".utf8))
    let setup = try await fleet.setUp(serverPort: options.serverPort, adminToken: options.adminToken)
    print(String(format: "setup: %d tickets issued and downloaded in %.1f s, %d registrations in %.1f s",
                 setup.tickets, setup.ticketSeconds, setup.registrations, setup.registrationSeconds))
    let report = try await fleet.editVenue()
    fleet.shutdown()
    print(report.summary)
    print(report.jsonLine)
    fflush(nil)
    exit(report.phonesLeftBehind == 0 ? 0 : 1)
} catch {
    fail("\(error)")
}
