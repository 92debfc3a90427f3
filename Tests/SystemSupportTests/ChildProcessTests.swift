import Foundation
import Glibc
import PassServerTesting
import SystemSupport
import Testing

/// `ChildProcess`: what a child is given (arguments, environment, directory, streams, a clean signal
/// state, no stray descriptors) and what we learn of its end.
@Suite("Child processes", .offCooperativePool, .timeLimit(.minutes(2)))
struct ChildProcessTests {
    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// Runs `sh -c script` with both streams piped and returns them with how it ended.
    static func shell(_ script: String, _ arguments: [String] = [], environment: [String: String]? = nil, directory: String? = nil)
        throws -> (output: String, error: String, termination: ChildProcess.Termination)
    {
        let child = try ChildProcess(
            "/bin/sh", ["-c", script, "sh"] + arguments, environment: environment, directory: directory,
            standardOutput: .pipe, standardError: .pipe
        )
        let (output, error) = try child.readToEnd()
        return (text(output), text(error), child.waitUntilExit())
    }

    @Test("the exit status comes back, for a path and for a name looked up on PATH")
    func exitStatus() throws {
        let failing = try ChildProcess("/bin/sh", ["-c", "exit 3"])
        #expect(failing.waitUntilExit() == .exited(3))
        #expect(failing.terminationStatus == 3)
        #expect(!failing.isRunning)
        #expect(failing.termination == .exited(3))
        #expect(try ChildProcess("true").waitUntilExit() == .exited(0))
        #expect(try ChildProcess("false").terminationStatus == 1)
    }

    @Test("a child ended by a signal reports it; SIGTERM reaches the child even from a thread that blocks it")
    func signalTermination() throws {
        let killed = try ChildProcess("/bin/sh", ["-c", "kill -KILL $$"])
        #expect(killed.waitUntilExit() == .signalled(SIGKILL))
        #expect(killed.terminationStatus == SIGKILL)

        let sleeper = try Self.onThreadBlocking(SIGTERM) { try ChildProcess("sleep", ["30"]) }
        #expect(sleeper.isRunning)
        sleeper.signal(SIGTERM)
        #expect(sleeper.waitUntilExit() == .signalled(SIGTERM))
        sleeper.signal(SIGTERM)  // reaped: sends nothing, and must not fail
    }

    @Test("a child starts with an empty signal mask and no ignored signals")
    func cleanSignalState() throws {
        // Spawned from a thread that blocks SIGTERM and SIGUSR1 (a mask is inherited through exec
        // unless posix_spawn is told otherwise) while we ignore SIGUSR2 (so is an ignored signal).
        // Nothing in this package uses SIGUSR2.
        let previous = Glibc.signal(SIGUSR2, SIG_IGN)
        let child: ChildProcess
        do {
            defer { Glibc.signal(SIGUSR2, previous) }
            child = try Self.onThreadBlocking(SIGTERM) {
                // grep itself, not through a shell: dash clears its signal mask when it starts.
                try ChildProcess("grep", ["-E", "^Sig(Blk|Ign):", "/proc/self/status"], standardOutput: .pipe)
            }
        }
        let lines = Self.text(try child.readToEnd().output).split(separator: "\n").map { $0.split(separator: "\t") }
        #expect(child.waitUntilExit() == .exited(0))
        try #require(lines.count == 2 && lines.allSatisfy { $0.count == 2 }, "\(lines)")
        #expect(lines[0] == ["SigBlk:", "0000000000000000"])
        // glibc's posix_spawn leaves its own two real-time signals (32 and 33) ignored in the child.
        let ignored = try #require(UInt64(lines[1][1], radix: 16))
        #expect(lines[1][0] == "SigIgn:")
        #expect(ignored & 0x7fff_ffff == 0, "ignored signals: \(lines[1][1])")
    }

