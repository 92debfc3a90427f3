/// Nearest-rank percentiles (the smallest value with at least the fraction of the sample at or
/// below it), over a sorted sample.
enum Percentile {
    /// The value of rank ⌈fraction × population⌉ among `sorted`; nil when the sample holds fewer.
    /// `population` is larger than the sample when some members never reported (phones left behind).
    static func value(_ sorted: [Double], _ fraction: Double, population: Int? = nil) -> Double? {
        let total = population ?? sorted.count
        guard total > 0 else { return nil }
        let rank = max(1, Int((fraction * Double(total)).rounded(.up)))
        return rank <= sorted.count ? sorted[rank - 1] : nil
    }
}
