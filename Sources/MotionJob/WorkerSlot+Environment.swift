import MotionCore

/// `--worker auto`: the slot of an array task, read from its scheduler's environment
/// (docs/scale.md, "`--worker auto`").
///
/// The first variable of ``autoVariables`` that is set decides; the scheduler it belongs to
/// gives the index, and the count when it has one:
///
/// | variable | index | count |
/// |---|---|---|
/// | `SLURM_ARRAY_TASK_ID` | (ID − `SLURM_ARRAY_TASK_MIN`) / `SLURM_ARRAY_TASK_STEP` (1 when unset) | `SLURM_ARRAY_TASK_COUNT` |
/// | `SGE_TASK_ID` (not `undefined`) | (ID − `SGE_TASK_FIRST`) / `SGE_TASK_STEPSIZE` | (LAST − FIRST) / STEPSIZE + 1 |
/// | `PBS_ARRAY_INDEX` (PBS Pro), `PBS_ARRAYID` (Torque) | the value | `--workers N` |
/// | `LSB_JOBINDEX` (not `0`) | the value − 1 (LSF counts from 1) | `--workers N` |
/// | `AWS_BATCH_JOB_ARRAY_INDEX` | the value | `--workers N` |
/// | `JOB_COMPLETION_INDEX` (Kubernetes Indexed Job) | the value | `--workers N` |
///
/// `--workers N`, when given with a scheduler that has a count, must agree with it.
extension WorkerSlot {
    /// The variables `--worker auto` looks for, in the order it looks.
    public static let autoVariables = ["SLURM_ARRAY_TASK_ID", "SGE_TASK_ID", "PBS_ARRAY_INDEX", "PBS_ARRAYID",
                                       "LSB_JOBINDEX", "AWS_BATCH_JOB_ARRAY_INDEX", "JOB_COMPLETION_INDEX"]

