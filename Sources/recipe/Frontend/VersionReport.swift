internal import CBuildInfo
import RecipeBatch
import RecipeCodecs
import RecipeColor
import RecipeHistory
import RecipeLanguage

/// What `recipe --version` prints: the release, the commit it was built from and the C libraries it
/// runs on, one per line, as `vips --version` and `ffmpeg -version` do:
///
///     recipe 0.11.0 (commit 8941f7f)
///     libjpeg-turbo 2.1.5 (built with)
///     libpng 1.6.39
///     ...
///     LibRaw not installed
///
/// Asked only for `--version`: the libraries recipe loads on first use (libheif, libtiff, LibRaw,
/// libxml2) are loaded here to ask them, which no other command start should pay for. One that
/// cannot be loaded prints "not installed".
enum VersionReport {
    /// The commit baked in at build time (RECIPE_COMMIT, see Package.swift), "unknown" without it.
    static var commit: String { String(cString: rcp_build_commit()) }

    /// The report's lines, without newlines.
    static var lines: [String] {
        let missing = "not installed"
        let libraries: [(String, String)] = [
            ("libjpeg-turbo", CodecLibraries.libjpegTurbo + " (built with)"),
            ("libpng", CodecLibraries.libpng),
            ("libyaml", YAMLReader.libyamlVersion),
            ("Little CMS", LittleCMS.version),
            ("libwebp", CodecLibraries.libwebp),
            ("libheif", CodecLibraries.libheif ?? missing),
            ("libtiff", CodecLibraries.libtiff ?? missing),
            ("LibRaw", CodecLibraries.libRaw ?? missing),
            ("libxml2", DarktableSidecar.libxml2Version ?? missing),
        ]
        let width = libraries.map(\.0.count).max() ?? 0
        return ["recipe \(RecipeVersion.string) (commit \(commit))"]
            + libraries.map { name, version in "  " + name + String(repeating: " ", count: width - name.count) + "  " + version }
    }
}
