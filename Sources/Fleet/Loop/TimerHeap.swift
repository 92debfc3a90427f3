/// Timers ordered by due time (a binary min-heap); equal times fire in the order they were added.
///
/// Pure: the loop asks what is due at a time it supplies.
struct TimerHeap<Work> {
    private struct Entry {
        var due: Double
        var sequence: Int
        var work: Work
        func precedes(_ other: Entry) -> Bool { due < other.due || (due == other.due && sequence < other.sequence) }
    }

    private var entries: [Entry] = []
    private var nextSequence = 0

    var isEmpty: Bool { entries.isEmpty }
    var count: Int { entries.count }
    /// When the earliest timer is due.
    var nextDue: Double? { entries.first?.due }

    mutating func add(due: Double, _ work: Work) {
        entries.append(Entry(due: due, sequence: nextSequence, work: work))
        nextSequence += 1
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].precedes(entries[parent]) else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest timer if it is due at `now`.
    mutating func popDue(now: Double) -> Work? {
        guard let first = entries.first, first.due <= now else { return nil }
        let last = entries.removeLast()
        if !entries.isEmpty {
            entries[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var smallest = parent
                if left < entries.count, entries[left].precedes(entries[smallest]) { smallest = left }
                if right < entries.count, entries[right].precedes(entries[smallest]) { smallest = right }
                guard smallest != parent else { break }
                entries.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return first.work
    }
}
