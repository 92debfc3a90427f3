import HTTPServer
import Synchronization
import SystemSupport

/// Counts answered requests by method, route pattern and status class, and their latency by route
/// pattern. Labels come only from the router's patterns and a fixed method list, so the number of
/// series stays bounded whatever clients send.
final class HTTPMetrics: Sendable {
    /// Upper bounds of the latency histogram, in seconds.
    static let buckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
    /// The route label of requests no route matched.
    static let unmatched = "unmatched"
    private static let methods: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

    struct RequestKey: Hashable, Comparable {
        var method: String
        var route: String
        var status: String

        static func < (lhs: RequestKey, rhs: RequestKey) -> Bool {
            (lhs.route, lhs.method, lhs.status) < (rhs.route, rhs.method, rhs.status)
        }
    }

    struct Histogram: Sendable {
        /// Observations at or below each bucket's bound (not cumulative).
        var counts = [Int](repeating: 0, count: HTTPMetrics.buckets.count)
        var sum = 0.0
        var count = 0

        mutating func record(_ seconds: Double, bucket: Int?) {
            if let bucket { counts[bucket] += 1 }
            sum += seconds
            count += 1
        }

        /// Both histograms' observations together.
        func adding(_ other: Histogram) -> Histogram {
            Histogram(counts: zip(counts, other.counts).map(+), sum: sum + other.sum, count: count + other.count)
        }
    }

    private struct State {
        var requests: [RequestKey: Int] = [:]
        var latency: [String: Histogram] = [:]
    }

    /// A copy per request thread, added up when read (every request thread observes; one lock for
    /// all of them was the server's busiest).
    private let state = ThreadShards { State() }

    /// The observer to give the HTTP server.
    var observer: RequestObserver {
        { [self] request in observe(request) }
    }

    func observe(_ request: CompletedRequest) {
        let route = request.route ?? Self.unmatched
        let method = Self.methods.contains(request.method.rawValue) ? request.method.rawValue : "other"
        let key = RequestKey(method: method, route: route, status: Self.statusClass(request.status))
        let seconds = request.duration.timeInterval
        let bucket = Self.buckets.firstIndex(where: { seconds <= $0 })
        state.withLock { state in
            state.requests[key, default: 0] += 1
            // In place: a histogram copied out and stored back would copy its counts every request.
            state.latency[route, default: Histogram()].record(seconds, bucket: bucket)
        }
    }

    private static let statusClasses = (0...9).map { "\($0)xx" }

    /// `2xx` for 200…299 and so on, without formatting a string per request.
    static func statusClass(_ status: Int) -> String {
        statusClasses.indices.contains(status / 100) ? statusClasses[status / 100] : "\(status / 100)xx"
    }

    /// Request counts, sorted by route, method and status.
    var requests: [(key: RequestKey, count: Int)] {
        var total: [RequestKey: Int] = [:]
        for requests in state.map(\.requests) { total.merge(requests, uniquingKeysWith: +) }
        return total.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Latency histograms by route, sorted by route.
    var latency: [(route: String, histogram: Histogram)] {
        var total: [String: Histogram] = [:]
        for latency in state.map(\.latency) { total.merge(latency) { $0.adding($1) } }
        return total.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
