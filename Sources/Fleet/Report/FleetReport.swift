import Foundation

/// What one organizer edit did to the fleet, from the PATCH (t0) on. Times are seconds after t0.
public struct FleetReport: Codable, Sendable {
    /// How long it took to create the event, the tickets and the phones.
    public struct Setup: Codable, Sendable {
        public var eventID: String
        public var tickets: Int
        public var phones: Int
        public var registrations: Int
        /// Tickets issued and downloaded (one signature each).
        public var ticketSeconds: Double
        /// Phones registered and their first list answered.
        public var registrationSeconds: Double
    }

    public var phones: Int
    public var tickets: Int
    public var passesPerPhone: Int
    public var phonesPerPass: Int
    public var venue: String
    /// Phones holding the new revision of every pass they hold.
    public var updatedPhones: Int
    public var phonesLeftBehind: Int
    /// Pass slots (phone × pass) holding the new revision.
    public var updatedPasses: Int
    public var secondsTo50Percent: Double?
    public var secondsTo90Percent: Double?
    public var secondsTo99Percent: Double?
    public var secondsTo100Percent: Double?
    /// The PATCH's own answer time.
    public var patchSeconds: Double
    public var pushesAccepted: Int
    public var lastPushSeconds: Double?
    /// Passes fetched (200) and the fetch latency as the phone sees it: from asking to the last
    /// byte of the pass, including the wait for one of the fleet's connections (where a real
    /// phone, on a connection of its own, would wait in the server's queue instead).
    public var fetches: Int
    public var fetchP50Milliseconds: Double?
    public var fetchP99Milliseconds: Double?
    public var listP50Milliseconds: Double?
    public var listP99Milliseconds: Double?
    /// The part of that spent waiting for one of the fleet's connections: every connection was
    /// busy with a request the server had not answered yet.
    public var queueWaitP50Milliseconds: Double?
    public var queueWaitP99Milliseconds: Double?
    /// Phone requests (lists and fetches) by HTTP status.
    public var requestsByStatus: [String: Int]
    /// Phone requests that got no HTTP answer, by kind (connectionRefused, connectionReset, …).
    public var transportErrors: [String: Int]
    public var serverErrors: Int
    /// Failed attempts, each retried later with backoff.
    public var fetchFailures: Int
    public var listFailures: Int
    /// 304 for a pass the list said had changed.
    public var unchangedFetches: Int
    /// 200 whose Last-Modified is not newer than the pass the phone held, or not a zip archive.
    public var staleFetches: Int
    public var contentChecked: Int
    public var contentMismatches: Int
    public var signaturesChecked: Int
    public var signatureFailures: Int
    /// Fetch attempts aimed at the refusing port on purpose, and how the faulty phones ended.
    public var injectedFailures: Int
    public var faultyPhones: Int
    public var faultyPhonesUpdated: Int
    /// CPU seconds during the storm: this process (phones and fake APNs) and the server.
    public var fleetCPUSeconds: Double
    public var serverCPUSeconds: Double?
    /// The server's CPU seconds by thread name (threads that ended during the storm are missing).
    public var serverCPUByThread: [String: Double]?
    /// The database server's and its backends' CPU seconds.
    public var databaseCPUSeconds: Double?
    public var serverPeakRSSKiB: Int?
    public var elapsedSeconds: Double
    public var setup: Setup?

    /// One line of JSON with sorted keys.
    public var jsonLine: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// A few lines for people.
    public var summary: String {
        func seconds(_ value: Double?) -> String { value.map { String(format: "%.2f s", $0) } ?? "—" }
        func milliseconds(_ value: Double?) -> String { value.map { String(format: "%.1f ms", $0) } ?? "—" }
        let statuses = requestsByStatus.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
        let errors = transportErrors.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
        var lines = [
            "fleet: \(phones) phones, \(tickets) tickets (\(passesPerPhone) per phone, \(phonesPerPass) phone(s) per pass); venue → \(venue)",
            "updated: \(updatedPhones)/\(phones) phones, \(phonesLeftBehind) left behind; "
                + "50% \(seconds(secondsTo50Percent)), 90% \(seconds(secondsTo90Percent)), 99% \(seconds(secondsTo99Percent)), 100% \(seconds(secondsTo100Percent))",
            "pushes accepted: \(pushesAccepted), last at \(seconds(lastPushSeconds)); PATCH answered in \(seconds(patchSeconds))",
            "fetches: \(fetches), p50 \(milliseconds(fetchP50Milliseconds)), p99 \(milliseconds(fetchP99Milliseconds)); "
                + "lists p50 \(milliseconds(listP50Milliseconds)), p99 \(milliseconds(listP99Milliseconds)); "
                + "waiting for a connection p50 \(milliseconds(queueWaitP50Milliseconds)), p99 \(milliseconds(queueWaitP99Milliseconds))",
            "requests by status: \(statuses.isEmpty ? "none" : statuses); without answer: \(errors.isEmpty ? "none" : errors); 5xx: \(serverErrors)",
            "retried: \(fetchFailures) fetches, \(listFailures) lists; 304 for a changed pass: \(unchangedFetches); stale 200: \(staleFetches)",
            "checked: pass.json \(contentChecked) (\(contentMismatches) wrong), signatures \(signaturesChecked) (\(signatureFailures) bad)",
        ]
        if faultyPhones > 0 {
            lines.append("faulty phones: \(faultyPhonesUpdated)/\(faultyPhones) updated after \(injectedFailures) refused fetches")
        }
        let server = serverCPUSeconds.map { String(format: "%.1f s", $0) } ?? "—"
        let rss = serverPeakRSSKiB.map { "\($0 / 1024) MiB" } ?? "—"
        let database = databaseCPUSeconds.map { String(format: ", database %.1f s", $0) } ?? ""
        lines.append("CPU during the storm: fleet \(String(format: "%.1f s", fleetCPUSeconds)), server \(server)\(database); server peak RSS \(rss)")
        if let threads = serverCPUByThread, !threads.isEmpty {
            let parts = threads.sorted { $0.value > $1.value }.map { "\($0.key) \(String(format: "%.1f s", $0.value))" }
            lines.append("server CPU by thread: " + parts.joined(separator: ", "))
        }
        return lines.joined(separator: "\n")
    }
}
