import ArgumentParser
import RecipeCodecs
import RecipeColor

/// How outputs are encoded, shared by `render` and `apply`.
struct EncodingOptions: ParsableArguments {
    @Option(help: "JPEG quality, 1-100.")
    var quality: Int = 90

    @Option(help: "JPEG chroma subsampling: 420, 422 or 444.")
    var subsampling: JPEGOptions.Subsampling = .s420

    @Flag(help: "Write progressive JPEGs.")
    var progressive = false

    @Flag(help: "Optimize JPEG Huffman tables (smaller, slower).")
    var optimize = false

    @Option(help: "PNG zlib compression level, 0-9.")
    var pngCompression: Int = 6

    @Option(help: ArgumentHelp("The output's colours: keep (the photo's own), srgb, display-p3, adobe-rgb, rec2020, or an RGB ICC file; the file carries the profile its pixels are in (default: the recipe's `output:`, else keep).", valueName: "profile"))
    var profile: OutputProfile?

    @Option(help: ArgumentHelp("Rendering intent of colour conversions: perceptual, relative (relative colorimetric), saturation or absolute (default: the recipe's `output:`, else relative).", valueName: "intent"))
    var intent: RenderingIntent?

    func validate() throws {
        guard (1...100).contains(quality) else { throw ValidationError("--quality must be between 1 and 100") }
        guard (0...9).contains(pngCompression) else { throw ValidationError("--png-compression must be between 0 and 9") }
    }

    var jpeg: JPEGOptions { JPEGOptions(quality: quality, subsampling: subsampling, progressive: progressive, optimizeCoding: optimize) }
    var png: PNGOptions { PNGOptions(compressionLevel: pngCompression) }
}
