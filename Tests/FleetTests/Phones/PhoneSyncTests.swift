import PassServerTesting
import Testing

@testable import Fleet

@Suite("A phone's Wallet after a push: think, list with the tag, fetch, keep the tag, retry with backoff", .offCooperativePool)
struct PhoneSyncTests {
    @Test("push → think → list with the stored tag → fetch each changed pass → new tag")
    func round() {
        var phone = PhoneSync(tag: "7")
        #expect(phone.pushArrived() == .think)
        #expect(phone.thinkingDone() == .list(tag: "7"))
        #expect(phone.listed(slots: [4, 5], lastUpdated: "9") == .fetch(slot: 4))
        #expect(phone.tag == "7", "the tag moves only when the round is complete")
        #expect(phone.fetched() == .fetch(slot: 5))
        #expect(phone.fetched() == .none)
        #expect(phone.tag == "9")
        #expect(phone.phase == .idle)
    }

    @Test("a first list without a tag asks for everything")
    func firstList() {
        var phone = PhoneSync()
        _ = phone.pushArrived()
        #expect(phone.thinkingDone() == .list(tag: nil))
    }

    @Test("204 (nothing changed) ends the round and keeps the tag")
    func nothingChanged() {
        var phone = PhoneSync(tag: "3")
        _ = phone.pushArrived()
        _ = phone.thinkingDone()
        #expect(phone.listed(slots: [], lastUpdated: nil) == .none)
        #expect(phone.tag == "3")
    }

    @Test("a failed fetch is retried after growing backoff, then the round goes on where it stopped")
    func fetchRetry() {
        var phone = PhoneSync(tag: "1")
        _ = phone.pushArrived()
        _ = phone.thinkingDone()
        #expect(phone.listed(slots: [2, 3], lastUpdated: "5") == .fetch(slot: 2))
        #expect(phone.failed() == .retry(failures: 1))
        #expect(phone.retryDue() == .fetch(slot: 2))
        #expect(phone.failed() == .retry(failures: 2))
        #expect(phone.retryDue() == .fetch(slot: 2))
        #expect(phone.fetched() == .fetch(slot: 3))
        #expect(phone.failures == 0, "a success resets the count")
        #expect(phone.fetched() == .none)
        #expect(phone.tag == "5")
    }

    @Test("a failed list is retried as a list with the old tag")
    func listRetry() {
        var phone = PhoneSync(tag: "4")
        _ = phone.pushArrived()
        _ = phone.thinkingDone()
        #expect(phone.failed() == .retry(failures: 1))
        #expect(phone.retryDue() == .list(tag: "4"))
    }

    @Test("a push during a round starts one more round afterwards; more pushes do not stack")
    func pushDuringRound() {
        var phone = PhoneSync(tag: "1")
        _ = phone.pushArrived()
        _ = phone.thinkingDone()
        #expect(phone.pushArrived() == .none)
        #expect(phone.pushArrived() == .none)
        #expect(phone.listed(slots: [0], lastUpdated: "2") == .fetch(slot: 0))
        #expect(phone.fetched() == .think)
        #expect(phone.thinkingDone() == .list(tag: "2"))
        #expect(phone.listed(slots: [], lastUpdated: nil) == .none)
        #expect(phone.phase == .idle)
    }
}
