/// A colour conversion the kernels run without knowing how it is made: three float planes in,
/// converted in place (the colour module wraps an lcms2 transform in one, for profiles whose
/// conversion is not a curve and a matrix: tables, CMYK-derived RGB spaces). Compared by
/// identity: two boxes are the same step only when they are the same object.
///
/// ```swift
/// let toWorking = PlanarColorTransform(name: "Display P3 → working space") { r, g, b, n in /* … */ }
/// let step = PointStep.colorTransform(toWorking)
/// ```
public final class PlanarColorTransform: Sendable, Hashable, CustomStringConvertible {
    /// What the conversion is, for `recipe explain`.
    public let name: String
    /// Converts `count` pixels of three planes in place; may run on several threads at once.
    public let apply: @Sendable (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, Int) -> Void

    public init(name: String,
                apply: @escaping @Sendable (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, Int) -> Void) {
        self.name = name
        self.apply = apply
    }

    /// One pixel, in double precision at the interface (the conversion itself runs in float).
    public func convert(_ p: SIMD3<Double>) -> SIMD3<Double> {
        var r = Float(p.x), g = Float(p.y), b = Float(p.z)
        apply(&r, &g, &b, 1)
        return SIMD3(Double(r), Double(g), Double(b))
    }

    public var description: String { name }
    public static func == (a: PlanarColorTransform, b: PlanarColorTransform) -> Bool { a === b }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
