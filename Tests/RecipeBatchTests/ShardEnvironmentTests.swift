import Testing
@testable import RecipeBatch

/// `--shard auto`: each engine's numbering mapped to shards 1…N, and every environment that
/// cannot be mapped refused with a message naming what it found.
@Suite("Shard from the environment")
struct ShardEnvironmentTests {
    /// What `sbatch --array=SPEC` exports to a task (as Slurm 22.05 does; checked on a real
    /// cluster by .ci/test-slurm).
    static func slurm(id: Int, min: Int, max: Int, step: Int = 1, count: Int) -> [String: String] {
        ["SLURM_ARRAY_TASK_ID": "\(id)", "SLURM_ARRAY_TASK_MIN": "\(min)", "SLURM_ARRAY_TASK_MAX": "\(max)",
         "SLURM_ARRAY_TASK_STEP": "\(step)", "SLURM_ARRAY_TASK_COUNT": "\(count)", "SLURM_ARRAY_JOB_ID": "41", "SLURM_JOB_ID": "42"]
    }

    func shard(_ text: String, _ env: [String: String]) throws -> Shard {
        try Shard.resolve(text, environment: env).shard
    }

    /// The message of the refusal, or a failed expectation when there was none.
    func refusal(_ text: String, _ env: [String: String], sourceLocation: SourceLocation = #_sourceLocation) -> String {
        do {
            let got = try Shard.resolve(text, environment: env)
            Issue.record("expected a refusal, got \(got.shard)", sourceLocation: sourceLocation)
            return ""
        } catch {
            return error.description
        }
    }

    @Test("an explicit K/N ignores the environment, and is checked as before")
    func explicit() throws {
        let env = Self.slurm(id: 2, min: 0, max: 3, count: 4)
        let r = try Shard.resolve("3/8", environment: env)
        #expect(r == Shard.Resolution(shard: Shard(index: 3, count: 8), origin: nil))
        for bad in ["0/4", "5/4", "1/0", "auto3", "Auto", "3", ""] {
            _ = refusal(bad, env)
        }
    }

    @Test("Slurm: 0-3, 1-4 and 5-8 each give shards 1…4 in task order, whatever the first ID")
    func slurmRanges() throws {
        for first in [0, 1, 5, 1000] {
            let shards = try (first...(first + 3)).map { try shard("auto", Self.slurm(id: $0, min: first, max: first + 3, count: 4)) }
            #expect(shards == (1...4).map { Shard(index: $0, count: 4) }, "--array=\(first)-\(first + 3)")
        }
        // One task is shard 1/1; auto/N that agrees is accepted.
        #expect(try shard("auto", Self.slurm(id: 7, min: 7, max: 7, count: 1)) == Shard(index: 1, count: 1))
        #expect(try shard("auto/4", Self.slurm(id: 3, min: 0, max: 3, count: 4)) == Shard(index: 4, count: 4))
        let r = try Shard.resolve("auto", environment: Self.slurm(id: 6, min: 5, max: 8, count: 4))
        #expect(r.origin == "SLURM_ARRAY_TASK_ID=6 of the array 5-8")
    }

    @Test("Slurm: a stepped range maps by its step; MAX and STEP may be absent (older Slurm)")
    func slurmSteps() throws {
        // --array=1-7:2 → tasks 1, 3, 5, 7
        let shards = try [1, 3, 5, 7].map { try shard("auto", Self.slurm(id: $0, min: 1, max: 7, step: 2, count: 4)) }
        #expect(shards == (1...4).map { Shard(index: $0, count: 4) })
        var bare = Self.slurm(id: 2, min: 1, max: 4, count: 4)
        bare["SLURM_ARRAY_TASK_MAX"] = nil
        bare["SLURM_ARRAY_TASK_STEP"] = nil
        #expect(try shard("auto", bare) == Shard(index: 2, count: 4))
        // --array=0-4:2 is tasks 0, 2, 4.
        #expect(try shard("auto", Self.slurm(id: 4, min: 0, max: 4, step: 2, count: 3)) == Shard(index: 3, count: 3))
        // A contiguous list (--array=3,4,5) is exported as the range 3-5 is.
        #expect(try shard("auto", Self.slurm(id: 5, min: 3, max: 5, count: 3)) == Shard(index: 3, count: 3))
    }

