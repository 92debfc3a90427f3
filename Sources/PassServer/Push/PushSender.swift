import APNs
import Foundation
import Logging

/// Sends one empty push and reports what became of it. `APNSClient` is the live sender;
/// `LoggingPushSender` is `APNS_MODE=log`.
protocol PushSender: Sendable {
    func deliver(_ request: APNSRequest) async -> PushDelivery
    func shutdown()
}

/// What one send attempt produced: the outcome for the reply table and APNs's id for the log.
struct PushDelivery: Sendable, Equatable {
    var outcome: PushPolicy.Outcome
    var apnsID: String?
}

extension APNSClient: PushSender {
    func deliver(_ request: APNSRequest) async -> PushDelivery {
        do {
            let response = try await send(request)
            return PushDelivery(outcome: .answered(status: response.status, reason: response.reason, timestamp: response.timestamp), apnsID: response.apnsID)
        } catch let error as APNSError where error.isUnreachable {
            return PushDelivery(outcome: .unreachable("\(error)"))
        } catch {
            return PushDelivery(outcome: .transportFailure("\(error)"))
        }
    }
}

/// Development sender: logs each push and reports it as logged (never as delivered), so
/// `make run` works end to end without Apple and the records say what really happened.
struct LoggingPushSender: PushSender {
    let logger: Logger

    func deliver(_ request: APNSRequest) async -> PushDelivery {
        logger.info("push (APNS_MODE=log, not sent)", ["apns.topic": request.topic, "push.token": String(request.pushToken.prefix(8)) + "…"])
        return PushDelivery(outcome: .logged)
    }

    func shutdown() {}
}
