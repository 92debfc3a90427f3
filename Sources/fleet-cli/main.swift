// fleet: a simulated fleet of phones against a running pass-server (see FleetOptions.usage).

import Fleet
import Foundation
import SystemSupport

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("fleet: \(message)\n".utf8))
    exit(2)
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
    print(FleetOptions.usage)
    exit(0)
}

let options: FleetOptions
do {
    options = try FleetOptions(arguments, environment: ProcessInfo.processInfo.environment)
} catch {
    fail("\(error)\n\n\(FleetOptions.usage)")
}

do {
    let fleet = try Fleet(configuration: options.configuration)
    let layout = options.configuration.layout
    FileHandle.standardError.write(Data("fleet: fake APNs on \(fleet.apns.url); setting up \(layout.tickets) tickets on \(layout.phones) phones\n".utf8))
    // A large setup takes minutes: a progress line every 15 s on standard error.
    let reporter = Task {
        while !Task.isCancelled {
            try await Task.sleep(for: .seconds(15))
            let (tickets, phones) = fleet.setupProgress
            FileHandle.standardError.write(Data("fleet: \(tickets)/\(layout.tickets) tickets downloaded, \(phones)/\(layout.phones) phones registered\n".utf8))
        }
    }
    let setup = try await fleet.setUp(serverPort: options.serverPort, adminToken: options.adminToken)
    reporter.cancel()
    print(String(format: "setup: %d tickets issued and downloaded in %.1f s, %d registrations in %.1f s",
                 setup.tickets, setup.ticketSeconds, setup.registrations, setup.registrationSeconds))
    if let command = options.beforeEdit {
        let process = try ChildProcess("/bin/sh", ["-c", command], standardInput: .inherit)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { fail("--before-edit exited with status \(process.terminationStatus)") }
    }
    let report = try await fleet.editVenue()
    fleet.shutdown()
    print(report.summary)
    print(report.jsonLine)
    fflush(nil)
    exit(report.phonesLeftBehind == 0 ? 0 : 1)
} catch {
    fail("\(error)")
}
