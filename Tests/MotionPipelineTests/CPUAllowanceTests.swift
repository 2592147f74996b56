import Foundation
import MotionCore
import Testing

/// The pure parts of `CPUAllowance` (issue 26 point 1): the cgroup files as text, the Slurm
/// variable, rounding (docs/scale.md, "CPUs"). The kernel side runs in tests/python/test_cpus.py
/// under `taskset` and a real cgroup.
@Suite struct CPUAllowanceParsingTests {
    @Test(arguments: [
        ("150000 100000\n", 1.5), ("100000 100000", 1.0), ("50000 100000\n", 0.5), ("200000 50000", 4.0),
        ("250000", 2.5),
    ])
    func cpuMaxWithAQuota(text: String, cpus: Double) {
        #expect(CPUAllowance.parseCPUMax(text) == cpus)
    }

    @Test(arguments: ["max 100000\n", "max", "", "x 100000", "100000 0", "-1 100000", "1 2 3"])
    func cpuMaxWithoutOne(text: String) {
        #expect(CPUAllowance.parseCPUMax(text) == nil)
    }

    @Test func cfsFiles() {
        #expect(CPUAllowance.parseCFS(quota: "150000\n", period: "100000\n") == 1.5)
        #expect(CPUAllowance.parseCFS(quota: "-1\n", period: "100000\n") == nil)
        #expect(CPUAllowance.parseCFS(quota: "abc", period: "100000") == nil)
        #expect(CPUAllowance.parseCFS(quota: "100000", period: "0") == nil)
    }

    @Test func quotaRoundsUpToAtLeastOne() {
        #expect(CPUAllowance.quotaCPUs(1.5) == 2)
        #expect(CPUAllowance.quotaCPUs(0.25) == 1)
        #expect(CPUAllowance.quotaCPUs(2) == 2)
        #expect(CPUAllowance.quotaCPUs(2.0001) == 3)
        #expect(CPUAllowance.formatCPUs(1.5) == "1.5")
        #expect(CPUAllowance.formatCPUs(2) == "2")
        #expect(CPUAllowance.formatCPUs(0.25) == "0.25")
    }

    @Test func procSelfCgroup() {
        let v2 = "0::/user.slice/job_42/step_0\n"
        #expect(CPUAllowance.cgroupV2Path(procSelfCgroup: v2) == "/user.slice/job_42/step_0")
        let v1 = "12:memory:/slurm/uid_0/job_7\n4:cpu,cpuacct:/slurm/uid_0/job_7/step_0\n1:name=systemd:/\n"
        #expect(CPUAllowance.cgroupV2Path(procSelfCgroup: v1) == nil)
        #expect(CPUAllowance.cgroupV1CPUPath(procSelfCgroup: v1) == "/slurm/uid_0/job_7/step_0")
        #expect(CPUAllowance.cgroupV1CPUPath(procSelfCgroup: "3:cpuset:/a\n") == nil)
        #expect(CPUAllowance.selfAndAncestors("/a/b") == ["/a/b", "/a", "/"])
        #expect(CPUAllowance.selfAndAncestors("/") == ["/"])
    }

    @Test func slurmCPUsPerTask() {
        #expect(CPUAllowance.slurmCPUs(["SLURM_CPUS_PER_TASK": "3"]) == 3)
        #expect(CPUAllowance.slurmCPUs(["SLURM_CPUS_PER_TASK": "0"]) == nil)
        #expect(CPUAllowance.slurmCPUs(["SLURM_CPUS_PER_TASK": "two"]) == nil)
        #expect(CPUAllowance.slurmCPUs([:]) == nil)
        let one = CPUAllowance.current(environment: ["SLURM_CPUS_PER_TASK": "1"])
        #expect(one.count == 1)
        #expect(CPUAllowance.jobs(option: 7) == CPUAllowance(count: 7, source: "--jobs"))
        #expect(CPUAllowance.current(environment: [:]).count >= 1)
    }
}
