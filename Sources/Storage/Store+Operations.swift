public import Foundation

// Each operation borrows one connection for its duration. The operations are documented on
// `StoreSession`, where they are implemented once for both backends.

extension Store {
    // MARK: Passes

    /// Borrows a connection and runs `StoreSession.insertPass` on it.
    public func insertPass(_ pass: NewPass, now: Date) throws -> StoredPass {
        try withSession(.write) { try $0.insertPass(pass, now: now) }
    }

    /// Borrows a connection and runs `StoreSession.pass` on it.
    public func pass(passTypeIdentifier: String, serialNumber: String) throws -> StoredPass? {
        try withSession(.read) { try $0.pass(passTypeIdentifier: passTypeIdentifier, serialNumber: serialNumber) }
    }

    /// Borrows a connection and runs `StoreSession.pass` on it.
    public func pass(downloadTokenHash: [UInt8]) throws -> StoredPass? {
        try withSession(.read) { try $0.pass(downloadTokenHash: downloadTokenHash) }
    }

    /// Borrows a connection and runs `StoreSession.passes` on it.
    public func passes(eventID: String, after: Int64 = 0, limit: Int) throws -> [StoredPass] {
        try withSession(.read) { try $0.passes(eventID: eventID, after: after, limit: limit) }
    }

    /// Borrows a connection and runs `StoreSession.updatePass` on it.
    public func updatePass(passTypeIdentifier: String, serialNumber: String, change: PassChange, now: Date) throws -> PassUpdate {
        try withSession(.write) {
            try $0.updatePass(passTypeIdentifier: passTypeIdentifier, serialNumber: serialNumber, change: change, now: now)
        }
    }

    // MARK: Revision counter

    /// Borrows a connection and runs `StoreSession.currentRevision` on it.
    public func currentRevision() throws -> Int64 {
        try withSession(.read) { try $0.currentRevision() }
    }

    /// Borrows a connection and runs `StoreSession.advanceRevision` on it.
    public func advanceRevision(by amount: Int64) throws -> RevisionAdvance {
        try withSession(.write) { try $0.advanceRevision(by: amount) }
    }

    // MARK: Registrations

    /// Borrows a connection and runs `StoreSession.upsertRegistration` on it.
    public func upsertRegistration(
        deviceLibraryIdentifier: String, pushToken: String, passTypeIdentifier: String, serialNumber: String, now: Date
    ) throws -> RegistrationResult {
        try withSession(.write) {
            try $0.upsertRegistration(
                deviceLibraryIdentifier: deviceLibraryIdentifier, pushToken: pushToken,
                passTypeIdentifier: passTypeIdentifier, serialNumber: serialNumber, now: now
            )
        }
    }

    /// Borrows a connection and runs `StoreSession.deleteRegistration` on it.
    @discardableResult
    public func deleteRegistration(deviceLibraryIdentifier: String, passTypeIdentifier: String, serialNumber: String) throws -> Bool {
        try withSession(.write) {
            try $0.deleteRegistration(
                deviceLibraryIdentifier: deviceLibraryIdentifier, passTypeIdentifier: passTypeIdentifier, serialNumber: serialNumber
            )
        }
    }

    /// Borrows a connection and runs `StoreSession.serials` on it.
    public func serials(deviceLibraryIdentifier: String, passTypeIdentifier: String, updatedAfter: Int64?) throws -> ChangedSerials {
        try withSession(.read) {
            try $0.serials(deviceLibraryIdentifier: deviceLibraryIdentifier, passTypeIdentifier: passTypeIdentifier, updatedAfter: updatedAfter)
        }
    }

    /// Borrows a connection and runs `StoreSession.pushTokens` on it.
    public func pushTokens(passTypeIdentifier: String, serialNumber: String) throws -> [String] {
        try withSession(.read) { try $0.pushTokens(passTypeIdentifier: passTypeIdentifier, serialNumber: serialNumber) }
    }

    /// Borrows a connection and runs `StoreSession.registrationCount` on it.
    public func registrationCount(passTypeIdentifier: String, serialNumber: String) throws -> Int {
        try withSession(.read) { try $0.registrationCount(passTypeIdentifier: passTypeIdentifier, serialNumber: serialNumber) }
    }

    /// Borrows a connection and runs `StoreSession.pruneRegistrations` on it.
    @discardableResult
    public func pruneRegistrations(pushToken: String, passTypeIdentifier: String, unlessUpdatedAfter cutoff: Date?) throws -> Int {
        try withSession(.write) {
            try $0.pruneRegistrations(pushToken: pushToken, passTypeIdentifier: passTypeIdentifier, unlessUpdatedAfter: cutoff)
        }
    }

