import APNs
import Foundation
import Logging

/// A sender of empty pushes, chosen at start-up: `APNSClient` is the live sender,
/// `LoggingPushSender` is `APNS_MODE=log`, `RelayPushSender` the Android wallets' relay. Each
/// conforms to `OutboxSender` itself.
typealias PushSender = any OutboxSender<APNSRequest, PushDelivery>

/// What one send attempt produced: the outcome for the reply table and APNs's id for the log.
struct PushDelivery: Sendable, Equatable {
    var outcome: PushPolicy.Outcome
    var apnsID: String?
}

extension PushDelivery {
    /// APNs's answer, or the transport failure that stood in for one.
    init(_ result: Result<APNSResponse, APNSError>) {
        switch result {
        case .success(let response):
            self.init(outcome: .answered(status: response.status, reason: response.reason, timestamp: response.timestamp), apnsID: response.apnsID)
        case .failure(let error) where error.isUnreachable:
            self.init(outcome: .unreachable("\(error)"))
        case .failure(let error):
            self.init(outcome: .transportFailure("\(error)"))
        }
    }
}

extension APNSClient: OutboxSender {
    /// Hands the requests to the I/O thread in one go; answers arrive on that thread.
    func send(_ requests: [APNSRequest], answered: @escaping @Sendable (_ index: Int, _ delivery: PushDelivery) -> Void) {
        submit(requests.enumerated().map { index, request in
            (request, { result in answered(index, PushDelivery(result)) })
        })
    }
}

/// Development sender: logs each push and reports it as logged (never as delivered), so
/// `make run` works end to end without Apple and the records say what really happened.
struct LoggingPushSender: OutboxSender {
    let logger: Logger

    func send(_ requests: [APNSRequest], answered: @escaping @Sendable (_ index: Int, _ delivery: PushDelivery) -> Void) {
        for (index, request) in requests.enumerated() {
            logger.info("push (APNS_MODE=log, not sent)", ["apns.topic": request.topic.rawValue, "push.token": String(request.pushToken.rawValue.prefix(8)) + "…"])
            answered(index, PushDelivery(outcome: .logged))
        }
    }

    func shutdown() {}
}
