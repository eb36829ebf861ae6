import RecipeCore

extension Operations {
    /// Turns the image clockwise by a multiple of 90°, losslessly (`vips rot`).
    ///
    /// ```yaml
    /// - rotate: 90
    /// ```
    public static let rotate = OperationSpec(
        name: "rotate",
        summary: "Turns the canvas clockwise by 0, 90, 180 or 270 degrees as an exact permutation of pixels (vips rot).",
        opClass: .geometric, space: .none, primary: "angle",
        params: [
            ParamSpec("angle", .angle(0...270, allowed: [0, 90, 180, 270]), required: true,
                      "clockwise turn in degrees: 0, 90, 180 or 270"),
        ],
        example: "rotate: 90",
        geometry: rotatedSize)

    private static func rotatedSize(_ size: CanvasSize, _ params: ParamSet) -> CanvasSize {
        guard let angle = params.number("angle") else { return size }
        let quarterTurns = Int((angle / 90).rounded()) & 3
        return quarterTurns % 2 == 1 ? CanvasSize(width: size.height, height: size.width) : size
    }
}
