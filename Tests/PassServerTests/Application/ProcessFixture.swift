import Foundation
import PassServerFixtures
import PassServerTesting
import Storage

@testable import PassServer

/// A database for process tests, set up directly through the store.
struct ProcessFixture {
    let directory: String
    let certificates: TestCertificates
    let databaseURL: String
    let store: any Store
    let vault = TokenVault(secret: ServerProcess.tokenSecret)

    init(_ backend: Backend) throws {
        directory = try TestCertificates.temporaryDirectory(prefix: "admin-process")
        certificates = try TestCertificates.make(in: directory)
        databaseURL = try backend.freshDatabaseURL(in: directory)
        store = try Storage.openStore(url: databaseURL, options: StoreOptions())
        try store.migrate()
    }

    var environment: [String: String] { ServerProcess.environment(certificates: certificates, databaseURL: databaseURL) }

    /// An event with `tickets` passes; returns the event id and the passes in id order.
    func event(tickets: Int) throws -> (String, [StoredPass]) {
        let event = try store.withSession(.write) {
            try $0.events.createEvent(
                NewEvent(name: "Night", venue: "Hall", startsAt: Date(timeIntervalSince1970: 1_800_000_000), endsAt: nil, timeZone: "UTC", template: "event-ticket"),
                now: Date()
            )
        }
        let passes = try AdminSupport.insertPasses(
            tickets, event: event.id, store: store, vault: vault, passType: TestCertificates.passTypeIdentifier
        )
        return (event.id, passes)
    }

    func launch(_ arguments: [String] = ["serve"], extra: [String: String] = [:]) throws -> ServerProcess {
        try ServerProcess(arguments, environment: environment.merging(extra) { $1 }, directory: directory)
    }
}
