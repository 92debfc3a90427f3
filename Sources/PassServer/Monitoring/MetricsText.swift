import Foundation

/// Builds the Prometheus text exposition format (0.0.4).
struct MetricsText {
    private(set) var output = ""

    mutating func gauge(_ name: String, _ help: String, _ samples: [(labels: String, value: Int)]) {
        family(name, help, type: "gauge", samples.map { ($0.labels, Double($0.value)) })
    }

    mutating func gauge(_ name: String, _ help: String, _ samples: [(labels: String, value: Double)]) {
        family(name, help, type: "gauge", samples)
    }

    mutating func counter(_ name: String, _ help: String, _ samples: [(labels: String, value: Int)]) {
        family(name, help, type: "counter", samples.map { ($0.labels, Double($0.value)) })
    }

    /// A histogram family; each series has its labels, per-bucket (not cumulative) counts for
    /// `bounds`, a sum and a count.
    mutating func histogram(
        _ name: String, _ help: String, bounds: [Double],
        _ series: [(labels: String, counts: [Int], sum: Double, count: Int)]
    ) {
        header(name, help, type: "histogram")
        for item in series {
            let prefix = item.labels.isEmpty ? "" : item.labels + ","
            var cumulative = 0
            for (bound, count) in zip(bounds, item.counts) {
                cumulative += count
                sample("\(name)_bucket", "\(prefix)le=\"\(Self.format(bound))\"", Double(cumulative))
            }
            sample("\(name)_bucket", "\(prefix)le=\"+Inf\"", Double(item.count))
            sample("\(name)_sum", item.labels, item.sum)
            sample("\(name)_count", item.labels, Double(item.count))
        }
    }

    /// `key="value"` pairs, values escaped as the format requires.
    static func labels(_ pairs: KeyValuePairs<String, String>) -> String {
        pairs.map { key, value in
            let escaped = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                .replacingOccurrences(of: "\n", with: "\\n")
            return "\(key)=\"\(escaped)\""
        }.joined(separator: ",")
    }

    /// Whole numbers without a fraction; others in Swift's shortest exact form.
    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    private mutating func family(_ name: String, _ help: String, type: String, _ samples: [(labels: String, value: Double)]) {
        header(name, help, type: type)
        for item in samples { sample(name, item.labels, item.value) }
    }

    private mutating func header(_ name: String, _ help: String, type: String) {
        output += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    }

    private mutating func sample(_ name: String, _ labels: String, _ value: Double) {
        output += labels.isEmpty ? "\(name) \(Self.format(value))\n" : "\(name){\(labels)} \(Self.format(value))\n"
    }
}
