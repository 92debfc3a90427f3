// After the organizer's edit: each accepted push wakes its phone, which behaves like Wallet
// (PhoneSync) until every phone holds the new revision of every pass, or the deadline passes.

import Foundation
import HTTPServer
import SystemSupport

extension FleetDriver {
    private struct VenueChange: Encodable {
        var venue: String
    }

    /// PATCHes the event's venue as the organizer, then follows the phones; completes with the report.
    func edit(completion: @escaping (Result<FleetReport, FleetError>) -> Void) {
        guard setupReport != nil, !stopped else {
            loop.after(0) { completion(.failure(FleetError(.invalidConfiguration, "set the fleet up before editing"))) }
            return
        }
        guard storm?.finished ?? true else {
            loop.after(0) { completion(.failure(FleetError(.invalidConfiguration, "an edit is already running"))) }
            return
        }
        stormCompletion = completion
        let venue = configuration.venue ?? "Fleet Hall " + random.hex(bytes: 3)
        let generation = (storm?.generation ?? 0) + 1
        progress.updatedPhones.store(0, ordering: .relaxed)
        storm = StormState(
            generation: generation, venue: venue, startedAt: monotonicSeconds(), fleetCPUAtStart: ProcessStats.ownCPUSeconds(),
            serverPID: configuration.serverPID, databasePID: configuration.databasePID,
            baseline: slotModified.map { HTTPDate.parse($0, obsoleteForms: false) ?? 0 }, passesPerPhone: layout.passesPerPhone, phones: layout.phones,
            faulty: configuration.faultyPhoneIndices, failuresPerFaultyPhone: configuration.failedFetchesPerFaultyPhone
        )
        let request = ClientRequest(
            method: "PATCH", target: "/admin/v1/events/\(eventID)",
            headers: [("Authorization", adminAuthorization), ("Content-Type", "application/json")], body: Self.json(VenueChange(venue: venue))
        )
        call(request, expect: [200], attempts: 1, what: "the organizer's edit") { [self] result in
            guard storm?.generation == generation else { return }
            switch result {
            case .success: storm?.patchSeconds = monotonicSeconds() - (storm?.startedAt ?? 0)
            case .failure(let error): finishStorm(error: error)
            }
        }
        loop.after(configuration.deadline) { [self] in
            if storm?.generation == generation { finishStorm() }
        }
    }

    /// The fake APNs accepted a push for `token`.
    func pushed(_ token: String) {
        guard !stopped, let phone = tokenIndex[token] else { return }
        progress.pushesAccepted.add(1, ordering: .relaxed)
        if storm?.finished == false {
            storm?.pushes += 1
            storm?.lastPushAt = monotonicSeconds()
        }
        perform(phone, syncs[phone].pushArrived())
    }

    private func perform(_ phone: Int, _ action: PhoneSync.Action) {
        guard !stopped else { return }
        switch action {
        case .none:
            break
        case .think:
            loop.after(random.uniform(configuration.thinkTime)) { [self] in perform(phone, syncs[phone].thinkingDone()) }
        case .list(let tag):
            list(phone, tag: tag)
        case .fetch(let slot):
            fetch(phone, slot: slot)
        case .retry(let failures):
            let delay = backoff.delay(afterFailures: failures, jitter: random.uniform(0...1))
            loop.after(delay) { [self] in perform(phone, syncs[phone].retryDue()) }
        }
    }

    private func list(_ phone: Int, tag: String?) {
        guard let pool = loop.pool else { return }
        let query = tag.map { "?passesUpdatedSince=" + $0 } ?? ""
        let request = ClientRequest(method: "GET", target: "/v1/devices/\(devices[phone])/registrations/\(passType)\(query)")
        pool.send(request, now: monotonicSeconds()) { [self] result in
            storm?.record(result)
            switch result {
            case .success(let response) where response.status == 200:
                storm?.listLatencies.append(response.queueWait + response.latency)
                let answer = Self.object(response)
                let listed = (answer?["serialNumbers"] as? [String]) ?? []
                let mine = layout.slots(ofPhone: phone)
                let slots = listed.compactMap { serial in serialIndex[serial].flatMap { pass in mine.first { layout.pass(inSlot: $0) == pass } } }
                perform(phone, syncs[phone].listed(slots: slots, lastUpdated: answer?["lastUpdated"] as? String))
            case .success(let response) where response.status == 204:
                storm?.listLatencies.append(response.queueWait + response.latency)
                perform(phone, syncs[phone].listed(slots: [], lastUpdated: nil))
            default:
                storm?.listFailures += 1
                perform(phone, syncs[phone].failed())
            }
        }
    }

    private func fetch(_ phone: Int, slot: Int) {
        guard let pool = loop.pool else { return }
        let pass = layout.pass(inSlot: slot)
        let checks = FetchChecks(slot: slot, configuration: configuration)
        var request = ClientRequest(
            method: "GET", target: "/v1/passes/\(passType)/\(serials[pass])",
            headers: [("Authorization", authorizations[pass]), ("If-Modified-Since", slotModified[slot])], keepBody: checks.needsBody
        )
        if let left = storm?.injectedLeft[phone], left > 0 {
            storm?.injectedLeft[phone] = left - 1
            storm?.injected += 1
            request.port = refusing.port
        }
        pool.send(request, now: monotonicSeconds()) { [self] result in
            storm?.record(result)
            switch result {
            case .success(let response) where response.status == 200:
                storm?.fetches += 1
                storm?.fetchLatencies.append(response.queueWait + response.latency)
                received(response, phone: phone, slot: slot, checks: checks)
                perform(phone, syncs[phone].fetched())
            case .success(let response) where response.status == 304:
                storm?.unchanged += 1
                perform(phone, syncs[phone].fetched())
            default:
                storm?.fetchFailures += 1
                perform(phone, syncs[phone].failed())
            }
        }
    }

    /// A pass arrived: the phone keeps it; it counts as the new revision if it checks out.
    private func received(_ response: ClientResponse, phone: Int, slot: Int, checks: FetchChecks) {
        guard let state = storm else { return }
        guard let modified = response.header("Last-Modified"), let epoch = HTTPDate.parse(modified, obsoleteForms: false),
            response.bodyPrefix == [0x50, 0x4B, 0x03, 0x04]
        else {
            state.stale += 1
            return
        }
        slotModified[slot] = modified
        guard epoch > state.baseline[slot] else {
            state.stale += 1
            return
        }
        guard check(response, pass: layout.pass(inSlot: slot), checks: checks, state: state), !state.slotUpdated[slot] else { return }
        state.slotUpdated[slot] = true
        state.updatedSlots += 1
        state.passesLeft[phone] -= 1
        guard state.passesLeft[phone] == 0, !state.finished else { return }
        state.updateTimes.append(monotonicSeconds() - state.startedAt)
        if state.faulty.contains(phone) { state.faultyUpdated += 1 }
        progress.updatedPhones.add(1, ordering: .relaxed)
        if state.updateTimes.count == layout.phones { finishStorm() }
    }

    /// Ends the current edit: the report (or `error`) goes to whoever awaits it.
    func finishStorm(error: FleetError? = nil) {
        guard let state = storm, !state.finished, let completion = stormCompletion else { return }
        state.finished = true
        stormCompletion = nil
        if let error { return completion(.failure(error)) }
        completion(.success(report(state)))
    }
}
