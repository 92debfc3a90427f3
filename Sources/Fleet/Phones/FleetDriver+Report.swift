// The report of one edit, from the counters of its StormState.

import Foundation
import SystemSupport

extension FleetDriver {
    func report(_ state: StormState) -> FleetReport {
        let now = monotonicSeconds()
        let times = state.updateTimes.sorted()
        let fetches = state.fetchLatencies.sorted()
        let lists = state.listLatencies.sorted()
        let waits = state.queueWaits.sorted()
        let phones = layout.phones
        // Milliseconds to a tenth, seconds to a millisecond: the JSON line stays readable.
        func milliseconds(_ sorted: [Double], _ fraction: Double) -> Double? {
            Percentile.value(sorted, fraction).map { ($0 * 10_000).rounded() / 10 }
        }
        func seconds(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
        func time(_ fraction: Double) -> Double? { Percentile.value(times, fraction, population: phones).map(seconds) }
        var serverCPU: Double?
        var threads: [String: Double]?
        if let start = state.serverCPUAtStart, let pid = configuration.serverPID, let end = ProcessStats.cpuSeconds(pid: pid) {
            serverCPU = seconds(end - start)
            let before = state.serverThreadsAtStart
            threads = Dictionary(uniqueKeysWithValues: ProcessStats.cpuSecondsByThread(pid: pid).map { name, total in
                (name, seconds(total - (before[name] ?? 0)))
            })
        }
        var databaseCPU: Double?
        if let start = state.databaseCPUAtStart, let pid = configuration.databasePID, let end = ProcessStats.treeCPUSeconds(pid: pid) {
            databaseCPU = seconds(end - start)
        }
        return FleetReport(
            phones: phones, tickets: layout.tickets, passesPerPhone: layout.passesPerPhone, phonesPerPass: layout.phonesPerPass,
            venue: state.venue, updatedPhones: times.count, phonesLeftBehind: phones - times.count, updatedPasses: state.updatedSlots,
            secondsTo50Percent: time(0.5), secondsTo90Percent: time(0.9), secondsTo99Percent: time(0.99), secondsTo100Percent: time(1),
            patchSeconds: seconds(state.patchSeconds), pushesAccepted: state.pushes,
            lastPushSeconds: state.lastPushAt.map { seconds($0 - state.startedAt) },
            fetches: state.fetches, fetchP50Milliseconds: milliseconds(fetches, 0.5), fetchP99Milliseconds: milliseconds(fetches, 0.99),
            listP50Milliseconds: milliseconds(lists, 0.5), listP99Milliseconds: milliseconds(lists, 0.99),
            queueWaitP50Milliseconds: milliseconds(waits, 0.5), queueWaitP99Milliseconds: milliseconds(waits, 0.99),
            requestsByStatus: Dictionary(uniqueKeysWithValues: state.statuses.map { (String($0.key), $0.value) }),
            transportErrors: state.transport, serverErrors: state.statuses.filter { $0.key >= 500 }.reduce(0) { $0 + $1.value },
            fetchFailures: state.fetchFailures, listFailures: state.listFailures, unchangedFetches: state.unchanged, staleFetches: state.stale,
            contentChecked: state.contentChecked, contentMismatches: state.contentMismatches,
            signaturesChecked: state.signaturesChecked, signatureFailures: state.signatureFailures,
            injectedFailures: state.injected, faultyPhones: state.faulty.count, faultyPhonesUpdated: state.faultyUpdated,
            fleetCPUSeconds: seconds(ProcessStats.ownCPUSeconds() - state.fleetCPUAtStart), serverCPUSeconds: serverCPU,
            serverCPUByThread: threads, databaseCPUSeconds: databaseCPU,
            serverPeakRSSKiB: configuration.serverPID.flatMap { ProcessStats.peakResidentKiB(pid: $0) },
            elapsedSeconds: seconds(now - state.startedAt), setup: setupReport
        )
    }
}