    @Test("Slurm: arrays that cannot be mapped, IDs outside them and disagreeing counts are refused")
    func slurmRefusals() throws {
        // --array=1,3,9: MIN 1, MAX 9, COUNT 3 and STEP 1 (as Slurm 22.05 exports a list), or
        // any step that does not make 1…9 three tasks.
        for step in [1, 2, 3] {
            for id in [1, 3, 9] {
                let m = refusal("auto", Self.slurm(id: id, min: 1, max: 9, step: step, count: 3))
                #expect(m.contains("not evenly spaced") && m.contains("--shard K/N"), "\(m)")
            }
        }
        // With STEP 4 the same numbers are the range 1-9:4, tasks 1, 5, 9: 3 is none of them.
        #expect(try shard("auto", Self.slurm(id: 9, min: 1, max: 9, step: 4, count: 3)) == Shard(index: 3, count: 3))
        #expect(refusal("auto", Self.slurm(id: 3, min: 1, max: 9, step: 4, count: 3)).contains("is not a task of the array 1-9:4"))
        // --array=0,2,4 is exported with STEP 1, like a list that is not evenly spaced: every
        // task refuses alike (a range 0-4:2 says its step and works, above).
        for id in [0, 2, 4] {
            #expect(refusal("auto", Self.slurm(id: id, min: 0, max: 4, count: 3)).contains("not evenly spaced"))
        }
        // ID not in the array: below, above, between steps.
        for id in [0, 9, 2] {
            let m = refusal("auto", Self.slurm(id: id, min: 1, max: 7, step: 2, count: 4))
            #expect(m.contains("SLURM_ARRAY_TASK_ID=\(id) is not a task of the array 1-7:2"), "\(m)")
        }
        // The count from auto/N or RECIPE_SHARD_COUNT must be the array's.
        #expect(refusal("auto/8", Self.slurm(id: 1, min: 0, max: 3, count: 4)).contains("SLURM_ARRAY_TASK_COUNT=4 tasks, not 8"))
        var env = Self.slurm(id: 1, min: 0, max: 3, count: 4)
        env["RECIPE_SHARD_COUNT"] = "3"
        #expect(refusal("auto", env).contains("not 3"))
        // Missing MIN or COUNT: which task of how many is unknown.
        for name in ["SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_COUNT"] {
            var e = Self.slurm(id: 1, min: 0, max: 3, count: 4)
            e[name] = nil
            let m = refusal("auto", e)
            #expect(m.contains(name) && m.contains("not set"), "\(m)")
        }
        // Nonsense numbers.
        #expect(refusal("auto", Self.slurm(id: 1, min: 3, max: 0, count: 4)).contains("do not describe an array"))
        #expect(refusal("auto", Self.slurm(id: 1, min: 0, max: 3, step: 0, count: 4)).contains("do not describe an array"))
        #expect(refusal("auto", Self.slurm(id: 0, min: 0, max: 0, count: 0)).contains("do not describe an array"))
    }

    @Test("Kubernetes: JOB_COMPLETION_INDEX is 0-based; the count comes from auto/N or RECIPE_SHARD_COUNT")
    func kubernetes() throws {
        #expect(try shard("auto/16", ["JOB_COMPLETION_INDEX": "0"]) == Shard(index: 1, count: 16))
        #expect(try shard("auto/16", ["JOB_COMPLETION_INDEX": "15"]) == Shard(index: 16, count: 16))
        #expect(try shard("auto", ["JOB_COMPLETION_INDEX": "3", "RECIPE_SHARD_COUNT": "4"]) == Shard(index: 4, count: 4))
        #expect(try shard("auto/4", ["JOB_COMPLETION_INDEX": "3", "RECIPE_SHARD_COUNT": "4"]) == Shard(index: 4, count: 4))
        #expect(try Shard.resolve("auto/4", environment: ["JOB_COMPLETION_INDEX": "2"]).origin == "JOB_COMPLETION_INDEX=2, 4 shards")

        let noCount = refusal("auto", ["JOB_COMPLETION_INDEX": "3"])
        #expect(noCount.contains("does not export its completions") && noCount.contains("auto/N") && noCount.contains("RECIPE_SHARD_COUNT"), "\(noCount)")
        #expect(refusal("auto/4", ["JOB_COMPLETION_INDEX": "4"]).contains("outside 0…3"))
        #expect(refusal("auto/4", ["JOB_COMPLETION_INDEX": "-1"]).contains("outside 0…3"))
        #expect(refusal("auto/4", ["JOB_COMPLETION_INDEX": "3", "RECIPE_SHARD_COUNT": "5"]).contains("disagrees with RECIPE_SHARD_COUNT=5"))
        #expect(refusal("auto", ["JOB_COMPLETION_INDEX": "0", "RECIPE_SHARD_COUNT": "0"]).contains("must be at least 1"))
    }

