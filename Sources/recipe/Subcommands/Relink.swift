import ArgumentParser
import RecipeCore
import RecipeHistory
#if canImport(Glibc)
import Glibc
import RecipeSession
#endif

struct Relink: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relink",
        abstract: "Re-attach an edit to a photo that was renamed or moved (found by content), or accept a replaced original.",
        discussion: """
            A sidecar binds to its original by SHA-256 and size, not by name. After a rename or \
            move, `recipe relink NEW.JPG` looks for the sidecar whose original has the same bytes \
            (in the photo's folder and any --search folders), moves it beside the photo under the \
            new name, and copies the objects its frozen bases need. --accept binds the photo's \
            existing sidecar to the photo's current bytes, after you replaced the original on purpose.

            Examples:
              recipe relink holiday/beach.jpg
              recipe relink beach.jpg --search ../old-folder
              recipe relink IMG_0001.JPG --accept
            """)

    @Argument(help: "The photo, under its new name or place.", completion: .file())
    var photo: String

    @Option(help: ArgumentHelp("Another folder to look for the orphaned sidecar in (repeatable).", valueName: "dir"))
    var search: [String] = []

    @Option(help: ArgumentHelp("The sidecar to attach (instead of searching).", valueName: "sidecar"))
    var from: String?

    @Flag(help: "Bind the photo's own sidecar to the photo's current bytes (the original was replaced on purpose).")
    var accept = false

    func run() throws {
        try LifecycleCommand.run {
            let asset = Asset(photo: photo)
            let binding = try asset.binding()
            let lock = try LifecycleCommand.lock(asset)
            defer { lock.release() }
            if accept {
                var sidecar = try Sidecar.load(asset.sidecarPath)
                try sidecar.bind(to: binding)
                try sidecar.save()
                print("bound \(sidecar.path) to \(photo) (sha256 \(binding.sha256.prefix(12))…, \(binding.size) bytes)")
                return
            }
            if Paths.isFile(asset.sidecarPath), from == nil {
                let sidecar = try Sidecar.load(asset.sidecarPath)
                try asset.verify(sidecar)
                print("\(sidecar.path) already belongs to \(photo)")
                return
            }
            let candidates = try from.map { [$0] } ?? findSidecars(matching: binding)
            guard let found = candidates.first else {
                throw HistoryError(photo, "no sidecar in \(([Paths.folder(of: photo)] + search).joined(separator: ", ")) was made for these bytes (sha256 \(binding.sha256.prefix(12))…)")
            }
            guard candidates.count == 1 else {
                throw HistoryError(photo, "several sidecars were made for these bytes: \(candidates.joined(separator: ", ")); choose one with --from")
            }
            guard !Paths.exists(asset.sidecarPath) else { throw HistoryError(asset.sidecarPath, "exists already; move it away first") }
            var sidecar = try Sidecar.load(found)
            guard let bound = sidecar.checked.original, bound.sha256 == binding.sha256, bound.size == binding.size else {
                throw HistoryError(found, "was not made for \(photo) (its original binding differs)")
            }
            // Objects first, then the sidecar under its new name, then the old one goes.
            let oldStore = ObjectStore.beside(found), newStore = asset.store
            for stage in sidecar.checked.stages {
                guard let base = stage.base else { continue }
                let path = try oldStore.verify(base.pixels)
                if oldStore.root != newStore.root { _ = try newStore.put(file: path, type: base.pixels.type) }
            }
            sidecar = try sidecar.moved(to: asset.sidecarPath)
            try sidecar.bind(to: binding)
            try sidecar.save()
            if unlink(found) != 0 { Console.warning("\(found): could not remove the old sidecar: \(errnoText())") }
            print("moved \(found) to \(asset.sidecarPath)")
        }
    }

    func findSidecars(matching binding: OriginalBinding) throws -> [String] {
        var found: [String] = []
        for folder in [Paths.folder(of: photo)] + search {
            guard let dir = opendir(folder) else { continue }
            var names: [String] = []
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name.hasSuffix(".recipe.yaml") { names.append(name) }
            }
            closedir(dir)
            for name in names.sorted() {
                let path = Paths.join(folder, name)
                guard let sidecar = try? Sidecar.load(path), let o = sidecar.checked.original else { continue }
                if o.sha256 == binding.sha256 && o.size == binding.size { found.append(path) }
            }
        }
        return found
    }
}
