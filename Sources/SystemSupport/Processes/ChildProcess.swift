// A child process started with glibc's `posix_spawn`, for tests and tools that run programs.
//
// Foundation's `Process` is not used anywhere in this package: on Swift 6.3.1 for Linux its `run()`
// reads past a `dirent` name while it lists /proc/self/fd, and now and then crashes the whole
// process that spawns (a test runner starting many children is hit every few runs).
//
// What a child gets: an empty signal mask and the default action for every signal (a thread of the
// test runner may block SIGTERM, and a blocked mask is inherited through exec), the standard
// streams asked for, and no other descriptor of ours (every descriptor from 3 up is closed in the
// child; the pipe ends we keep are close-on-exec from the start, so children spawned at the same
// time from other threads cannot hold them open either).
//
// Threading: `init` and the pipe reads block the calling thread; `waitUntilExit()` blocks until the
// child ends. Everything else returns at once. Any thread may use a `ChildProcess`.

internal import CSpawn
import Foundation
import Glibc
import Synchronization

/// A running (or finished) child process.
public final class ChildProcess: Sendable {
    /// Where the child's standard input comes from.
    public enum Input: Sendable {
        /// `/dev/null`: the child reads end-of-file at once.
        case nullDevice
        /// The file at this path, read from its start.
        case file(String)
        /// Our own standard input.
        case inherit
    }

    /// Where the child's standard output or standard error goes.
    public enum Output: Sendable {
        /// `/dev/null`.
        case nullDevice
        /// The file at this path, created (mode 0644) or truncated, and created before `init` returns.
        case file(String)
        /// A pipe the caller reads with `readOutput`/`readError` or `readToEnd()`.
        case pipe
        /// Our own standard output or standard error.
        case inherit
    }

    /// The child's process id. It names the child until it has been reaped (`isRunning` is false).
    public let pid: Int32
    /// The read end of the standard output pipe (with `.pipe`); closed in `deinit`.
    let outputPipe: Int32?
    /// The read end of the standard error pipe (with `.pipe`); closed in `deinit`.
    let errorPipe: Int32?
    /// What is known of the child's end; see ChildProcess+Exit.swift.
    let exitState = Mutex(ExitState())

    /// The same as `pid`, under the name Foundation's `Process` gives it.
    public var processIdentifier: Int32 { pid }

    /// Starts `executable` with `arguments`.
    ///
    /// - Parameters:
    ///   - executable: a path (anything containing "/"), or a bare name looked up on our `PATH` as
    ///     the shell does.
    ///   - environment: the child's whole environment; nil passes ours on.
    ///   - directory: the child's working directory; nil keeps ours.
    /// - Throws: `ChildProcessError` if a file cannot be opened or the program cannot be started
    ///   (not found, not executable, bad directory): the error names the cause.
    public init(
        _ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil, directory: String? = nil,
        standardInput: Input = .nullDevice, standardOutput: Output = .inherit, standardError: Output = .inherit
    ) throws {
        let spawned = try Self.spawn(
            executable, arguments, environment: environment, directory: directory,
            streams: (standardInput, standardOutput, standardError)
        )
        (pid, outputPipe, errorPipe) = (spawned.pid, spawned.output, spawned.error)
    }

    deinit {
        for fd in [outputPipe, errorPipe].compactMap({ $0 }) { close(fd) }
        reapWhenDone()
    }

    private struct Spawned {
        var pid: Int32
        var output: Int32?
        var error: Int32?
    }

    private static func spawn(
        _ executable: String, _ arguments: [String], environment: [String: String]?, directory: String?,
        streams: (input: Input, output: Output, error: Output)
    ) throws -> Spawned {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Our ends of the child's streams: closed once the child has its own copies.
        var childEnds: [Int32] = []
        defer { for fd in childEnds { close(fd) } }
        var kept = Spawned(pid: 0)
        var started = false
        defer { if !started { for fd in [kept.output, kept.error].compactMap({ $0 }) { close(fd) } } }

        if let source = try inputDescriptor(streams.input) {
            childEnds.append(source)
            try check(posix_spawn_file_actions_adddup2(&actions, source, STDIN_FILENO), "posix_spawn_file_actions_adddup2")
        }
        for (target, output) in [(STDOUT_FILENO, streams.output), (STDERR_FILENO, streams.error)] {
            guard let (childEnd, readEnd) = try outputDescriptors(output) else { continue }
            childEnds.append(childEnd)
            if target == STDOUT_FILENO { kept.output = readEnd } else { kept.error = readEnd }
            try check(posix_spawn_file_actions_adddup2(&actions, childEnd, target), "posix_spawn_file_actions_adddup2")
        }
        try check(posix_spawn_file_actions_addclosefrom_np(&actions, 3), "posix_spawn_file_actions_addclosefrom_np")
        if let directory {
            try check(posix_spawn_file_actions_addchdir_np(&actions, directory), "posix_spawn_file_actions_addchdir_np")
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var signals = sigset_t()
        sigemptyset(&signals)
        try check(posix_spawnattr_setsigmask(&attributes, &signals), "posix_spawnattr_setsigmask")
        sigfillset(&signals)
        try check(posix_spawnattr_setsigdefault(&attributes, &signals), "posix_spawnattr_setsigdefault")
        try check(posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)), "posix_spawnattr_setflags")

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { envp?.forEach { free($0) } }
        func start(_ envp: UnsafePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
            executable.contains("/")
                ? posix_spawn(&kept.pid, executable, &actions, &attributes, argv, envp)
                : posix_spawnp(&kept.pid, executable, &actions, &attributes, argv, envp)
        }
        let result = if let envp { start(envp) } else { start(environ) }
        guard result == 0 else {
            throw ChildProcessError(operation: "cannot start \(executable)\(directory.map { " in \($0)" } ?? "")", code: result)
        }
        started = true
        return kept
    }

    /// The descriptor to give the child as standard input; nil to pass ours on.
    private static func inputDescriptor(_ input: Input) throws -> Int32? {
        switch input {
        case .nullDevice: try openForChild("/dev/null", O_RDONLY)
        case .file(let path): try openForChild(path, O_RDONLY)
        case .inherit: nil
        }
    }

    /// The descriptor to give the child, and the read end we keep for a pipe; nil to pass ours on.
    private static func outputDescriptors(_ output: Output) throws -> (child: Int32, readEnd: Int32?)? {
        switch output {
        case .nullDevice: return (try openForChild("/dev/null", O_WRONLY), nil)
        case .file(let path): return (try openForChild(path, O_WRONLY | O_CREAT | O_TRUNC), nil)
        case .pipe:
            var ends: [Int32] = [-1, -1]
            guard pipe2(&ends, O_CLOEXEC) == 0 else { throw ChildProcessError(operation: "pipe2", code: errno) }
            return (ends[1], ends[0])
        case .inherit: return nil
        }
    }

    /// Opens a file close-on-exec: only the child that it is meant for gets it (through dup2).
    private static func openForChild(_ path: String, _ flags: Int32) throws -> Int32 {
        let fd = Glibc.open(path, flags | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ChildProcessError(operation: "cannot open \(path)", code: errno) }
        return fd
    }

    /// posix_spawn's helpers return an error number rather than setting errno.
    private static func check(_ result: Int32, _ operation: String) throws {
        guard result == 0 else { throw ChildProcessError(operation: operation, code: result) }
    }
}