    @Test("environment: explicit or inherited; working directory")
    func environmentAndDirectory() throws {
        let directory = try TestCertificates.temporaryDirectory(prefix: "child-process")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let explicit = try Self.shell(
            #"printf '%s|%s|%s' "$GREETING" "$(pwd -P)" "${HOME-unset}""#,
            environment: ["GREETING": "hello world", "PATH": "/usr/bin:/bin"], directory: directory
        )
        let resolved = try #require(realpath(directory, nil).map { pointer in defer { free(pointer) }; return String(cString: pointer) })
        #expect(explicit.output == "hello world|\(resolved)|unset")
        #expect(explicit.termination == .exited(0))

        let inherited = try Self.shell(#"printf '%s|%s' "$PATH" "$(pwd -P)""#)
        let ours = FileManager.default.currentDirectoryPath
        #expect(inherited.output == "\(ProcessInfo.processInfo.environment["PATH"] ?? "")|\(ours)")
    }

    @Test("arguments arrive unchanged, one each")
    func arguments() throws {
        let result = try Self.shell(#"for a in "$@"; do printf '[%s]' "$a"; done"#, ["a b", "", "*", "$HOME", "é"])
        #expect(result.output == "[a b][][*][$HOME][é]")
    }

    @Test("standard output to a pipe and standard error to a file; standard input from a file or /dev/null")
    func streams() throws {
        let directory = try TestCertificates.temporaryDirectory(prefix: "child-process")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let errorPath = directory + "/err"
        let child = try ChildProcess("/bin/sh", ["-c", "echo out; echo err >&2"], standardOutput: .pipe, standardError: .file(errorPath))
        #expect(Self.text(try child.readToEnd().output) == "out\n")
        #expect(child.waitUntilExit() == .exited(0))
        #expect(try String(contentsOfFile: errorPath, encoding: .utf8) == "err\n")

        let inputPath = directory + "/in"
        try Data("line one\nline two\n".utf8).write(to: URL(fileURLWithPath: inputPath))
        let cat = try ChildProcess("cat", standardInput: .file(inputPath), standardOutput: .pipe)
        #expect(Self.text(try cat.readToEnd().output) == "line one\nline two\n")
        let empty = try ChildProcess("cat", standardOutput: .pipe)  // /dev/null by default: ends at once
        #expect(try empty.readToEnd().output.isEmpty)
        #expect(empty.waitUntilExit() == .exited(0))
    }

    @Test("reading both pipes to the end does not stall on a child that fills standard error first")
    func chattyStandardError() async throws {
        // 1 MB to standard error before anything on standard output: far more than a pipe holds.
        let result = try await onOwnThread { try Self.shell("head -c 1000000 /dev/zero >&2; echo done") }
        #expect(result.output == "done\n")
        #expect(result.error.utf8.count == 1_000_000)
        #expect(result.termination == .exited(0))
    }

    @Test("a child holds only its standard streams, not our other descriptors")
    func noInheritedDescriptors() throws {
        // Opened without O_CLOEXEC, as C libraries and older code do.
        let stray = open("/dev/null", O_RDONLY)
        try #require(stray > 2)
        defer { close(stray) }
        let result = try Self.shell("ls /proc/self/fd")
        // 3 is the directory `ls` itself opens.
        #expect(result.output.split(separator: "\n") == ["0", "1", "2", "3"], "\(result.output)")
    }

    @Test("a program that cannot be started is an error that says why")
    func startFailures() throws {
        let missing = #expect(throws: ChildProcessError.self) { try ChildProcess("/nonexistent/program") }
        #expect(missing?.code == ENOENT)
        #expect(missing?.description.contains("cannot start /nonexistent/program") == true)
        let unknown = #expect(throws: ChildProcessError.self) { try ChildProcess("no-such-program-on-path") }
        #expect(unknown?.code == ENOENT)
        let badDirectory = #expect(throws: ChildProcessError.self) { try ChildProcess("/bin/true", directory: "/nonexistent") }
        #expect(badDirectory?.code == ENOENT)
        let badFile = #expect(throws: ChildProcessError.self) {
            try ChildProcess("/bin/true", standardOutput: .file("/nonexistent/out"))
        }
        #expect(badFile?.description.contains("cannot open /nonexistent/out") == true)
    }

    @Test("several threads waiting for one child all learn how it ended, while others poll it")
    func concurrentWaiters() async throws {
        let child = try ChildProcess("/bin/sh", ["-c", "sleep 0.3; exit 7"])
        let results = Collected<ChildProcess.Termination>()
        // Blocking threads of our own, not the few of Swift's cooperative pool.
        try await onOwnThread {
            DispatchQueue.concurrentPerform(iterations: 6) { index in
                if index % 2 == 0 {
                    results.append(child.waitUntilExit())
                } else {
                    let deadline = Date().addingTimeInterval(60)
                    while child.isRunning, Date() < deadline { usleep(1_000) }
                    results.append(child.termination ?? .unknown)
                }
            }
        }
        #expect(results.all == Array(repeating: .exited(7), count: 6))
    }

    @Test("200 short children spawned from 8 threads at once all run and report correctly")
    func concurrentSpawns() async throws {
        let failures = Collected<String>()
        let finished = Collected<Int>()
        try await onOwnThread {
            DispatchQueue.concurrentPerform(iterations: 8) { thread in
                for index in thread * 25..<(thread + 1) * 25 {
                    do {
                        // Each reports the descriptors it holds: a pipe end of a sibling spawned
                        // at the same moment from another thread would show up here.
                        let child = try ChildProcess(
                            "/bin/sh", ["-c", #"printf '%s' "$1"; ls /proc/self/fd >&2; exit $(($1 % 256))"#, "sh", "\(index)"],
                            standardOutput: .pipe, standardError: .pipe
                        )
                        let (output, error) = try child.readToEnd()
                        let termination = child.waitUntilExit()
                        let descriptors = Self.text(error).split(separator: "\n")
                        if Self.text(output) != "\(index)" || termination != .exited(Int32(index % 256)) || descriptors != ["0", "1", "2", "3"] {
                            failures.append("child \(index): output \(Self.text(output)), \(termination), descriptors \(descriptors)")
                        }
                        finished.append(index)
                    } catch {
                        failures.append("child \(index): \(error)")
                    }
                }
            }
        }
        #expect(failures.all == [])
        #expect(finished.all.sorted() == Array(0..<200))
    }

    /// Runs `body` on a new thread that blocks `signal` (and SIGUSR1) and waits for its result.
    static func onThreadBlocking<T: Sendable>(_ signal: Int32, _ body: @escaping @Sendable () throws -> T) throws -> T {
        let outcome = Outcome<T>()
        let thread = Thread {
            var blocked = sigset_t()
            sigemptyset(&blocked)
            sigaddset(&blocked, signal)
            sigaddset(&blocked, SIGUSR1)
            pthread_sigmask(SIG_BLOCK, &blocked, nil)
            outcome.finish(Result { try body() })
        }
        thread.start()
        return try outcome.wait().get()
    }
}
