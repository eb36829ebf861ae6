import RecipeCodecs

/// `--format`: the output's encoding.
package enum OutputFormatChoice: String, CaseIterable {
    case same, jpeg, png, tiff, webp, heic, avif

    /// The encoding, nil for the photo's own.
    var fileFormat: ImageFileFormat? {
        switch self {
        case .same: nil
        case .jpeg: .jpeg
        case .png: .png
        case .tiff: .tiff
        case .webp: .webp
        case .heic: .heif
        case .avif: .avif
        }
    }
}
