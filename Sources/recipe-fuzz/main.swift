/// `recipe-fuzz`: an in-process mutation fuzzer for the recipe language's reader, checker and
/// printer (see `Oracle` for what must hold, `Mutator` for how inputs are made, `Seeds` for where
/// they start), which renders every valid input on a small photo and measures its time and memory
/// (`RenderProbe`).
///
/// ```
/// swift build -c release --scratch-path .build-fuzz --product recipe-fuzz
/// .build-fuzz/release/recipe-fuzz --runs 1000000 --corpus Recipes --save-findings /tmp/findings
/// .build-fuzz/release/recipe-fuzz --replay /tmp/findings/finding-1-fmt-errors.recipe.yaml
/// ```
///
/// Exit status: 0 with no findings, 1 with findings (or a crash or hang, reported by the
/// watchdog with the input), 2 for a command-line mistake.
import Glibc
import RecipeCore
import RecipeLanguage
import RecipeSession

let options = FuzzOptions.parseCommandLine()

/// The render probe's photos and output live in a folder of this run's own, removed at the end.
let probeFolder = "/tmp/recipe-fuzz-\(getpid())"
let probe: RenderProbe?
if options.noRender || options.dumpSeeds != nil {
    probe = nil
} else {
    do {
        guard FuzzSystem.makeDirectories(probeFolder) else { throw ImageError(.writeFailed, path: probeFolder, "cannot create the folder") }
        probe = try RenderProbe(folder: probeFolder, size: options.renderSize!, budget: options.memory.budget)
    } catch {
        FuzzSystem.note("recipe-fuzz: cannot set up the render probe: \(error)")
        exit(2)
    }
}
func removeFolder(of probe: RenderProbe?) {
    guard let probe else { return }
    for file in [probe.photo, probe.nominal, probe.output] { unlink(file) }
    rmdir(probe.folder)
}

if let folder = options.dumpSeeds {
    guard FuzzSystem.makeDirectories(folder) else {
        FuzzSystem.note("recipe-fuzz: cannot create \(folder)")
        exit(2)
    }
    for seed in Seeds.builtIn where !FuzzSystem.writeFile(Array(seed.text.utf8), to: folder + "/" + seed.name + ".recipe.yaml") {
        FuzzSystem.note("recipe-fuzz: cannot write \(folder)/\(seed.name).recipe.yaml")
        exit(1)
    }
    exit(0)
}

if let folder = options.findingsFolder, !FuzzSystem.makeDirectories(folder) {
    FuzzSystem.note("recipe-fuzz: cannot create \(folder)")
    exit(2)
}
Watchdog.install(capacity: max(options.maxLength, 1 << 20), folder: options.findingsFolder, hangSeconds: options.hangSeconds)

// Replay: judge the given files once each.
if !options.replay.isEmpty {
    let oracle = Oracle()
    var status: Int32 = 0
    for path in options.replay {
        guard let bytes = FuzzSystem.readFile(path) else {
            FuzzSystem.note("recipe-fuzz: cannot read \(path)")
            status = 2
            continue
        }
        Watchdog.begin(bytes)
        let t0 = FuzzSystem.now()
        let checked = RecipeChecker.check(SourceFile(path: Oracle.path, bytes: bytes), options: oracle.options)
        let verdict = oracle.judge(bytes)
        let dt = FuzzSystem.now() - t0
        print("\(path): \(bytes.count) bytes, \(Format.duration(dt)), \(verdict.hasErrors ? "has errors" : "valid")")
        print("  input: \(FuzzSystem.escaped(bytes))")
        for d in checked.diagnostics { print("  \(d)") }
        if let text = RecipePrinter.format(checked) {
            print("  formatted: \(FuzzSystem.escaped(Array(text.utf8)))")
        }
        if let v = verdict.violation {
            status = 1
            print("  FINDING \(v.kind): " + v.detail.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n  "))
        }
        if let probe, !verdict.hasErrors {
            let outcome = probe.render(bytes)
            print("  render on \(probe.size.width)×\(probe.size.height): \(outcome.status), \(Format.duration(outcome.seconds)), peak +"
                  + "\(RenderStats.mib(outcome.peakBytes)), estimate \(RenderStats.mib(outcome.estimateBytes)), work "
                  + "\(RenderEstimate.workText(outcome.work)) pixel-ops; at 6000×4000 \(outcome.nominalBytes.map(MemoryBudget.text) ?? "not planned")")
        }
    }
    removeFolder(of: probe)
    exit(status)
}

// Seeds: the built-in set, then every recipe under the corpus folders (cut to --max-len).
var seeds = Seeds.builtIn.map { Array($0.text.utf8) }
var corpusFiles = 0
for folder in options.corpusFolders {
    let files = FuzzSystem.recipeFiles(under: folder)
    if files.isEmpty { FuzzSystem.note("recipe-fuzz: no *.recipe.yaml under \(folder)") }
    for path in files {
        guard var bytes = FuzzSystem.readFile(path) else {
            FuzzSystem.note("recipe-fuzz: cannot read \(path)")
            continue
        }
        if bytes.count > options.maxLength { bytes.removeSubrange(options.maxLength...) }
        seeds.append(bytes)
        corpusFiles += 1
    }
}
FuzzSystem.note("recipe-fuzz: \(Seeds.builtIn.count) built-in seeds + \(corpusFiles) corpus files; seed \(options.seed), "
    + "\(options.runs) runs, max-len \(options.maxLength)")

var run = FuzzRun(options: options, seeds: seeds, probe: probe)
run.loop()
removeFolder(of: probe)
if !run.findings.isEmpty { print(run.findingsReport, terminator: "") }
if let folder = options.findingsFolder, !run.slowestInput.isEmpty {
    FuzzSystem.writeFile(run.slowestInput, to: folder + "/slowest.recipe.yaml")
    if !run.renders.slowest.input.isEmpty { FuzzSystem.writeFile(run.renders.slowest.input, to: folder + "/slowest-render.recipe.yaml") }
    if !run.renders.largest.input.isEmpty { FuzzSystem.writeFile(run.renders.largest.input, to: folder + "/largest-peak.recipe.yaml") }
    if !run.renders.ratioLarge.input.isEmpty {
        FuzzSystem.writeFile(run.renders.ratioLarge.input, to: folder + "/peak-over-estimate.recipe.yaml")
    }
}
print(run.summaryLine)
exit(run.findings.isEmpty ? 0 : 1)
