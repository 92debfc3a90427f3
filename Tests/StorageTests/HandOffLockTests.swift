import Dispatch
import Foundation
import PassServerTesting
import Synchronization
import Testing

@testable import Storage

@Suite("HandOffLock: oldest waiter first, and a waiter that gave up is skipped", .offCooperativePool, .timeLimit(.minutes(1)))
struct HandOffLockTests {
    @Test("waiters get the lock in the order they asked, and the releasing thread asking again comes last")
    func servedInOrder() throws {
        let lock = HandOffLock()
        let order = Mutex<[Int]>([])
        let done = DispatchSemaphore(value: 0)
        #expect(lock.lock(before: .now() + 5))
        for index in 0..<5 {
            let asking = DispatchSemaphore(value: 0)
            Thread {
                asking.signal()
                if lock.lock(before: .now() + 30) {
                    order.withLock { $0.append(index) }
                    lock.unlock()
                }
                done.signal()
            }.start()
            asking.wait()
            // Time for this thread to queue before the next one starts.
            usleep(100_000)
        }
        lock.unlock()
        #expect(lock.lock(before: .now() + 30))
        order.withLock { $0.append(99) }
        lock.unlock()
        for _ in 0..<5 { #expect(done.wait(timeout: .now() + 30) == .success) }
        #expect(order.withLock { $0 } == [0, 1, 2, 3, 4, 99])
    }

    @Test("a waiter that timed out is not handed the lock later: the next one gets it")
    func timedOutWaiterIsSkipped() throws {
        let lock = HandOffLock()
        #expect(lock.lock(before: .now() + 5))
        let began = Date()
        let gaveUp = DispatchSemaphore(value: 0)
        let impatient = Atomic<Bool>(true)
        Thread {
            impatient.store(lock.lock(before: .now() + 0.2), ordering: .sequentiallyConsistent)
            gaveUp.signal()
        }.start()
        #expect(gaveUp.wait(timeout: .now() + 30) == .success)
        let got = impatient.load(ordering: .sequentiallyConsistent)
        #expect(!got, "the lock was held: the impatient waiter must time out")
        #expect(Date().timeIntervalSince(began) >= 0.2)
        lock.unlock()
        // Handed to nobody (the only waiter left): free for the next caller at once.
        #expect(lock.lock(before: .now() + 1))
        lock.unlock()
    }
}
