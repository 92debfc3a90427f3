import PassServerTesting
import Testing

@testable import Fleet

@Suite("Timer heap, percentiles and HTTP dates", .offCooperativePool)
struct TimerHeapTests {
    @Test("timers fire in due order, equal times in insertion order, only once due")
    func order() {
        var heap = TimerHeap<Int>()
        let dues: [Double] = [5, 1, 3, 3, 0, 9, 3, 2]
        for (index, due) in dues.enumerated() { heap.add(due: due, index) }
        #expect(heap.nextDue == 0)
        var fired: [Int] = []
        while let next = heap.popDue(now: 4) { fired.append(next) }
        #expect(fired == [4, 1, 7, 2, 3, 6])
        #expect(heap.count == 2)
        #expect(heap.popDue(now: 4.9) == nil)
        #expect(heap.popDue(now: 100) == 0)
        #expect(heap.popDue(now: 100) == 5)
        #expect(heap.isEmpty)
    }

    @Test("nearest-rank percentiles; missing members leave the high ranks empty")
    func percentiles() {
        let sample = (1...100).map(Double.init)
        #expect(Percentile.value(sample, 0.5) == 50)
        #expect(Percentile.value(sample, 0.99) == 99)
        #expect(Percentile.value(sample, 1) == 100)
        #expect(Percentile.value([1, 2, 3], 0.5, population: 4) == 2)
        #expect(Percentile.value([1, 2, 3], 1, population: 4) == nil)
        #expect(Percentile.value([], 0.5) == nil)
    }
}
