import RecipeCodecs

/// What the engine report says of a bench photo or a row's output, from the decoder's header
/// (RecipeCodecs: libjpeg reads it, as `recipe info` does): size, progressive or baseline, and
/// the chroma subsampling.
///
/// ```swift
/// let header = try PhotoHeader.read(path: "photo24-progressive.jpg").get()
/// header.chroma  // "4:2:2"
/// ```
struct PhotoHeader {
    let width: Int
    let height: Int
    let isProgressive: Bool
    /// `4:2:0`, `4:2:2`, `4:4:4` … as `recipe info` names it; "none" for a one-channel file.
    let chroma: String

    /// Why a file's header could not be read (the description names the file).
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    /// The header of the image file at `path`.
    static func read(path: String) -> Result<PhotoHeader, Problem> {
        do {
            let info = try ImageDecoders.open(path).info
            let chroma = info.details.first { $0.label == "chroma subsampling" }?.value ?? "none"
            return .success(PhotoHeader(width: info.width, height: info.height, isProgressive: info.progressive, chroma: chroma))
        } catch {
            return .failure(Problem(description: "\(error)"))
        }
    }
}
