import APNs
import Foundation
import Logging

/// Sends one empty push. `APNSClient` is the live sender; `LoggingPushSender` is `APNS_MODE=log`.
protocol PushSender: Sendable {
    func send(_ request: APNSRequest) async throws -> APNSResponse
    func shutdown()
}

extension APNSClient: PushSender {}

/// Development sender: logs each push and reports it delivered, so `make run` works end to end
/// without Apple.
struct LoggingPushSender: PushSender {
    let logger: Logger

    func send(_ request: APNSRequest) async throws -> APNSResponse {
        logger.info("push (APNS_MODE=log, not sent)", ["apns.topic": request.topic, "push.token": String(request.pushToken.prefix(8)) + "…"])
        return APNSResponse(status: 200, apnsID: UUID().uuidString.lowercased(), reason: nil, timestamp: nil)
    }

    func shutdown() {}
}
