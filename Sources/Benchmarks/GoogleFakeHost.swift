import Foundation
import PassServerTesting

/// `pass-server-bench google-fake`: the local fake of Google's Wallet API for bench/google.sh. It
/// writes a service account it honours, the server's settings to reach it (`google.env`), and
/// then, every few milliseconds until it is stopped, its tally (`tally`: successful object
/// calls, the times of the first and the last, class patches, the time of the last, batch
/// requests; times as seconds since 1970).
enum GoogleFakeHost {
    static func run(directory: String) throws -> Never {
        let fake = try FakeGoogleWallet()
        let account = try fake.makeServiceAccount(in: directory)
        let settings = [
            "GOOGLE_WALLET_ISSUER_ID=\(fake.issuerID)", "GOOGLE_WALLET_SERVICE_ACCOUNT_FILE=\(account.keyFile)",
            "GOOGLE_WALLET_API_URL=\(fake.endpoints.api)", "GOOGLE_WALLET_TOKEN_URL=\(fake.endpoints.token)",
            "GOOGLE_WALLET_SAVE_URL=\(fake.endpoints.save)", "GOOGLE_WALLET_KEYS_URL=\(fake.endpoints.callbackKeys)",
        ]
        try write(settings.joined(separator: "\n") + "\n", to: directory + "/google.env")
        func seconds(_ date: Date?) -> String { date.map { String(format: "%.6f", $0.timeIntervalSince1970) } ?? "0" }
        while true {
            let tally = fake.tally
            try write(
                "\(tally.objectCalls) \(seconds(tally.firstObjectCall)) \(seconds(tally.lastObjectCall)) "
                    + "\(tally.classPatches) \(seconds(tally.lastClassPatch)) \(tally.batches)\n",
                to: directory + "/tally"
            )
            Thread.sleep(forTimeInterval: 0.005)
        }
    }

    /// Writes through a temporary file and a rename, so a reader never sees half a line.
    private static func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
