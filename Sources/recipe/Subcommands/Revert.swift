import ArgumentParser
import RecipeCore
import RecipeHistory
import RecipeSession

struct Revert: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revert",
        abstract: "Revert part of a photo's edit: one stage, the top frozen base, or everything; then re-render.",
        discussion: """
            Native stages can be removed (or turned off, keeping them in the file) anywhere. Frozen \
            base layers peel off from the top, since a base's pixels already contain everything \
            below it; stages above a peeled base then apply to what lies below. Removing every \
            layer makes the current version the original again. `recipe history` lists the layers.

            Examples:
              recipe revert IMG_0001.JPG --stage vibrance
              recipe revert IMG_0001.JPG --stage 3 --disable
              recipe revert IMG_0001.JPG --base
              recipe revert IMG_0001.JPG --all
            """)

    @Argument(help: "The photo whose edit to revert.", completion: .file())
    var photo: String

    @Option(help: ArgumentHelp("The stage to remove: its id or its position in `stages:` (1 = first).", valueName: "id|n"))
    var stage: String?

    @Flag(help: "With --stage: turn the stage off (`enabled: false`) instead of removing it.")
    var disable = false

    @Flag(help: "With --stage: turn a disabled stage back on.")
    var enable = false

    @Flag(help: "Peel the top frozen base layer.")
    var base = false

    @Flag(help: "Remove every layer: the current version becomes the original.")
    var all = false

    @OptionGroup var current: CurrentVersionOptions

    func validate() throws {
        let chosen = [stage != nil, base, all].filter { $0 }.count
        guard chosen == 1 else { throw ValidationError("give exactly one of --stage, --base and --all") }
        guard !(disable || enable) || stage != nil else { throw ValidationError("--disable and --enable go with --stage") }
        guard !(disable && enable) else { throw ValidationError("give --disable or --enable, not both") }
    }

    func run() throws {
        try LifecycleCommand.run {
            let asset = Asset(photo: photo)
            guard Paths.isFile(asset.sidecarPath) else { throw HistoryError(photo, "has no edit to revert (no \(asset.sidecarPath))") }
            let lock = try LifecycleCommand.lock(asset)
            var sidecar = try Sidecar.load(asset.sidecarPath)
            guard !sidecar.checked.isForeign else {
                throw HistoryError(sidecar.path, "is foreign adjustment data; `recipe edit` keeps it as a frozen base first")
            }
            try sidecar.requireNoErrors()
            try asset.verify(sidecar)
            // What was done is said once it is written: a refusal leaves the sidecar as it was.
            let done: String
            if let stage {
                let index = try Lifecycle.stageIndex(stage, in: sidecar)
                if disable || enable {
                    try sidecar.setEnabled(enable, stage: index)
                    done = "\(enable ? "enabled" : "disabled") stage \(index)"
                } else {
                    // Named by its id and operation: "removed stage 2 (contrast)", "(exposure-2: exposure)".
                    let removed = sidecar.checked.stages[index - 1]
                    let name = removed.id.map { $0 == removed.op || removed.op == nil ? $0 : "\($0): \(removed.op!)" } ?? removed.op
                    try Lifecycle.revert(stage: stage, in: &sidecar)
                    done = "removed stage \(index)" + (name.map { " (\($0))" } ?? "")
                }
            } else if base {
                let peeled = try Lifecycle.peelBase(in: &sidecar)
                done = "peeled the frozen base \(peeled.format) \(peeled.version) (its pixels stay in \(ObjectStore.folderName)/)"
            } else {
                try Lifecycle.revertAll(in: &sidecar)
                done = "removed every layer"
            }
            try sidecar.verifyObjects(in: asset.store)
            try sidecar.save()
            lock.release()
            print(done)
            print("wrote \(sidecar.path)")
            if !current.noRender { try LifecycleCommand.renderCurrent(sidecar, asset: asset, current: current) }
        }
    }
}
