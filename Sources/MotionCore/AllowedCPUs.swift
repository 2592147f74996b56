#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// How many CPUs this process may run on, and which limit said so: the default of `--jobs` for
/// `run`, `apply`, `merge` and `validate`, and so the size of every thread pool (workers, HDF5
/// compression lanes, validate's chunk readers, shard lanes) (docs/scale.md, "CPUs").
///
/// The smallest of:
/// - the affinity mask (`sched_getaffinity`: `taskset`, a Slurm or container cpuset);
/// - the cgroup CPU quota, rounded up (v2 `cpu.max` of this process's cgroup and of every
///   ancestor, v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us`);
/// - `SLURM_CPUS_PER_TASK`, when set to a whole number ≥ 1.
///
/// When two limits agree, the first in that order is named.
public struct CPUAllowance: Sendable, Equatable, CustomStringConvertible {
    /// At least 1.
    public var count: Int
    /// Where `count` came from, for the summary: `CPU affinity`, `cgroup quota 1.5 CPUs`,
    /// `SLURM_CPUS_PER_TASK`, `online cores` (no affinity mask could be read) or `--jobs`.
    public var source: String

    public init(count: Int, source: String) {
        self.count = count
        self.source = source
    }

    /// `2 (CPU affinity)`.
    public var description: String { "\(count) (\(source))" }

    /// The allowance of this process now, from the kernel and `environment`.
    public static func current(environment: [String: String] = ProcessInfo.processInfo.environment) -> CPUAllowance {
        var best: CPUAllowance
        if let affinity = affinityCount() {
            best = CPUAllowance(count: affinity, source: "CPU affinity")
        } else {
            best = CPUAllowance(count: Swift.max(1, ProcessInfo.processInfo.activeProcessorCount), source: "online cores")
        }
        if let quota = cgroupQuota() {
            let n = quotaCPUs(quota)
            if n < best.count { best = CPUAllowance(count: n, source: "cgroup quota \(formatCPUs(quota)) CPUs") }
        }
        if let slurm = slurmCPUs(environment) , slurm < best.count {
            best = CPUAllowance(count: slurm, source: "SLURM_CPUS_PER_TASK")
        }
        return best
    }

    /// `--jobs N` when given, else ``current(environment:)``.
    public static func jobs(option: Int?, environment: [String: String] = ProcessInfo.processInfo.environment) -> CPUAllowance {
        if let option { return CPUAllowance(count: option, source: "--jobs") }
        return current(environment: environment)
    }

    // MARK: - Pure parts (unit-tested on file text)

    /// A quota in CPUs rounded up, at least 1.
    public static func quotaCPUs(_ cpus: Double) -> Int {
        guard cpus.isFinite, cpus > 0 else { return 1 }
        return Swift.max(1, Int(min(cpus.rounded(.up), 1_000_000)))
    }

    /// `text` without leading and trailing spaces, tabs and line ends (FoundationEssentials has no
    /// `trimmingCharacters`; this file builds on it alone, for the live library).
    static func trimmed(_ text: String) -> Substring {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        guard let first = text.firstIndex(where: { !blank($0) }), let last = text.lastIndex(where: { !blank($0) }) else { return "" }
        return text[first...last]
    }

    /// `SLURM_CPUS_PER_TASK` as a whole number ≥ 1; nil when unset or not one.
    public static func slurmCPUs(_ environment: [String: String]) -> Int? {
        guard let text = environment["SLURM_CPUS_PER_TASK"], let n = Int(trimmed(text)), n >= 1 else { return nil }
        return n
    }

    /// cgroup v2 `cpu.max` (`"150000 100000"`, `"max 100000"`, or `"150000"` with the default
    /// period of 100000 µs): the quota in CPUs, nil for no limit or text that is not `cpu.max`.
    public static func parseCPUMax(_ text: String) -> Double? {
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
        guard fields.count == 1 || fields.count == 2, fields[0] != "max", let quota = Double(fields[0]), quota > 0 else { return nil }
        let period = fields.count == 2 ? Double(fields[1]) : 100_000
        guard let period, period > 0 else { return nil }
        return quota / period
    }

    /// cgroup v1 `cpu.cfs_quota_us` and `cpu.cfs_period_us`: the quota in CPUs, nil for no
    /// limit (quota -1) or text that is not a number.
    public static func parseCFS(quota: String, period: String) -> Double? {
        guard let q = Double(trimmed(quota)), q > 0,
              let p = Double(trimmed(period)), p > 0 else { return nil }
        return q / p
    }

