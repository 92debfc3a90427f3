// Creating the fleet through the server's public APIs, as an organizer and real phones would:
// an event and its tickets through the admin API; each pass downloaded from its link (the phone
// reads its authenticationToken from pass.json, so the fleet needs no server secret); then each
// phone registers its passes and asks once for its serials, keeping the tag.

import Foundation
import SystemSupport

extension FleetDriver {
    private struct NewEvent: Encodable {
        var name = "Fleet Night"
        var venue = "Fleet Hall"
        var startsAt = "2030-03-01T19:00:00+09:00"
        var timeZone = "Asia/Tokyo"
    }

    private struct NewTicket: Encodable {
        var attendeeName: String
    }

    private struct Registration: Encodable {
        var pushToken: String
    }

    func setUp(port: UInt16, adminToken: String, completion: @escaping (Result<FleetReport.Setup, FleetError>) -> Void) {
        guard loop.pool == nil, !stopped else {
            loop.after(0) { completion(.failure(FleetError(.invalidConfiguration, "the fleet is already set up"))) }
            return
        }
        setupCompletion = completion
        loop.pool = ClientPool(port: port, capacity: configuration.connections, requestTimeout: configuration.requestTimeout)
        adminAuthorization = "Bearer " + adminToken
        let began = monotonicSeconds()
        let request = ClientRequest(
            method: "POST", target: "/admin/v1/events",
            headers: [("Authorization", adminAuthorization), ("Content-Type", "application/json")], body: Self.json(NewEvent())
        )
        call(request, expect: [201], attempts: 1, what: "creating the event") { [self] result in
            guard case .success(let response) = result, let id = Self.object(response)?["id"] as? String else {
                return completeSetup(.failure(result.failure ?? FleetError(.unexpectedResponse, "the new event has no id")))
            }
            eventID = id
            designEvent(began: began)
        }
    }

    /// Gives the event the configured design (before any ticket, so no re-push job has passes).
    private func designEvent(began: Double) {
        guard let design = configuration.design else { return issueTickets(began: began) }
        let request = ClientRequest(
            method: "PUT", target: "/admin/v1/events/\(eventID)/design",
            headers: [("Authorization", adminAuthorization), ("Content-Type", "application/json")], body: design
        )
        call(request, expect: [200], attempts: 1, what: "designing the event") { [self] result in
            if let failure = result.failure { return completeSetup(.failure(failure)) }
            issueTickets(began: began)
        }
    }

    private func issueTickets(began: Double) {
        let tickets = layout.tickets
        serials = Array(repeating: "", count: tickets)
        authorizations = Array(repeating: "", count: tickets)
        downloadedModified = Array(repeating: "", count: tickets)
        let run = WindowedRun(count: tickets, window: configuration.connections, step: issueTicket) { [self] error in
            if let error { return completeSetup(.failure(error)) }
            for (index, serial) in serials.enumerated() { serialIndex[serial] = index }
            registerPhones(began: began, ticketsDone: monotonicSeconds())
        }
        run.start()
    }

    /// Issues ticket `index` and downloads its pass from the link in the answer.
    private func issueTicket(_ index: Int, finished: @escaping (FleetError?) -> Void) {
        let request = ClientRequest(
            method: "POST", target: "/admin/v1/events/\(eventID)/tickets",
            headers: [("Authorization", adminAuthorization), ("Content-Type", "application/json")],
            body: Self.json(NewTicket(attendeeName: "Fleet Phone \(index + 1)"))
        )
        // Not resent: a ticket is not idempotent.
        call(request, expect: [201], attempts: 1, what: "issuing a ticket") { [self] result in
            guard case .success(let response) = result, let ticket = Self.object(response),
                let serial = ticket["serialNumber"] as? String, let link = ticket["downloadURL"] as? String,
                let start = link.range(of: "/download/")
            else { return finished(result.failure ?? FleetError(.unexpectedResponse, "a new ticket has no serial or download link")) }
            let download = ClientRequest(method: "GET", target: String(link[start.lowerBound...]))
            call(download, expect: [200], what: "downloading a pass") { [self] result in
                switch result {
                case .failure(let error):
                    finished(error)
                case .success(let response):
                    do throws(FleetError) {
                        try keepDownloaded(response, index: index, serial: serial)
                        progress.ticketsIssued.add(1, ordering: .relaxed)
                        finished(nil)
                    } catch {
                        finished(error)
                    }
                }
            }
        }
    }

