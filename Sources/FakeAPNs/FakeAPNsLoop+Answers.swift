// Validating, recording and answering requests on the fake's thread.

import Foundation

extension FakeAPNsLoop {
    func answerCompleted(_ connection: FakeAPNsConnection, now: Double) {
        let completed = connection.completed
        connection.completed.removeAll()
        for stream in completed {
            guard let request = connection.streams[stream] else { continue }
            let method = request.headers[":method"] ?? ""
            let path = request.headers[":path"] ?? ""
            let token = FakeAPNs.token(fromPath: path)
            var answer = FakeAPNs.validate(method: method, path: path, headers: request.headers, body: request.body)
            if answer == nil { answer = shared.nextAnswer(for: token) ?? configuration.defaultAnswer }
            let chosen = answer ?? .success
            logger.info("push received", [
                "apns.token": String(token.prefix(8)) + "…", "apns.topic": request.headers["apns-topic"] ?? "",
                "connection": String(connection.id), "status": String(chosen.settled.status),
            ])
            let push = FakeAPNs.Push(
                token: token, topic: request.headers["apns-topic"], method: method, path: path,
                headers: request.headers, body: request.body, receivedAt: Date(), connectionID: connection.id,
                concurrentStreams: request.concurrent,
                advertisedLimit: request.advertisedLimit, status: chosen.settled.status
            )
            if configuration.recordPushes { shared.state.withLock { $0.pushes.append(push) } }
            configuration.onPush?(push)
            if case .delayed(let seconds, _) = chosen {
                delayed.append(Delayed(due: now + seconds, connection: connection.id, stream: stream, token: token, answer: chosen))
            } else {
                send(chosen, token: token, on: connection, stream: stream)
            }
        }
    }

    func answerDue(now: Double) {
        guard !delayed.isEmpty else { return }
        let due = delayed.filter { $0.due <= now }
        delayed.removeAll { $0.due <= now }
        for item in due {
            guard let connection = connections[item.connection], connection.state == .open else { continue }
            send(item.answer, token: item.token, on: connection, stream: item.stream)
        }
    }

    private func send(_ answer: FakeAPNs.Answer, token: String, on connection: FakeAPNsConnection, stream: Int32) {
        let (status, body) = answer.settled
        if connection.respond(stream: stream, status: status, body: body), status == 200 {
            configuration.onAccepted?(token)
        }
        let first = shared.state.withLock { state -> Bool in
            state.answered += 1
            return state.answered == 1
        }
        if first, !raised, let raise = configuration.raiseMaxConcurrentStreamsAfterFirstResponse {
            raised = true
            maxConcurrentStreams = raise
            for other in connections.values where other.state == .open { other.sendSettings(maxConcurrentStreams: raise) }
        }
    }
}
