/// `--shard auto` and `--shard auto/N`: this task's shard, read from the variables a batch system
/// gives each task of an array, so one command line serves every task.
///
/// | engine | index (as the engine numbers it) | count |
/// | --- | --- | --- |
/// | Slurm job array | `SLURM_ARRAY_TASK_ID`, from `SLURM_ARRAY_TASK_MIN` by `SLURM_ARRAY_TASK_STEP` | `SLURM_ARRAY_TASK_COUNT` |
/// | Kubernetes Indexed Job | `JOB_COMPLETION_INDEX`, 0-based | `auto/N` or `RECIPE_SHARD_COUNT` |
/// | GNU parallel | `PARALLEL_SEQ`, 1-based | `auto/N` or `RECIPE_SHARD_COUNT` |
///
/// ```swift
/// let env = ["SLURM_ARRAY_TASK_ID": "6", "SLURM_ARRAY_TASK_MIN": "5", "SLURM_ARRAY_TASK_MAX": "8",
///            "SLURM_ARRAY_TASK_STEP": "1", "SLURM_ARRAY_TASK_COUNT": "4"]     // sbatch --array=5-8
/// try Shard.resolve("auto", environment: env).shard   // 2/4
/// try Shard.resolve("3/8", environment: env).shard    // 3/8: an explicit K/N ignores the environment
/// ```
///
/// Refused, so that no task renders a share that is not its own: no engine's variables (naming
/// the ones looked for), variables of two engines at once (GNU parallel run inside a Slurm task),
/// a value that is not a whole number, an index outside its array, a count that disagrees with
/// `auto/N` or `RECIPE_SHARD_COUNT`, and a Slurm array whose tasks are not evenly spaced
/// (`--array=1,3,9`), whose ID cannot be turned into 1…COUNT.
extension Shard {
    /// The variable that gives the number of shards where the engine does not export it.
    public static let countVariable = "RECIPE_SHARD_COUNT"

    /// Every variable `--shard auto` reads.
    public static let environmentVariables = [
        "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_STEP",
        "SLURM_ARRAY_TASK_COUNT", "JOB_COMPLETION_INDEX", "PARALLEL_SEQ", countVariable,
    ]

    /// A shard and, for `auto`, where it came from (`SLURM_ARRAY_TASK_ID=6 of 5-8`), for the log.
    public struct Resolution: Sendable, Equatable {
        /// The shard this task renders.
        public var shard: Shard
        /// Nil for an explicit `K/N`.
        public var origin: String?
    }

    /// `--shard`'s value: `K/N` as given, or `auto` / `auto/N` from `environment`. A pure function
    /// of its arguments; the caller passes the process's environment.
    public static func resolve(_ text: String, environment: [String: String]) throws(Invalid) -> Resolution {
        guard text == "auto" || text.hasPrefix("auto/") else { return Resolution(shard: try Shard(text), origin: nil) }
        var given: Int?
        if text != "auto" {
            let n = text.dropFirst("auto/".count)
            guard let value = Int(n), value >= 1, String(value) == n else {
                throw Invalid(description: "--shard auto/N takes a number of shards N ≥ 1 (for example auto/16), not `\(text)`")
            }
            given = value
        }
        // Empty counts as unset: a shell exports `VAR=` as readily as it leaves VAR out.
        let env = environment.filter { !$0.value.isEmpty }
        func number(_ name: String) throws(Invalid) -> Int? {
            guard let raw = env[name] else { return nil }
            guard let value = Int(raw), String(value) == raw else {
                throw Invalid(description: "--shard \(text): \(name)=`\(raw)` is not a whole number")
            }
            return value
        }
        var count = given
        if let fromVariable = try number(countVariable) {
            guard fromVariable >= 1 else { throw Invalid(description: "--shard \(text): \(countVariable)=\(fromVariable) must be at least 1") }
            if let given, given != fromVariable {
                throw Invalid(description: "--shard \(text) disagrees with \(countVariable)=\(fromVariable): give one number of shards")
            }
            count = fromVariable
        }
        let engines = [("SLURM_ARRAY_TASK_ID", "a Slurm job array"), ("JOB_COMPLETION_INDEX", "a Kubernetes Indexed Job"),
                       ("PARALLEL_SEQ", "GNU parallel")].filter { env[$0.0] != nil }
        guard engines.count <= 1 else {
            let found = engines.map { "\($0.0)=\(env[$0.0]!) (\($0.1))" }.joined(separator: " and ")
            throw Invalid(description: "--shard \(text): found \(found); which one numbers this task is not clear: give --shard K/N")
        }
        guard let engine = engines.first?.0 else {
            throw Invalid(description: "--shard \(text): no task index in the environment: looked for SLURM_ARRAY_TASK_ID "
                + "(Slurm job array, with SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_COUNT), JOB_COMPLETION_INDEX "
                + "(Kubernetes Indexed Job) and PARALLEL_SEQ (GNU parallel); the last two need the number of shards "
                + "as auto/N or in \(countVariable). Outside those, give --shard K/N")
        }
        switch engine {
        case "SLURM_ARRAY_TASK_ID":
            return try slurm(text, number: number, count: count)
        case "JOB_COMPLETION_INDEX":
            let index = try number("JOB_COMPLETION_INDEX")!
            let n = try required(count, text, engine: "a Kubernetes Indexed Job does not export its completions")
            guard (0..<n).contains(index) else {
                throw Invalid(description: "--shard \(text): JOB_COMPLETION_INDEX=\(index) is outside 0…\(n - 1) (0-based, \(n) shards): is completions \(n)?")
            }
            return Resolution(shard: Shard(index: index + 1, count: n), origin: "JOB_COMPLETION_INDEX=\(index), \(n) shards")
        default:
            let seq = try number("PARALLEL_SEQ")!
            let n = try required(count, text, engine: "GNU parallel does not export the number of jobs")
            guard (1...n).contains(seq) else {
                throw Invalid(description: "--shard \(text): PARALLEL_SEQ=\(seq) is outside 1…\(n) (1-based, \(n) shards): give parallel exactly \(n) inputs (seq \(n) | parallel …)")
            }
            return Resolution(shard: Shard(index: seq, count: n), origin: "PARALLEL_SEQ=\(seq), \(n) shards")
        }
    }