    /// What a phone keeps from a downloaded pass: its token (from pass.json) and Last-Modified.
    private func keepDownloaded(_ response: ClientResponse, index: Int, serial: String) throws(FleetError) {
        guard let modified = response.header("Last-Modified") else { throw FleetError(.unexpectedResponse, "a download has no Last-Modified") }
        let files = try PassArchive.files(response.body, named: ["pass.json"])
        guard let passJSON = files["pass.json"],
            let pass = (try? JSONSerialization.jsonObject(with: Data(passJSON))) as? [String: Any],
            let token = pass["authenticationToken"] as? String, let type = pass["passTypeIdentifier"] as? String,
            pass["serialNumber"] as? String == serial
        else { throw FleetError(.invalidPass, "pass.json of \(serial) lacks its serial, pass type or authenticationToken") }
        if passType.isEmpty { passType = type }
        guard type == passType else { throw FleetError(.invalidPass, "passes of more than one pass type") }
        serials[index] = serial
        authorizations[index] = "ApplePass " + token
        downloadedModified[index] = modified
    }

    private func registerPhones(began: Double, ticketsDone: Double) {
        let phones = layout.phones
        devices = (0..<phones).map { _ in random.hex(bytes: 16) }
        pushTokens = (0..<phones).map { _ in random.hex(bytes: 32) }
        for (index, token) in pushTokens.enumerated() { tokenIndex[token] = index }
        syncs = Array(repeating: PhoneSync(), count: phones)
        slotModified = (0..<layout.slots).map { downloadedModified[layout.pass(inSlot: $0)] }
        let run = WindowedRun(count: phones, window: configuration.connections, step: registerPhone) { [self] error in
            if let error { return completeSetup(.failure(error)) }
            let now = monotonicSeconds()
            completeSetup(.success(FleetReport.Setup(
                eventID: eventID, tickets: layout.tickets, phones: phones, registrations: layout.slots,
                ticketSeconds: ((ticketsDone - began) * 1000).rounded() / 1000, registrationSeconds: ((now - ticketsDone) * 1000).rounded() / 1000
            )))
        }
        run.start()
    }

    /// Registers every pass of phone `phone`, then lists its serials once to learn its tag.
    private func registerPhone(_ phone: Int, finished: @escaping (FleetError?) -> Void) {
        register(phone, slot: layout.slots(ofPhone: phone).lowerBound) { [self] error in
            if let error { return finished(error) }
            let list = ClientRequest(method: "GET", target: "/v1/devices/\(devices[phone])/registrations/\(passType)")
            call(list, expect: [200], attempts: 5, what: "the first serial list") { [self] result in
                guard case .success(let response) = result, let answer = Self.object(response),
                    let listed = answer["serialNumbers"] as? [String], let tag = answer["lastUpdated"] as? String
                else { return finished(result.failure ?? FleetError(.unexpectedResponse, "the first serial list is not an object")) }
                let expected = Set(layout.slots(ofPhone: phone).map { serials[layout.pass(inSlot: $0)] })
                guard Set(listed) == expected else { return finished(FleetError(.unexpectedResponse, "a phone's first list differs from its passes")) }
                syncs[phone] = PhoneSync(tag: tag)
                progress.phonesRegistered.add(1, ordering: .relaxed)
                finished(nil)
            }
        }
    }

    private func register(_ phone: Int, slot: Int, finished: @escaping (FleetError?) -> Void) {
        guard slot < layout.slots(ofPhone: phone).upperBound else { return finished(nil) }
        let pass = layout.pass(inSlot: slot)
        let request = ClientRequest(
            method: "POST", target: "/v1/devices/\(devices[phone])/registrations/\(passType)/\(serials[pass])",
            headers: [("Authorization", authorizations[pass]), ("Content-Type", "application/json")],
            body: Self.json(Registration(pushToken: pushTokens[phone]))
        )
        call(request, expect: [200, 201], attempts: 5, what: "registering a phone") { [self] result in
            if let error = result.failure { return finished(error) }
            register(phone, slot: slot + 1, finished: finished)
        }
    }
}

extension Result {
    /// The error of a failure.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
