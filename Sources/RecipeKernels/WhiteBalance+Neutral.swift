#if canImport(Glibc)
import Glibc
#endif

extension WhiteBalance {
    /// The temperature and tint of a light measured as linear sRGB `light` (`AutoMeasure.illuminant`):
    /// the (temp, tint) whose matrix to (targetTemp, targetTint) (`matrix`) turns `light` into
    /// grey, R = G = B, so that the photo's greys come out grey whatever the target. nil when no
    /// light on the DNG SDK's locus does (a light outside 1,667–∞ K).
    ///
    /// ```swift
    /// WhiteBalance.neutralising([1, 1, 1], targetTemperature: 6500, targetTint: 0)   // ≈ (6504, 3.2): D65
    /// ```
    public static func neutralising(_ light: [Double], targetTemperature: Double, targetTint: Double) -> (temperature: Double, tint: Double)? {
        func cone(_ xyz: [Double]) -> [Double] { (0..<3).map { r in (0..<3).reduce(0.0) { $0 + bradford[r * 3 + $1] * xyz[$1] } } }
        func xyz(_ rgb: [Double]) -> [Double] { (0..<3).map { r in (0..<3).reduce(0.0) { $0 + rgbToXYZ[r * 3 + $1] * rgb[$1] } } }
        let target = xy(temperature: targetTemperature, tint: targetTint)
        let cd = cone([target.x / target.y, 1, (1 - target.x - target.y) / target.y])
        let cl = cone(xyz(light)), cw = cone(xyz([1, 1, 1]))
        // The matrix scales cones by cd / cs: cs = cd · cl / cw takes the light to the white.
        let cs = (0..<3).map { cd[$0] * cl[$0] / cw[$0] }
        let inverse = WhiteBalance.inverse(bradford)
        let source = (0..<3).map { r in (0..<3).reduce(0.0) { $0 + inverse[r * 3 + $1] * cs[$1] } }
        let sum = source[0] + source[1] + source[2]
        guard sum > 0, source.allSatisfy({ $0.isFinite }) else { return nil }
        return temperatureTint(x: source[0] / sum, y: source[1] / sum)
    }

    /// The camera RGB of a light seen as linear sRGB `light` through `cameraToWorking` (3×3,
    /// row-major): what a grey was in the camera before that matrix, nil when the matrix has no
    /// inverse or the light falls outside the camera's positive RGB.
    ///
    /// ```swift
    /// WhiteBalance.camera(light: [2.3, 1, 0.63], cameraToWorking: m)   // [0.45, 0.66, 0.38]
    /// ```
    public static func camera(light: [Double], cameraToWorking: [Double]) -> [Double]? {
        guard cameraToWorking.count == 9, light.count == 3 else { return nil }
        let m = inverse(cameraToWorking)
        let rgb = (0..<3).map { c in (0..<3).reduce(0.0) { $0 + m[3 * c + $1] * light[$1] } }
        return rgb.allSatisfy({ $0 > 0 && $0.isFinite }) ? rgb : nil
    }

    /// The inverse of `xy(temperature:tint:)`: DNG SDK `dng_temperature::Set_xy_coord` (the
    /// isotherm the point lies between), then Newton steps on `xy` itself so that the two
    /// round-trip to 1e-12. nil off the table's ends.
    public static func temperatureTint(x: Double, y: Double) -> (temperature: Double, tint: Double)? {
        let u = 2 * x / (1.5 - x + 6 * y), v = 3 * y / (1.5 - x + 6 * y)
        var last = (dt: 0.0, du: 0.0, dv: 0.0)
        var start: (mired: Double, tint: Double)?
        for index in 1..<isotherms.count {
            let l = (1 + isotherms[index].t * isotherms[index].t).squareRoot()
            var du = 1 / l, dv = isotherms[index].t / l
            let uu = u - isotherms[index].u, vv = v - isotherms[index].v
            var dt = -uu * dv + vv * du
            if dt <= 0 || index == isotherms.count - 1 {
                if dt > 0 { dt = 0 }
                dt = -dt
                let f = index == 1 ? 0 : dt / (last.dt + dt)
                let mired = isotherms[index - 1].r * f + isotherms[index].r * (1 - f)
                let pu = u - (isotherms[index - 1].u * f + isotherms[index].u * (1 - f))
                let pv = v - (isotherms[index - 1].v * f + isotherms[index].v * (1 - f))
                du = du * (1 - f) + last.du * f
                dv = dv * (1 - f) + last.dv * f
                let len = (du * du + dv * dv).squareRoot()
                start = (mired, (pu * du / len + pv * dv / len) * tintScale)
                break
            }
            last = (dt, du, dv)
        }
        guard var (mired, tint) = start, mired > 0 else { return nil }
        for _ in 0..<8 {
            let p = xy(temperature: 1e6 / mired, tint: tint)
            let ex = p.x - x, ey = p.y - y
            if abs(ex) < 1e-13 && abs(ey) < 1e-13 { break }
            let h = 1e-4
            let pm = xy(temperature: 1e6 / (mired + h), tint: tint), pt = xy(temperature: 1e6 / mired, tint: tint + h)
            let (a, b, c, d) = ((pm.x - p.x) / h, (pt.x - p.x) / h, (pm.y - p.y) / h, (pt.y - p.y) / h)
            let det = a * d - b * c
            guard det != 0 else { break }
            mired -= (d * ex - b * ey) / det
            tint -= (-c * ex + a * ey) / det
            guard mired > 0 else { return nil }
        }
        return (1e6 / mired, tint)
    }
}
