import Foundation
import MotionCore
import Testing
import MotionJob

/// `--worker auto` (issue 26 point 2): every scheduler's variables give the right slot; bad
/// values are one sentence (exit 64 in the CLI: tests/python/test_worker_auto.py).
@Suite struct WorkerAutoTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var env: [String: String]
        var workers: Int?
        var slot: String
        var origin: String
        var testDescription: String { env.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ") }
    }

    static let good: [Case] = [
        Case(env: ["SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "2", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_STEP": "1"],
             slot: "0/3", origin: "from SLURM_ARRAY_TASK_ID=0, MIN=0, COUNT=3"),
        Case(env: ["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "3", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_STEP": "1"],
             slot: "1/3", origin: "from SLURM_ARRAY_TASK_ID=2, MIN=1, COUNT=3"),
        Case(env: ["SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "4", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_STEP": "2"],
             slot: "2/3", origin: "from SLURM_ARRAY_TASK_ID=4, MIN=0, STEP=2, COUNT=3"),
        Case(env: ["SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "3"], workers: 5,
             slot: "0/5", origin: "from SLURM_ARRAY_TASK_ID=3, MIN=3, --workers 5"),
        Case(env: ["SGE_TASK_ID": "5", "SGE_TASK_FIRST": "1", "SGE_TASK_LAST": "7", "SGE_TASK_STEPSIZE": "2"],
             slot: "2/4", origin: "from SGE_TASK_ID=5, FIRST=1, LAST=7, STEPSIZE=2"),
        Case(env: ["SGE_TASK_ID": "undefined", "JOB_COMPLETION_INDEX": "1"], workers: 2,
             slot: "1/2", origin: "from JOB_COMPLETION_INDEX=1, --workers 2"),
        Case(env: ["PBS_ARRAY_INDEX": "3"], workers: 4, slot: "3/4", origin: "from PBS_ARRAY_INDEX=3, --workers 4"),
        Case(env: ["PBS_ARRAYID": "0"], workers: 4, slot: "0/4", origin: "from PBS_ARRAYID=0, --workers 4"),
        Case(env: ["LSB_JOBINDEX": "1"], workers: 3, slot: "0/3", origin: "from LSB_JOBINDEX=1, --workers 3"),
        Case(env: ["LSB_JOBINDEX": "0", "AWS_BATCH_JOB_ARRAY_INDEX": "2"], workers: 3, slot: "2/3", origin: "from AWS_BATCH_JOB_ARRAY_INDEX=2, --workers 3"),
        Case(env: ["JOB_COMPLETION_INDEX": "7"], workers: 8, slot: "7/8", origin: "from JOB_COMPLETION_INDEX=7, --workers 8"),
        // Slurm first when two are set.
        Case(env: ["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "2", "JOB_COMPLETION_INDEX": "0"], workers: 2,
             slot: "1/2", origin: "from SLURM_ARRAY_TASK_ID=1, MIN=0, COUNT=2"),
    ]

    @Test(arguments: good)
    func slot(_ c: Case) throws {
        let found = try WorkerSlot.fromEnvironment(c.env, workers: c.workers)
        #expect(found.slot.description == c.slot)
        #expect(found.origin == c.origin)
    }

    static let bad: [(env: [String: String], workers: Int?, message: String)] = [
        (["SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "3"], nil,
         "read SLURM_ARRAY_TASK_ID=`x`, which is not a whole number"),
        (["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_STEP": "0"], nil,
         "found SLURM_ARRAY_TASK_ID=1, MIN=0, STEP=0, COUNT=3: SLURM_ARRAY_TASK_STEP is 0, but a step is at least 1"),
        (["SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "3"], nil,
         "found SLURM_ARRAY_TASK_ID=3, MIN=0, COUNT=3: worker index 3, which is not from 0 to 2"),
        (["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "3"], 4,
         "found SLURM_ARRAY_TASK_ID=1, MIN=0, COUNT=3, an array of 3 tasks, but `--workers` is 4; drop `--workers` or make them agree"),
        (["SLURM_ARRAY_TASK_ID": "1"], nil,
         "found SLURM_ARRAY_TASK_ID but not SLURM_ARRAY_TASK_MIN, which it needs; give `--worker I/N` instead"),
        (["JOB_COMPLETION_INDEX": "2"], nil,
         "found JOB_COMPLETION_INDEX=2 (a Kubernetes Indexed Job), which gives no worker count: add `--workers N`, the number of tasks in the array"),
        (["JOB_COMPLETION_INDEX": "2"], 2,
         "found JOB_COMPLETION_INDEX=2, --workers 2: worker index 2, which is not from 0 to 1"),
        (["SGE_TASK_ID": "2", "SGE_TASK_FIRST": "1", "SGE_TASK_LAST": "5", "SGE_TASK_STEPSIZE": "2"], nil,
         "found SGE_TASK_ID=2, FIRST=1, LAST=5, STEPSIZE=2: the task ID is not the first ID plus a whole number of steps"),
        ([:], nil,
         "found no array task in the environment: none of `SLURM_ARRAY_TASK_ID`, `SGE_TASK_ID`, `PBS_ARRAY_INDEX`, `PBS_ARRAYID`, `LSB_JOBINDEX`, `AWS_BATCH_JOB_ARRAY_INDEX` or `JOB_COMPLETION_INDEX` is set (SGE_TASK_ID=undefined and LSB_JOBINDEX=0 mean no array); run it as an array task or give `--worker I/N`"),
    ]

    @Test func badValuesAreOneSentence() {
        for (env, workers, message) in Self.bad {
            #expect(throws: MotionError(.usage, "option `--worker auto` of `motionprep run` " + message), "\(env)") {
                try WorkerSlot.fromEnvironment(env, workers: workers)
            }
        }
    }
}