    @Test("GNU parallel: PARALLEL_SEQ is 1-based and the count must be given")
    func parallel() throws {
        #expect(try shard("auto/8", ["PARALLEL_SEQ": "1"]) == Shard(index: 1, count: 8))
        #expect(try shard("auto/8", ["PARALLEL_SEQ": "8"]) == Shard(index: 8, count: 8))
        #expect(try shard("auto", ["PARALLEL_SEQ": "2", "RECIPE_SHARD_COUNT": "3", "PARALLEL_JOBSLOT": "1"]) == Shard(index: 2, count: 3))
        #expect(refusal("auto", ["PARALLEL_SEQ": "2"]).contains("GNU parallel does not export the number of jobs"))
        #expect(refusal("auto/8", ["PARALLEL_SEQ": "9"]).contains("outside 1…8"))
        #expect(refusal("auto/8", ["PARALLEL_SEQ": "0"]).contains("outside 1…8"))
        // The job slot ({%}) is not a shard: slots are reused by later jobs. It alone says nothing.
        #expect(refusal("auto/8", ["PARALLEL_JOBSLOT": "2"]).contains("no task index"))
    }

    @Test("no engine, two engines, malformed values and a malformed auto/N are refused with what was found")
    func refusals() {
        let none = refusal("auto", ["SLURM_JOB_ID": "42", "HOME": "/root"])
        for name in ["SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_COUNT", "JOB_COMPLETION_INDEX", "PARALLEL_SEQ", "RECIPE_SHARD_COUNT", "--shard K/N"] {
            #expect(none.contains(name), "\(name) in: \(none)")
        }
        #expect(refusal("auto/4", [:]).contains("no task index"))
        // Empty values count as unset.
        #expect(refusal("auto/4", ["JOB_COMPLETION_INDEX": "", "PARALLEL_SEQ": ""]).contains("no task index"))

        var both = Self.slurm(id: 1, min: 0, max: 3, count: 4)
        both["PARALLEL_SEQ"] = "2"
        let m = refusal("auto/4", both)
        #expect(m.contains("SLURM_ARRAY_TASK_ID=1 (a Slurm job array) and PARALLEL_SEQ=2 (GNU parallel)") && m.contains("--shard K/N"), "\(m)")
        #expect(refusal("auto/4", ["JOB_COMPLETION_INDEX": "1", "PARALLEL_SEQ": "2"]).contains("JOB_COMPLETION_INDEX=1"))

        for bad in ["x", "1.0", "0x1", " 1", "+1", "01", "99999999999999999999"] {
            #expect(refusal("auto/4", ["JOB_COMPLETION_INDEX": bad]).contains("JOB_COMPLETION_INDEX=`\(bad)` is not a whole number"))
            var env = Self.slurm(id: 1, min: 0, max: 3, count: 4)
            env["SLURM_ARRAY_TASK_COUNT"] = bad
            #expect(refusal("auto", env).contains("SLURM_ARRAY_TASK_COUNT=`\(bad)` is not a whole number"))
        }
        #expect(refusal("auto", ["PARALLEL_SEQ": "1", "RECIPE_SHARD_COUNT": "four"]).contains("RECIPE_SHARD_COUNT=`four`"))
        for bad in ["auto/", "auto/0", "auto/-2", "auto/x", "auto/4/4", "auto/04"] {
            #expect(refusal(bad, ["JOB_COMPLETION_INDEX": "0"]).contains("auto/N takes a number of shards"), "\(bad)")
        }
    }
}
