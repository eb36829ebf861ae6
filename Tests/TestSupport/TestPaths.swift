import Foundation

/// Where test inputs live: the committed fixtures, the shared corpus (optional) and the tools.
public enum TestPaths {
    /// The package root (the folder holding Package.swift).
    public static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url
    }()

    /// Committed fixtures shared by every test target.
    public static let fixtures = packageRoot.appendingPathComponent("Tests/Fixtures")

    /// A committed fixture file.
    public static func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

    /// Bundled sample photos (used by the demo too).
    public static let samples = packageRoot.appendingPathComponent("Recipes/photos")
    /// The bundled recipes.
    public static let recipes = packageRoot.appendingPathComponent("Recipes")

    /// ../shared/corpus when it exists (a developer checkout or CI); nil in a bare clone.
    public static let corpus: URL? = {
        let env = ProcessInfo.processInfo.environment["RECIPE_CORPUS"]
        let url = env.map { URL(fileURLWithPath: $0) }
            ?? packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus")
        return FileManager.default.fileExists(atPath: url.appendingPathComponent("MANIFEST.md").path) ? url : nil
    }()

    /// Files of a corpus folder with one of the extensions, sorted; empty without the corpus.
    public static func corpusFiles(_ folder: String, extensions: Set<String>) -> [String] {
        guard let corpus else { return [] }
        let dir = corpus.appendingPathComponent(folder)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir.path) else { return [] }
        return names.filter { extensions.contains(($0 as NSString).pathExtension.lowercased()) }.sorted()
            .map { dir.appendingPathComponent($0).path }
    }

    /// The `recipe` binary built next to the test bundle.
    public static var recipeBinary: String {
        let exe = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var dir = exe.deletingLastPathComponent()
        // …/debug/recipePackageTests.xctest may be a file or a bundle folder.
        while dir.path != "/" {
            let candidate = dir.appendingPathComponent("recipe")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate.path }
            dir.deleteLastPathComponent()
        }
        return packageRoot.appendingPathComponent(".build/debug/recipe").path
    }

    /// A fresh temporary folder, removed by the caller with `cleanup`.
    public static func temporaryDirectory(_ label: String = "recipe-tests") -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// Prints a line to the test log, so skipped sweeps and counts show in CI output.
public func testNote(_ text: String) {
    print("note: \(text)")
}