    /// The slot of this array task and where it came from (`SLURM_ARRAY_TASK_ID=2, MIN=1,
    /// COUNT=3`).
    ///
    /// - Parameters:
    ///   - workers: `--workers N`, required where the scheduler gives no count.
    ///   - command: for the messages (`run`).
    /// - Throws: `MotionError(.usage)` (64), one sentence naming the variable and its value.
    public static func fromEnvironment(_ env: [String: String], workers: Int?, command: String = "run") throws -> (slot: WorkerSlot, origin: String) {
        let option = "option `--worker auto` of `motionprep \(command)`"
        func fail(_ what: String) -> MotionError { MotionError(.usage, "\(option) \(what)") }
        func int(_ name: String, _ text: String) throws -> Int {
            guard let n = Int(text.trimmingCharacters(in: .whitespaces)) else {
                throw fail("read \(name)=`\(text)`, which is not a whole number")
            }
            return n
        }
        func required(_ name: String, for variable: String) throws -> Int {
            guard let text = env[name] else { throw fail("found \(variable) but not \(name), which it needs; give `--worker I/N` instead") }
            return try int(name, text)
        }
        func needWorkers(_ found: String, _ scheduler: String) throws -> Int {
            guard let workers else {
                throw fail("found \(found) (\(scheduler)), which gives no worker count: add `--workers N`, the number of tasks in the array")
            }
            return workers
        }
        func agree(_ count: Int, _ found: String) throws {
            if let workers, workers != count {
                throw fail("found \(found), an array of \(count) tasks, but `--workers` is \(workers); drop `--workers` or make them agree")
            }
        }
        func slot(_ index: Int, _ count: Int, _ origin: String) throws -> (slot: WorkerSlot, origin: String) {
            guard count >= 1, count <= maxWorkers else {
                throw fail("found \(origin): a worker count of \(count), but it must be from 1 to \(maxWorkers)")
            }
            guard index >= 0, index < count else {
                throw fail("found \(origin): worker index \(index), which is not from 0 to \(count - 1)")
            }
            return (WorkerSlot(index: index, count: count), "from " + origin)
        }
        /// (ID − first) / step, and the count from first, last (or a count) and step.
        func stepped(id: Int, first: Int, step: Int, stepName: String, found: String) throws -> Int {
            guard step >= 1 else { throw fail("found \(found): \(stepName) is \(step), but a step is at least 1") }
            guard id >= first, (id - first) % step == 0 else {
                throw fail("found \(found): the task ID is not the first ID plus a whole number of steps")
            }
            return (id - first) / step
        }

        if let text = env["SLURM_ARRAY_TASK_ID"] {
            let id = try int("SLURM_ARRAY_TASK_ID", text)
            let min = try required("SLURM_ARRAY_TASK_MIN", for: "SLURM_ARRAY_TASK_ID")
            let step = try env["SLURM_ARRAY_TASK_STEP"].map { try int("SLURM_ARRAY_TASK_STEP", $0) } ?? 1
            var found = "SLURM_ARRAY_TASK_ID=\(id), MIN=\(min)"
            if step != 1 { found += ", STEP=\(step)" }
            let count: Int
            if let c = env["SLURM_ARRAY_TASK_COUNT"] {
                count = try int("SLURM_ARRAY_TASK_COUNT", c)
                found += ", COUNT=\(count)"
                try agree(count, found)
                if let m = env["SLURM_ARRAY_TASK_MAX"], let max = Int(m), step >= 1, max >= min, (max - min) / step + 1 != count {
                    throw fail("found \(found), MAX=\(max): the array is not an evenly spaced range (as `--array=0-7` or `0-14:2`), so the task ID gives no worker index; give `--worker I/N`")
                }
            } else {
                count = try needWorkers(found, "a Slurm array without SLURM_ARRAY_TASK_COUNT")
                found += ", --workers \(count)"
            }
            let index = try stepped(id: id, first: min, step: step, stepName: "SLURM_ARRAY_TASK_STEP", found: found)
            return try slot(index, count, found)
        }
        if let text = env["SGE_TASK_ID"], text != "undefined" {
            let id = try int("SGE_TASK_ID", text)
            let first = try required("SGE_TASK_FIRST", for: "SGE_TASK_ID")
            let last = try required("SGE_TASK_LAST", for: "SGE_TASK_ID")
            let step = try env["SGE_TASK_STEPSIZE"].map { try int("SGE_TASK_STEPSIZE", $0) } ?? 1
            let found = "SGE_TASK_ID=\(id), FIRST=\(first), LAST=\(last), STEPSIZE=\(step)"
            let index = try stepped(id: id, first: first, step: step, stepName: "SGE_TASK_STEPSIZE", found: found)
            guard last >= first else { throw fail("found \(found): LAST is before FIRST") }
            let count = (last - first) / step + 1
            try agree(count, found)
            return try slot(index, count, found)
        }
        for (name, scheduler, base) in [("PBS_ARRAY_INDEX", "a PBS Pro array", 0), ("PBS_ARRAYID", "a Torque array", 0),
                                        ("LSB_JOBINDEX", "an LSF array", 1), ("AWS_BATCH_JOB_ARRAY_INDEX", "an AWS Batch array job", 0),
                                        ("JOB_COMPLETION_INDEX", "a Kubernetes Indexed Job", 0)] {
            guard let text = env[name] else { continue }
            // LSF sets LSB_JOBINDEX=0 in a job that is not an array.
            if name == "LSB_JOBINDEX", text == "0" { continue }
            let value = try int(name, text)
            let count = try needWorkers("\(name)=\(value)", scheduler)
            let found = "\(name)=\(value), --workers \(count)"
            guard value >= base else {
                throw fail("found \(found): \(scheduler) numbers its tasks from \(base), not \(value)")
            }
            return try slot(value - base, count, found)
        }
        throw fail("found no array task in the environment: none of \(Text.alternatives(autoVariables)) is set (SGE_TASK_ID=undefined and LSB_JOBINDEX=0 mean no array); run it as an array task or give `--worker I/N`")
    }
}
