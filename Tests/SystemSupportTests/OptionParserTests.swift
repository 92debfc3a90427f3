import PassServerTesting
import SystemSupport
import Testing


@Suite("Command options", .offCooperativePool)
struct OptionParserTests {
    @Test("valued options take --name value and --name=value; booleans and positionals are kept apart")
    func parses() throws {
        let options = try OptionParser(
            ["--event", "e1", "--role=viewer", "--codes", "abc"], valued: ["event", "role"], booleans: ["codes"]
        )
        #expect(options.options == ["event": "e1", "role": "viewer"])
        #expect(options.flags == ["codes"])
        #expect(options.positional == ["abc"])
        #expect(try options.required("event") == "e1")
    }

    @Test("an unknown option, a missing value and a missing required option are usage errors naming the option")
    func refuses() {
        #expect { try OptionParser(["--nope"], valued: ["event"]) } throws: { ($0 as? UsageError)?.message == "unknown option '--nope'" }
        #expect { try OptionParser(["--event"], valued: ["event"]) } throws: { ($0 as? UsageError)?.message == "--event needs a value" }
        #expect { try OptionParser([], valued: ["event"]).required("event") } throws: { ($0 as? UsageError)?.message == "--event is required" }
        // A boolean given a value is not a boolean any more: refused rather than half-read.
        #expect { try OptionParser(["--codes=yes"], valued: [], booleans: ["codes"]) } throws: { $0 is UsageError }
    }
}