    private static func required(_ count: Int?, _ text: String, engine: String) throws(Invalid) -> Int {
        guard let count else {
            throw Invalid(description: "--shard \(text): \(engine): give the number of shards as --shard auto/N or in \(countVariable)")
        }
        return count
    }

    /// Task ID → 1…COUNT for an array `MIN-MAX:STEP` (Slurm exports the step of a range, and of a
    /// list it still exports MIN, MAX and COUNT, by which an uneven list shows).
    private static func slurm(_ text: String, number: (String) throws(Invalid) -> Int?, count given: Int?) throws(Invalid) -> Resolution {
        let id = try number("SLURM_ARRAY_TASK_ID")!
        var missing: [String] = []
        let min = try number("SLURM_ARRAY_TASK_MIN"), taskCount = try number("SLURM_ARRAY_TASK_COUNT")
        if min == nil { missing.append("SLURM_ARRAY_TASK_MIN") }
        if taskCount == nil { missing.append("SLURM_ARRAY_TASK_COUNT") }
        guard let min, let taskCount else {
            throw Invalid(description: "--shard \(text): SLURM_ARRAY_TASK_ID=\(id) but \(missing.joined(separator: " and ")) not set: cannot tell which of how many tasks this is; give --shard K/N")
        }
        let step = try number("SLURM_ARRAY_TASK_STEP") ?? 1
        let max = try number("SLURM_ARRAY_TASK_MAX") ?? min + (taskCount - 1) * step
        let array = "\(min)-\(max)" + (step == 1 ? "" : ":\(step)")
        guard taskCount >= 1, step >= 1, max >= min else {
            throw Invalid(description: "--shard \(text): SLURM_ARRAY_TASK_COUNT=\(taskCount), MIN=\(min), MAX=\(max), STEP=\(step) do not describe an array")
        }
        guard max - min == (taskCount - 1) * step else {
            throw Invalid(description: "--shard \(text): the Slurm array \(min)…\(max) has \(taskCount) tasks, not evenly spaced by \(step) "
                + "(a list such as --array=1,3,9, for which Slurm exports a step of 1?): its task IDs do not map to shards 1…\(taskCount); submit a range (--array=0-\(taskCount - 1)) or give --shard K/N")
        }
        guard (min...max).contains(id), (id - min) % step == 0 else {
            throw Invalid(description: "--shard \(text): SLURM_ARRAY_TASK_ID=\(id) is not a task of the array \(array)")
        }
        if let given, given != taskCount {
            throw Invalid(description: "--shard \(text): the Slurm array \(array) has SLURM_ARRAY_TASK_COUNT=\(taskCount) tasks, not \(given): every shard needs a task")
        }
        let index = (id - min) / step + 1
        return Resolution(shard: Shard(index: index, count: taskCount), origin: "SLURM_ARRAY_TASK_ID=\(id) of the array \(array)")
    }
}
