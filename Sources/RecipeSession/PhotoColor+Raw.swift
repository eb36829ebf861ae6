import RecipeCodecs
import RecipeColor
import RecipeCore
import RecipeKernels
#if canImport(Glibc)
import Glibc
#endif

extension PhotoColor {
    /// A camera raw photo's colour: its develop's rows (linear camera RGB, white balanced, on the
    /// scale `RawDecoder.headroom` says) go to the working space by the camera matrix
    /// (`CameraMatrix`), with the develop's exposure, as the first step of the first pass. A raw
    /// has no output colour of its own: `keep` writes sRGB.
    static func raw(_ raw: RawImageInfo, develop: RawDevelop, output choice: OutputProfile, intent: RenderingIntent, info: ImageInfo,
                    photo: String) throws -> PhotoColor {
        // The output side as for an sRGB photo of the same size (no profile, no metadata).
        var plain = info
        plain.raw = nil
        plain.format = .tiff
        plain.metadata = ImageMetadata()
        var color = try PhotoColor(photo: photo, info: plain, output: choice == .keep ? .named("srgb") : choice, intent: intent)
        let camera = raw.camera
        var matrix: [Double]
        var name: String
        if raw.colors == 3, let m = CameraMatrix.cameraToWorking(xyzToCamera: raw.xyzToCamera) {
            matrix = m
            name = "camera RGB of the \(camera) (\(raw.dngVersion != nil ? "its DNG ColorMatrix" : "LibRaw's matrix for it"))"
        } else if raw.colors == 3, raw.libRawCameraToSRGB != [1, 0, 0, 0, 1, 0, 0, 0, 1], raw.libRawCameraToSRGB.contains(where: { $0 != 0 }) {
            // A camera LibRaw knows by its sRGB matrix only (old Kodaks, some compacts).
            matrix = raw.libRawCameraToSRGB
            name = "camera RGB of the \(camera) (LibRaw's sRGB matrix for it)"
        } else {
            matrix = [1, 0, 0, 0, 1, 0, 0, 0, 1]
            name = "camera RGB of the \(camera) (no camera matrix: shown as sRGB)"
            color.warnings.append(ImageWarning(path: photo, "\(camera): no usable camera matrix; its colours are shown as they were recorded"))
        }
        let gain = RawDevelopPlan(develop, raw: raw, scaleDenominator: 1).headroom * pow(2, develop.exposure)
        matrix = matrix.map { $0 * gain }
        color.source = ColorProfile.linearSRGB
        color.sourceName = name
        color.endpoints.sourceName = name
        color.endpoints.source = [PointStep.matrix(matrix34(matrix))]
        color.outputICC = PhotoColor.ICC.replace((color.output ?? ColorProfile.sRGB).iccData)
        return color
    }
}
