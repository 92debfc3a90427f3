import APNs
import Benchmarks
import FakeAPNs
import PassServerTesting
import Testing

@Suite("APNSBenchmark", .offCooperativePool, .timeLimit(.minutes(3)))
struct APNSBenchmarkTests {
    @Test("a small run against the fake delivers every push and reports a rate")
    func smallRun() async throws {
        let certificates = try TestCertificates.make(in: TestCertificates.temporaryDirectory(prefix: "apns-bench"))
        var configuration = FakeAPNs.Configuration(
            certificatePath: certificates.serverCertificate, privateKeyPath: certificates.serverKey, clientCAPath: nil
        )
        configuration.recordPushes = false
        let fake = try FakeAPNs(configuration: configuration)
        defer { fake.shutdown() }
        let result = try await APNSBenchmark.run(url: fake.url, count: 2000, connections: 2, concurrency: 100, caFile: certificates.rootCertificate)
        #expect(result.pushes == 2000)
        #expect(result.failures == 0)
        #expect(result.pushesPerSecond > 0)
        #expect(fake.pushes.isEmpty, "recording was off")
        #expect(fake.connectionsAccepted == 2)
    }
}
