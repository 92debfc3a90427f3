/// Everything measured from one organizer edit on (event loop thread only). A class: the per-slot
/// arrays are updated in place on every fetch, never copied.
final class StormState {
    let generation: Int
    let venue: String
    let startedAt: Double
    let fleetCPUAtStart: Double
    let serverCPUAtStart: Double?
    let serverThreadsAtStart: [String: Double]
    let databaseCPUAtStart: Double?
    var patchSeconds = 0.0
    var finished = false

    /// Last-Modified (epoch seconds) of each slot when the edit began: "new" means later.
    let baseline: [Int64]
    var slotUpdated: [Bool]
    var passesLeft: [Int]
    let faulty: Set<Int>
    var injectedLeft: [Int: Int]

    var updateTimes: [Double] = []
    var fetchLatencies: [Double] = []
    var listLatencies: [Double] = []
    var queueWaits: [Double] = []
    var statuses: [Int: Int] = [:]
    var transport: [String: Int] = [:]
    var pushes = 0
    var lastPushAt: Double?
    var fetches = 0
    var updatedSlots = 0
    var fetchFailures = 0
    var listFailures = 0
    var unchanged = 0
    var stale = 0
    var contentChecked = 0
    var contentMismatches = 0
    var signaturesChecked = 0
    var signatureFailures = 0
    var injected = 0
    var faultyUpdated = 0

    init(
        generation: Int, venue: String, startedAt: Double, fleetCPUAtStart: Double, serverPID: Int32?, databasePID: Int32?,
        baseline: [Int64], passesPerPhone: Int, phones: Int, faulty: Set<Int>, failuresPerFaultyPhone: Int
    ) {
        self.generation = generation
        self.venue = venue
        self.startedAt = startedAt
        self.fleetCPUAtStart = fleetCPUAtStart
        serverCPUAtStart = serverPID.flatMap { ProcessStats.cpuSeconds(pid: $0) }
        serverThreadsAtStart = serverPID.map { ProcessStats.cpuSecondsByThread(pid: $0) } ?? [:]
        databaseCPUAtStart = databasePID.flatMap { ProcessStats.treeCPUSeconds(pid: $0) }
        self.baseline = baseline
        slotUpdated = Array(repeating: false, count: baseline.count)
        passesLeft = Array(repeating: passesPerPhone, count: phones)
        self.faulty = faulty
        injectedLeft = Dictionary(uniqueKeysWithValues: faulty.map { ($0, failuresPerFaultyPhone) })
    }

    /// Counts a phone request's outcome.
    func record(_ result: Result<ClientResponse, FleetError>) {
        switch result {
        case .success(let response):
            statuses[response.status, default: 0] += 1
            queueWaits.append(response.queueWait)
        case .failure(let error): transport[error.code.description, default: 0] += 1
        }
    }
}
