// CPU time and peak memory of this process and of the processes under test, from the kernel.

import Foundation

public enum ProcessStats {
    /// User + system CPU seconds of this process so far (every thread), from getrusage.
    public static func ownCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// User + system CPU seconds of process `pid` so far (utime + stime of /proc/PID/stat).
    public static func cpuSeconds(pid: Int32) -> Double? {
        stat("/proc/\(pid)/stat").map { $0.own }
    }

    /// CPU seconds of process `pid` and all its descendants, the ones already reaped included
    /// (a database server and its backends).
    public static func treeCPUSeconds(pid: Int32) -> Double? {
        guard let root = stat("/proc/\(pid)/stat") else { return nil }
        var children: [Int32: [Int32]] = [:]
        var own: [Int32: Double] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let process = Int32(entry), let fields = stat("/proc/\(entry)/stat") else { continue }
            children[fields.parent, default: []].append(process)
            own[process] = fields.own + fields.reaped
        }
        var total = root.own + root.reaped
        var stack = children[pid] ?? []
        while let next = stack.popLast() {
            total += own[next] ?? 0
            stack.append(contentsOf: children[next] ?? [])
        }
        return total
    }

    /// CPU seconds of each thread of process `pid`, summed by thread name.
    public static func cpuSecondsByThread(pid: Int32) -> [String: Double] {
        var result: [String: Double] = [:]
        for task in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? [] {
            guard let fields = stat("/proc/\(pid)/task/\(task)/stat") else { continue }
            result[fields.name, default: 0] += fields.own
        }
        return result
    }

    /// Peak resident set size of process `pid` in KiB (VmHWM of /proc/PID/status).
    public static func peakResidentKiB(pid: Int32) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        }
        return nil
    }

    /// The fields of a /proc stat file the fleet uses: name, parent, own and reaped children's CPU.
    private static func stat(_ path: String) -> (name: String, parent: Int32, own: Double, reaped: Double)? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
            let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")")
        else { return nil }
        // After "pid (comm)" come the fields from `state` (field 3) on: ppid is 4, utime 14,
        // stime 15, cutime 16, cstime 17.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 14, let parent = Int32(fields[1]), let user = Double(fields[11]), let system = Double(fields[12]),
            let childUser = Double(fields[13]), let childSystem = Double(fields[14])
        else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        guard ticks > 0 else { return nil }
        let name = String(text[text.index(after: open)..<close])
        return (name, parent, (user + system) / ticks, (childUser + childSystem) / ticks)
    }
}
