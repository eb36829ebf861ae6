import RecipeCore
import RecipeOps

/// Composes a straighten with the crops and left–right flips right after it into one resample:
/// the crop and the flip only choose which of the straightened pixels are kept and in which
/// order, so the straighten's inverse map is restricted to that window (and reversed for the
/// flip) and makes only those pixels. Exact: each kept pixel samples the same source position.
///
/// ```
/// straighten −1.5° crop to 2000×3000 · crop 2000×2000 at (0, 500) · flip left–right
///   →   straighten −1.5° crop to 2000×3000, only its 2000×2000 at (0, 500), mirrored left–right
/// ```
///
/// square-crop on photo24 resampled 6 MP of which it kept 4. A lens correction folds the same
/// steps, and a straighten that keeps the canvas before them: the photo is resampled once for
/// all of them. A top–bottom flip is not folded:
/// the straighten streams down its source, and a flipped map would walk it upwards.
enum FuseGeometry {
    static func run(_ plan: ExecutionPlan) -> ExecutionPlan {
        var segments = [plan.segments[0]]
        var barriers: [ExecutionPlan.Barrier] = []
        var i = 0
        while i < plan.barriers.count {
            guard case .geometric(let first, let origin) = plan.barriers[i], let start = Self.window(first) else {
                barriers.append(plan.barriers[i])
                segments.append(plan.segments[i + 1])
                i += 1
                continue
            }
            var (step, origins) = (start, [origin])
            // The steps after it, with no point step between.
            while i + 1 < plan.barriers.count, plan.segments[i + 1].isEmpty,
                  case .geometric(let next, let nextOrigin) = plan.barriers[i + 1], let folded = Self.fold(step, next) {
                step = folded
                origins.append(nextOrigin)
                i += 1
            }
            if origins.count == 1 {
                barriers.append(plan.barriers[i])
            } else {
                barriers.append(.geometric(step, origin: origins.joined(separator: ", ")))
            }
            segments.append(plan.segments[i + 1])
            i += 1
        }
        var out = plan
        out.segments = segments
        out.barriers = barriers
        return out
    }

    /// A straighten as a window of itself (the whole canvas), or nil for other steps.
    static func window(_ step: GeometricStep) -> GeometricStep? {
        switch step {
        case .straighten(let d, let e, let w, let h):
            .straightenWindow(degrees: d, expand: e, width: w, height: h,
                              window: GeometricStep.Window(x: 0, y: 0, width: w, height: h), mirrored: false)
        case .straightenWindow, .lens: step
        default: nil
        }
    }

    /// `next` applied to the windowed straighten `step`, or nil when it does not fold.
    static func fold(_ step: GeometricStep, _ next: GeometricStep) -> GeometricStep? {
        if case .lens(let warp) = step { return fold(warp, next).map { .lens($0) } }
        guard case .straightenWindow(let d, let e, let w, let h, var window, var mirrored, nil) = step else { return nil }
        switch next {
        case .crop(let x, let y, let cw, let ch):
            // Output column j shows canvas column window.x + j, or window.x + width − 1 − j mirrored.
            window.x += mirrored ? window.width - x - cw : x
            window.y += y
            (window.width, window.height) = (cw, ch)
        case .flip(horizontal: true):
            mirrored.toggle()
        default:
            return nil
        }
        return .straightenWindow(degrees: d, expand: e, width: w, height: h, window: window, mirrored: mirrored)
    }

    /// `next` composed into a lens correction's map: a straighten that keeps the canvas (while
    /// nothing is cut from it yet), then crops and left–right flips, as for a straighten.
    static func fold(_ warp: LensWarp, _ next: GeometricStep) -> LensWarp? {
        var warp = warp
        let whole = GeometricStep.Window(x: 0, y: 0, width: warp.geometry.width, height: warp.geometry.height)
        switch next {
        case .straighten(let degrees, false, _, _) where warp.straighten == 0 && warp.window == whole && !warp.mirrored:
            warp.straighten = degrees
        case .crop(let x, let y, let cw, let ch):
            warp.window.x += warp.mirrored ? warp.window.width - x - cw : x
            warp.window.y += y
            (warp.window.width, warp.window.height) = (cw, ch)
        case .flip(horizontal: true):
            warp.mirrored.toggle()
        default:
            return nil
        }
        return warp
    }
}
