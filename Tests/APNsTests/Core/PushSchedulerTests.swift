@testable import APNs
import PassServerTesting
import SystemSupport
import Testing

@Suite("PushScheduler (pure HTTP/2 bookkeeping)", .offCooperativePool)
struct PushSchedulerTests {
    @Test("opens connections only when work waits, up to the target")
    func opensOnDemand() {
        var scheduler = PushScheduler(targetConnections: 2)
        #expect(scheduler.connectionsToOpen(now: 0).isEmpty)
        scheduler.enqueue(1)
        let opened = scheduler.connectionsToOpen(now: 0)
        #expect(opened.count == 2)
        #expect(scheduler.connectionsToOpen(now: 0).isEmpty)
        #expect(scheduler.submissions().isEmpty, "nothing is sent before a handshake completes")
    }

    @Test("one stream until the server's SETTINGS arrive, then up to its limit")
    func streamLimitFollowsSettings() {
        var scheduler = PushScheduler(targetConnections: 1)
        for id in 1...10 { scheduler.enqueue(UInt64(id)) }
        let connection = scheduler.connectionsToOpen(now: 0)[0]
        scheduler.connectionEstablished(connection)
        #expect(scheduler.submissions().map(\.request) == [1])
        #expect(scheduler.submissions().isEmpty)
        scheduler.remoteSettings(connection, maxConcurrentStreams: 4)
        #expect(scheduler.submissions().map(\.request) == [2, 3, 4])
        scheduler.streamAnswered(1, on: connection)
        #expect(scheduler.submissions().map(\.request) == [5])
        scheduler.remoteSettings(connection, maxConcurrentStreams: 1000)
        #expect(scheduler.submissions().map(\.request) == [6, 7, 8, 9, 10])
        #expect(scheduler.inFlightCount == 9)
        #expect(scheduler.queuedCount == 0)
    }

    @Test("spreads requests over connections, least loaded first")
    func spreadsOverConnections() {
        var scheduler = PushScheduler(targetConnections: 2)
        for id in 1...6 { scheduler.enqueue(UInt64(id)) }
        let connections = scheduler.connectionsToOpen(now: 0)
        for connection in connections {
            scheduler.connectionEstablished(connection)
            scheduler.remoteSettings(connection, maxConcurrentStreams: 10)
        }
        let submitted = scheduler.submissions()
        #expect(submitted.count == 6)
        #expect(Set(submitted.map(\.connection)) == Set(connections))
        #expect(submitted.filter { $0.connection == connections[0] }.count == 3)
    }

    @Test("GOAWAY: accepted streams finish, refused ones go back to the front and move to a new connection")
    func goAwayRequeues() {
        var scheduler = PushScheduler(targetConnections: 1)
        for id in 1...5 { scheduler.enqueue(UInt64(id)) }
        let first = scheduler.connectionsToOpen(now: 0)[0]
        scheduler.connectionEstablished(first)
        scheduler.remoteSettings(first, maxConcurrentStreams: 3)
        #expect(scheduler.submissions().map(\.request) == [1, 2, 3])
        scheduler.goAway(first)
        scheduler.streamRefused(3, on: first)
        scheduler.streamAnswered(1, on: first)
        #expect(scheduler.submissions().isEmpty, "a draining connection takes no new streams")
        #expect(Array(scheduler.queued) == [3, 4, 5])
        let second = scheduler.connectionsToOpen(now: 0)
        #expect(second.count == 1 && second[0] != first)
        #expect(!scheduler.isFinished(first))
        scheduler.streamAnswered(2, on: first)
        #expect(scheduler.isFinished(first))
        #expect(scheduler.connectionClosed(first).isEmpty)
        scheduler.connectionEstablished(second[0])
        scheduler.remoteSettings(second[0], maxConcurrentStreams: 100)
        #expect(scheduler.submissions().map(\.request) == [3, 4, 5])
    }

    @Test("a dropped connection hands back its in-flight requests to fail; queued ones stay")
    func connectionLost() {
        var scheduler = PushScheduler(targetConnections: 1)
        for id in 1...4 { scheduler.enqueue(UInt64(id)) }
        let connection = scheduler.connectionsToOpen(now: 0)[0]
        scheduler.connectionEstablished(connection)
        scheduler.remoteSettings(connection, maxConcurrentStreams: 2)
        _ = scheduler.submissions()
        #expect(scheduler.connectionClosed(connection) == [1, 2])
        #expect(Array(scheduler.queued) == [3, 4])
        #expect(scheduler.connectionsToOpen(now: 0).count == 1, "reconnects at once after a clean history")
    }

    @Test("failed attempts back off exponentially, fail queued work, and SETTINGS resets the backoff")
    func backoffOnFailures() {
        var scheduler = PushScheduler(targetConnections: 1, backoff: Backoff(base: 1, maximum: 8))
        scheduler.enqueue(1)
        var connection = scheduler.connectionsToOpen(now: 0)[0]
        let failed = scheduler.connectionFailed(connection, now: 100, jitter: 1)
        #expect(failed.queued == [1] && failed.inFlight.isEmpty)
        scheduler.enqueue(2)
        #expect(scheduler.nextConnectAttempt == 101)
        #expect(scheduler.connectionsToOpen(now: 100.5).isEmpty)
        connection = scheduler.connectionsToOpen(now: 101)[0]
        _ = scheduler.connectionFailed(connection, now: 101, jitter: 1)
        #expect(scheduler.nextConnectAttempt == 103)
        scheduler.enqueue(3)
        connection = scheduler.connectionsToOpen(now: 103)[0]
        scheduler.connectionEstablished(connection)
        #expect(scheduler.connectFailures == 2, "a TLS handshake alone does not prove the server accepted us")
        scheduler.remoteSettings(connection, maxConcurrentStreams: 10)
        #expect(scheduler.connectFailures == 0)
        #expect(scheduler.nextConnectAttempt == 0)
    }

    @Test("timeouts cancel queued and in-flight requests")
    func cancel() {
        var scheduler = PushScheduler(targetConnections: 1)
        for id in 1...3 { scheduler.enqueue(UInt64(id)) }
        let connection = scheduler.connectionsToOpen(now: 0)[0]
        scheduler.connectionEstablished(connection)
        _ = scheduler.submissions()
        #expect(scheduler.cancel(1) == .inFlight(connection))
        #expect(scheduler.cancel(3) == .queued)
        #expect(scheduler.cancel(42) == .unknown)
        #expect(scheduler.submissions().map(\.request) == [2])
    }

    @Test("backoff doubles up to the maximum, jitter spreads it over half to full")
    func backoffSchedule() {
        let backoff = Backoff(base: 0.1, maximum: 30)
        #expect(backoff.delay(afterFailures: 0, jitter: 1) == 0)
        #expect(backoff.delay(afterFailures: 1, jitter: 1) == 0.1)
        #expect(backoff.delay(afterFailures: 4, jitter: 1) == 0.8)
        #expect(backoff.delay(afterFailures: 4, jitter: 0) == 0.4)
        #expect(backoff.delay(afterFailures: 50, jitter: 1) == 30)
        #expect(backoff.delay(afterFailures: 50, jitter: 5) == 30, "jitter is clamped")
    }
}
