import ArgumentParser
import RecipeCore
import RecipeCodecs
import RecipeColor
import RecipeSession
#if canImport(Glibc)
import Glibc
#endif

/// How outputs are encoded, shared by `render` and `apply`.
struct EncodingOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Quality of lossy outputs, 1-100, on each format's own scale (default: JPEG 90, WebP 85, HEIC and AVIF 50).", valueName: "n"))
    var quality: Int?

    @Option(help: ArgumentHelp("The most bytes a JPEG, WebP, HEIC or AVIF output may have (300K, 2M): the highest quality that fits, up to --quality, found in a few encodes (default: the recipe's `output: {max-bytes:}`, else no limit).", valueName: "size"))
    var maxBytes: ByteSizeArgument?

    @Flag(help: "Lossless WebP, HEIC and AVIF output.")
    var lossless = false

    @Option(help: "JPEG chroma subsampling: 420, 422 or 444.")
    var subsampling: JPEGOptions.Subsampling = .s420

    @Flag(help: "Write progressive JPEGs.")
    var progressive = false

    @Flag(help: "Optimize JPEG Huffman tables (smaller, slower).")
    var optimize = false

    @Option(help: "PNG zlib compression level, 0-9.")
    var pngCompression: Int = 6

    @Option(help: ArgumentHelp("TIFF compression: deflate, lzw or none (all lossless).", valueName: "method"))
    var tiffCompression: TIFFOptions.Compression = .deflate

    @Option(help: ArgumentHelp("The output's colours: keep (the photo's own), srgb, display-p3, adobe-rgb, rec2020, or an RGB ICC file; the file carries the profile its pixels are in (default: the recipe's `output:`, else keep).", valueName: "profile"))
    var profile: OutputProfile?

    @Option(help: ArgumentHelp("Rendering intent of colour conversions: perceptual, relative (relative colorimetric), saturation or absolute (default: the recipe's `output:`, else relative).", valueName: "intent"))
    var intent: RenderingIntent?

    func validate() throws {
        if let quality, !(1...100).contains(quality) { throw ValidationError("--quality must be between 1 and 100") }
        guard (0...9).contains(pngCompression) else { throw ValidationError("--png-compression must be between 0 and 9") }
        try profile?.requireFile()
        if maxBytes != nil, lossless { throw ValidationError("--max-bytes takes a lossy output: not with --lossless") }
    }

    /// Every format's settings from the options.
    var encoding: OutputEncoding {
        var e = OutputEncoding()
        e.jpeg = JPEGOptions(quality: 90, subsampling: subsampling, progressive: progressive, optimizeCoding: optimize)
        e.png = PNGOptions(compressionLevel: pngCompression)
        e.tiff = TIFFOptions(compression: tiffCompression)
        if let quality { e.setQuality(quality) }
        e.maxBytes = maxBytes?.bytes
        e.lossless = lossless
        return e
    }
}

extension TIFFOptions.Compression: ExpressibleByArgument {}

extension OutputProfile: ExpressibleByArgument {
    /// A `--profile` ICC file that is not there stops the command before anything is done, with
    /// the exit status of any missing file named on the command line (2), naming the file.
    func requireFile() throws {
        guard case .file(let path) = self, access(path, F_OK) != 0 else { return }
        Console.error("\(path): cannot read the output profile (--profile): \(errnoText())")
        // ArgumentParser passes an ExitCode thrown while it validates through as it is (it wraps
        // other errors, which would exit 1).
        throw ExitCode(ExitStatus.usage)
    }
}

extension RenderingIntent: ExpressibleByArgument {}

/// `--max-bytes 300K`: K, M and G are 1024, 1024² and 1024³ (KiB, MiB, GiB); 1K at least.
struct ByteSizeArgument: ExpressibleByArgument {
    var bytes: Int

    init?(argument: String) {
        guard let bytes = ByteSize.parse(argument), bytes >= 1024, bytes <= 1 << 30 else { return nil }
        self.bytes = bytes
    }

    static var defaultCompletionKind: CompletionKind { .default }
}
