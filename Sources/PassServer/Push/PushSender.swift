import APNs
import Foundation
import Logging

/// Sends empty pushes and reports what became of each, from any thread. `APNSClient` is the live
/// sender; `LoggingPushSender` is `APNS_MODE=log`.
protocol PushSender: Sendable {
    /// `answered` runs exactly once per request, with the request's index.
    func send(_ requests: [APNSRequest], answered: @escaping @Sendable (_ index: Int, _ delivery: PushDelivery) -> Void)
    func shutdown()
}

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

extension APNSClient: PushSender {
    /// Hands the requests to the I/O thread in one go; answers arrive on that thread.
    func send(_ requests: [APNSRequest], answered: @escaping @Sendable (_ index: Int, _ delivery: PushDelivery) -> Void) {
        submit(requests.enumerated().map { index, request in
            (request, { result in answered(index, PushDelivery(result)) })
        })
    }
}

/// Development sender: logs each push and reports it as logged (never as delivered), so
/// `make run` works end to end without Apple and the records say what really happened.
struct LoggingPushSender: PushSender {
    let logger: Logger

    func send(_ requests: [APNSRequest], answered: @escaping @Sendable (_ index: Int, _ delivery: PushDelivery) -> Void) {
        for (index, request) in requests.enumerated() {
            logger.info("push (APNS_MODE=log, not sent)", ["apns.topic": request.topic.rawValue, "push.token": String(request.pushToken.rawValue.prefix(8)) + "…"])
            answered(index, PushDelivery(outcome: .logged))
        }
    }

    func shutdown() {}
}

/// Either sender, as the push channel's `OutboxSender`.
struct AnyPushSender: OutboxSender {
    let base: any PushSender

    func send(_ messages: [APNSRequest], answered: @escaping @Sendable (_ index: Int, _ answer: PushDelivery) -> Void) {
        base.send(messages, answered: answered)
    }

    func shutdown() { base.shutdown() }
}
