import Foundation
import GoogleWallet
import HTTPServer
import Logging
import PassIdentifiers
import Storage

/// `POST /google-wallet/callback`: Google Wallet's save and delete callbacks (docs/admin.md, "Google Wallet saves and deletions").
///
/// A callback is verified first (`CallbackVerifier`: Google's signatures, our issuer id, expiry);
/// its class must be one of our events and its object a ticket of that event. Then its nonce is
/// recorded with the ticket's new state in one transaction, so a retry of one delivery counts once.
/// A refused callback stores nothing and answers 4xx JSON (503 while Google's keys cannot be
/// fetched, so Google retries); a retried one answers 200 like the first. Without Google Wallet
/// configured the route answers 404.
struct GoogleWalletCallbackController: Sendable {
    /// Callbacks are a few hundred bytes; anything much larger is not one.
    static let maxBodySize = 16 << 10

    let store: any Store
    /// Nil while Google Wallet is off.
    let verifier: CallbackVerifier?
    let passType: PassTypeIdentifier
    let metrics: CallbackMetrics
    let logger: Logger
    let now: @Sendable () -> Date

    private struct Answer: Encodable {
        var status: String
    }

    func register(in router: inout Router) {
        router.post("/google-wallet/callback", maxBodySize: Self.maxBodySize) { request in
            try handle(request)
        }
    }

    private func handle(_ request: Request) throws -> Response {
        guard let verifier else { throw HTTPError.notFound("Google Wallet is not configured.") }
        let message: CallbackMessage
        do {
            message = try verifier.verify(request.body, now: now())
        } catch {
            metrics.record(error.code)
            logger.warning("Google Wallet callback refused", ["reason": error.code, "request.id": request.requestID])
            if error.reason == .keysUnavailable {
                throw HTTPError(status: 503, code: error.code, message: error.message, headers: ["Retry-After": "60"])
            }
            throw HTTPError.badRequest(error.message, code: error.code)
        }
        let issuer = verifier.recipientID
        guard let eventID = GoogleWalletIDs.event(fromClassID: message.classID, issuer: issuer) else {
            throw refuse("unknown_class", "signedMessage.classId: not a class of this issuer", request)
        }
        guard let serial = GoogleWalletIDs.serial(fromObjectID: message.objectID, issuer: issuer).flatMap(SerialNumber.init) else {
            throw refuse("unknown_object", "signedMessage.objectId: not an object of this issuer", request)
        }
        let saved = message.eventType == .save
        let result = try store.withSession(.write) { session -> GoogleWalletCallbackResult? in
            guard let pass = try session.passes.pass(passTypeIdentifier: passType, serialNumber: serial), pass.eventID == eventID,
                try session.events.event(id: eventID) != nil
            else { return nil }
            return try session.google.recordGoogleWalletCallback(passID: pass.id, eventID: eventID, nonce: message.nonce, saved: saved, now: now())
        }
        switch result {
        case nil:
            throw refuse("unknown_object", "signedMessage: no ticket of this event has this object id", request)
        case .replayed:
            metrics.record("replayed")
            return .json(Answer(status: "replayed"), encoder: .api)
        case .recorded:
            metrics.record(message.eventType.rawValue)
            logger.info("Google Wallet callback", ["event.id": eventID, "pass.serial": serial.rawValue, "type": message.eventType.rawValue])
            return .json(Answer(status: "recorded"), encoder: .api)
        }
    }

    private func refuse(_ code: String, _ message: String, _ request: Request) -> HTTPError {
        metrics.record(code)
        logger.warning("Google Wallet callback refused", ["reason": code, "request.id": request.requestID])
        return HTTPError(status: 404, code: code, message: message)
    }
}