    /// The cgroup v2 path of `/proc/self/cgroup` (its `0::PATH` line), nil without one.
    public static func cgroupV2Path(procSelfCgroup text: String) -> String? {
        for line in text.split(separator: "\n") where line.hasPrefix("0::") {
            return String(line.dropFirst(3))
        }
        return nil
    }

    /// The cgroup v1 path of the `cpu` controller in `/proc/self/cgroup` (`4:cpu,cpuacct:PATH`).
    public static func cgroupV1CPUPath(procSelfCgroup text: String) -> String? {
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, parts[1].split(separator: ",").contains("cpu") else { continue }
            return String(parts[2])
        }
        return nil
    }

    /// A cgroup path and its ancestors up to the root, deepest first: `/a/b` → `/a/b`, `/a`, `/`.
    public static func selfAndAncestors(_ path: String) -> [String] {
        var parts = path.split(separator: "/").map(String.init)
        var out: [String] = []
        while true {
            out.append("/" + parts.joined(separator: "/"))
            if parts.isEmpty { break }
            parts.removeLast()
        }
        return out
    }

    /// `1.5`, `2`, `0.25`.
    public static func formatCPUs(_ cpus: Double) -> String {
        // To two decimals, without String(format:) (not in FoundationEssentials).
        let hundredths = Int((Swift.min(Swift.max(cpus, 0), 1e12) * 100).rounded())
        let fraction = hundredths % 100
        var s = "\(hundredths / 100)." + (fraction < 10 ? "0" : "") + "\(fraction)"
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s
    }

    // MARK: - The kernel

    /// The smallest quota of this process's cgroup and its ancestors, in CPUs; nil without one.
    static func cgroupQuota(root: String = "/sys/fs/cgroup") -> Double? {
        guard let text = read("/proc/self/cgroup") else { return nil }
        var smallest: Double?
        func take(_ q: Double?) { if let q, q < (smallest ?? .infinity) { smallest = q } }
        if let v2 = cgroupV2Path(procSelfCgroup: text), FileManager.default.fileExists(atPath: root + "/cgroup.controllers") {
            for dir in selfAndAncestors(v2) {
                if let t = read(root + (dir == "/" ? "" : dir) + "/cpu.max") { take(parseCPUMax(t)) }
            }
        }
        if let v1 = cgroupV1CPUPath(procSelfCgroup: text) {
            for mount in [root + "/cpu,cpuacct", root + "/cpu"] where FileManager.default.fileExists(atPath: mount) {
                // In a container the host's path may not be visible: then the mount's own root is ours.
                for dir in selfAndAncestors(v1) {
                    let base = mount + (dir == "/" ? "" : dir)
                    if let q = read(base + "/cpu.cfs_quota_us"), let p = read(base + "/cpu.cfs_period_us") { take(parseCFS(quota: q, period: p)) }
                }
                break
            }
        }
        return smallest
    }

    static func read(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// The CPUs in this process's affinity mask, counted from `sched_getaffinity`'s bit set; nil
    /// when it cannot be read. Swift's Glibc module does not import `sched_getaffinity` (a
    /// `_GNU_SOURCE` declaration), so it is looked up with `dlsym` and called with the C
    /// convention; `cpu_set_t` is 128 bytes (1024 CPUs), and a larger mask is retried up to 64 KiB.
    static func affinityCount() -> Int? {
        #if os(Linux)
        typealias GetAffinity = @convention(c) (Int32, Int, UnsafeMutableRawPointer?) -> Int32
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "sched_getaffinity") else { return nil }
        let getAffinity = unsafeBitCast(symbol, to: GetAffinity.self)
        var bytes = 128
        while bytes <= 65_536 {
            var mask = [UInt64](repeating: 0, count: bytes / 8)
            let rc = mask.withUnsafeMutableBytes { getAffinity(0, bytes, $0.baseAddress) }
            if rc == 0 {
                let n = mask.reduce(0) { $0 + $1.nonzeroBitCount }
                return n >= 1 ? n : nil
            }
            guard errno == EINVAL else { return nil }
            bytes *= 2
        }
        return nil
        #else
        return nil
        #endif
    }
}
