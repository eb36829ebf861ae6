import RecipeCore

extension CheckedRecipe {
    /// The recipe's `output:` settings: the colour its renders are written in, and the export
    /// settings (format, quality, a file-size limit, output sharpening, a watermark, what
    /// metadata goes out). Each is nil when the recipe does not say; of several recipes, a later
    /// one's setting wins (`merged(with:)`), and the command line's over all.
    public struct Output: Sendable, Equatable {
        /// keep, srgb, display-p3, adobe-rgb or rec2020.
        public var profile: String?
        /// perceptual, relative, saturation or absolute.
        public var intent: String?
        /// The format `apply` writes: jpeg, png, tiff, webp, heic or avif.
        public var format: String?
        /// The quality of lossy formats, 1–100, on each format's own scale.
        public var quality: Int?
        /// The most bytes the file may have: the highest quality that fits is found.
        public var maxBytes: Int?
        public var sharpen: Sharpening?
        public var watermark: Watermark?
        public var metadata: Metadata?

        public init(profile: String? = nil, intent: String? = nil) {
            self.profile = profile
            self.intent = intent
        }

        /// What the settings mean, as text (part of `apply`'s up-to-date key): the colour line as
        /// it was before the export settings, then a line for each export setting given.
        public var signature: String {
            var out = "output \(profile ?? "-") \(intent ?? "-")\n"
            if let format { out += "format \(format)\n" }
            if let quality { out += "quality \(quality)\n" }
            if let maxBytes { out += "max-bytes \(maxBytes)\n" }
            if let s = sharpen { out += "sharpen \(s.target) \(s.amount)\n" }
            if let w = watermark { out += "watermark \(w.image) \(w.position) \(w.scale) \(w.margin) \(w.opacity)\n" }
            if let m = metadata {
                out += "metadata \(m.keep) location \(m.stripLocation) serials \(m.stripSerials)\n"
                    + "copyright \(m.copyright.map { "\($0.utf8.count):\($0)" } ?? "-")\ncreator \(m.creator.map { "\($0.utf8.count):\($0)" } ?? "-")\n"
            }
            return out
        }

        /// These settings with `later`'s where it says something.
        public func merged(with later: Output) -> Output {
            var out = self
            out.profile = later.profile ?? profile
            out.intent = later.intent ?? intent
            out.format = later.format ?? format
            out.quality = later.quality ?? quality
            out.maxBytes = later.maxBytes ?? maxBytes
            out.sharpen = later.sharpen ?? sharpen
            out.watermark = later.watermark ?? watermark
            out.metadata = later.metadata ?? metadata
            return out
        }
    }

    /// `sharpen: screen` or `{for: matte, amount: high}`: an unsharp mask in output pixels, run
    /// after the last resize (the display size's too), for the medium the file is for.
    public struct Sharpening: Sendable, Equatable {
        /// screen, matte or glossy.
        public var target: String
        /// low, standard or high.
        public var amount: String

        public init(target: String, amount: String = "standard") {
            self.target = target
            self.amount = amount
        }
    }

    /// `watermark: {image: logo.png, position: bottom-right, scale: 20%, margin: 2%, opacity: 0.7}`.
    public struct Watermark: Sendable, Equatable {
        /// The PNG as the recipe names it, and the path it is read from (the recipe's folder
        /// joined, or as given when absolute).
        public var image: String
        public var path: String
        /// top-left, top, top-right, left, center, right, bottom-left, bottom or bottom-right.
        public var position: String = "bottom-right"
        /// The watermark's width as a share of the photo's width (0.2: a fifth).
        public var scale: Double = 0.2
        /// The gap to the photo's edges, as a share of its shorter side.
        public var margin: Double = 0.02
        /// 0 (invisible) to 1 (the PNG's own alpha).
        public var opacity: Double = 0.7

        public init(image: String, path: String) {
            self.image = image
            self.path = path
        }
    }

    /// `metadata: {keep: copyright, strip: [location, serials], copyright: "…", creator: "…"}`.
    public struct Metadata: Sendable, Equatable {
        /// all, copyright or none.
        public var keep = "all"
        public var stripLocation = false
        public var stripSerials = false
        public var copyright: String?
        public var creator: String?

        public init() {}
    }
}

extension CheckedRecipe.Output {
    /// The values `output:` takes, for messages, the schema and the docs.
    public enum Choices {
        public static let profiles = ["keep", "srgb", "display-p3", "adobe-rgb", "rec2020"]
        public static let intents = ["perceptual", "relative", "saturation", "absolute"]
        public static let formats = ["jpeg", "png", "tiff", "webp", "heic", "avif"]
        public static let sharpenTargets = ["screen", "matte", "glossy"]
        public static let sharpenAmounts = ["low", "standard", "high"]
        public static let positions = ["top-left", "top", "top-right", "left", "center", "right", "bottom-left", "bottom", "bottom-right"]
        public static let keep = ["all", "copyright", "none"]
        public static let strip = ["location", "serials"]
        public static let keys = ["profile", "intent", "format", "quality", "max-bytes", "sharpen", "watermark", "metadata"]
    }
}