    // MARK: Events

    /// Borrows a connection and runs `StoreSession.createEvent` on it.
    public func createEvent(_ event: NewEvent, now: Date) throws -> Event {
        try withSession(.write) { try $0.createEvent(event, now: now) }
    }

    /// Borrows a connection and runs `StoreSession.event` on it.
    public func event(id: String) throws -> Event? {
        try withSession(.read) { try $0.event(id: id) }
    }

    /// Borrows a connection and runs `StoreSession.updateEvent` on it.
    public func updateEvent(id: String, change: EventChange, now: Date) throws -> (event: Event, job: Job?) {
        try withSession(.write) { try $0.updateEvent(id: id, change: change, now: now) }
    }

    /// Borrows a connection and runs `StoreSession.eventCounts` on it.
    public func eventCounts(id: String) throws -> EventCounts {
        try withSession(.read) { try $0.eventCounts(id: id) }
    }

    // MARK: Outbox and push log

    /// Borrows a connection and runs `StoreSession.claimOutbox` on it.
    public func claimOutbox(limit: Int, now: Date, lease: Duration) throws -> [OutboxRow] {
        try withSession(.write) { try $0.claimOutbox(limit: limit, now: now, lease: lease) }
    }

    /// Borrows a connection and runs `StoreSession.outboxCounts` on it.
    public func outboxCounts(now: Date) throws -> OutboxCounts {
        try withSession(.read) { try $0.outboxCounts(now: now) }
    }

    /// Borrows a connection and runs `StoreSession.latestPushes` on it.
    public func latestPushes(tokenHashes: [String], limit: Int) throws -> [PushLogEntry] {
        try withSession(.read) { try $0.latestPushes(tokenHashes: tokenHashes, limit: limit) }
    }

    // MARK: Jobs

    /// Borrows a connection and runs `StoreSession.createJob` on it.
    public func createJob(kind: String, eventID: String?, now: Date) throws -> Job {
        try withSession(.write) { try $0.createJob(kind: kind, eventID: eventID, now: now) }
    }

    /// Borrows a connection and runs `StoreSession.job` on it.
    public func job(id: String) throws -> Job? {
        try withSession(.read) { try $0.job(id: id) }
    }

    /// Borrows a connection and runs `StoreSession.jobs` on it.
    public func jobs(eventID: String?, limit: Int) throws -> [Job] {
        try withSession(.read) { try $0.jobs(eventID: eventID, limit: limit) }
    }

    /// Borrows a connection and runs `StoreSession.claimJob` on it.
    public func claimJob(now: Date, lease: Duration) throws -> Job? {
        try withSession(.write) { try $0.claimJob(now: now, lease: lease) }
    }

    /// Borrows a connection and runs `StoreSession.runRepushBatch` on it.
    public func runRepushBatch(jobID: String, batchSize: Int, now: Date, lease: Duration = .seconds(60)) throws -> RepushBatch {
        try withSession(.write) { try $0.runRepushBatch(jobID: jobID, batchSize: batchSize, now: now, lease: lease) }
    }

    // MARK: Admin tokens and device logs

    /// Borrows a connection and runs `StoreSession.createAdminToken` on it.
    public func createAdminToken(name: String, tokenHash: [UInt8], now: Date) throws -> AdminToken {
        try withSession(.write) { try $0.createAdminToken(name: name, tokenHash: tokenHash, now: now) }
    }

    /// Borrows a connection and runs `StoreSession.adminToken` on it.
    public func adminToken(tokenHash: [UInt8]) throws -> AdminToken? {
        try withSession(.read) { try $0.adminToken(tokenHash: tokenHash) }
    }

    /// Borrows a connection and runs `StoreSession.adminTokens` on it.
    public func adminTokens() throws -> [AdminToken] {
        try withSession(.read) { try $0.adminTokens() }
    }

    /// Borrows a connection and runs `StoreSession.revokeAdminToken` on it.
    @discardableResult
    public func revokeAdminToken(idOrName: String, now: Date) throws -> Int {
        try withSession(.write) { try $0.revokeAdminToken(idOrName: idOrName, now: now) }
    }

    /// Borrows a connection and runs `StoreSession.appendDeviceLogs` on it.
    public func appendDeviceLogs(_ messages: [String], peer: String?, keepNewest: Int, now: Date) throws {
        try withSession(.write) { try $0.appendDeviceLogs(messages, peer: peer, keepNewest: keepNewest, now: now) }
    }
}
