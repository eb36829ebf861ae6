import RecipeCore
import RecipeKernels

/// One opcode of a DNG opcode list (Adobe DNG Specification 1.4, chapter 7 "Opcode List
/// Processing"): its header, as every opcode has one, and its parameters, decoded for the three
/// that carry a lens's corrections (`WarpRectilinear`, `FixVignetteRadial`, `GainMap`) and kept
/// by name for the others.
///
/// ```swift
/// let list = DNGOpcodeList.parse(bytes, number: 3)
/// list.opcodes[0].name            // "WarpRectilinear"
/// list.opcodes[0].isOptional      // true
/// list.opcodes[0].summary         // "1 plane, kr 1 −0.02 0.004 0, kt 0 0, centre 0.5 0.5"
/// ```
public struct DNGOpcode: Sendable, Hashable {
    /// The opcode's number (1 WarpRectilinear … 13 ScalePerColumn, 14 WarpRectilinear2).
    public var id: UInt32
    /// The DNG version the opcode was written for, four bytes as `DNGVersion` ("1.3.0.0").
    public var dngVersion: UInt32
    /// Bit 0: optional (a reader that cannot apply it may skip it); bit 1: may be skipped for a
    /// preview-quality render. Other bits are reserved.
    public var flags: UInt32
    /// The bytes of its parameters, as its header says.
    public var byteCount: Int
    public var parameters: Parameters

    /// What the parameters say.
    public enum Parameters: Sendable, Hashable {
        /// `WarpRectilinear` (1): per plane kr0…kr3, kt0, kt1; the optical centre as fractions of
        /// the image (`DNGLensMaps.Warp` evaluates it).
        case warpRectilinear(planes: [LensCalibration.DNGWarpPlane], centerX: Double, centerY: Double)
        /// `FixVignetteRadial` (3): k0…k4 and the optical centre (`DNGLensMaps.Vignette`).
        case fixVignetteRadial(k: [Double], centerX: Double, centerY: Double)
        /// `GainMap` (9).
        case gainMap(DNGGainMap)
        /// An opcode whose parameters are not decoded (known by name or not known at all).
        case other
        /// Parameters that do not fit the opcode's layout, and how.
        case malformed(String)
    }

    public init(id: UInt32, dngVersion: UInt32, flags: UInt32, byteCount: Int, parameters: Parameters) {
        (self.id, self.dngVersion, self.flags, self.byteCount, self.parameters) = (id, dngVersion, flags, byteCount, parameters)
    }

    public var isOptional: Bool { flags & 1 != 0 }
    public var isPreviewOnly: Bool { flags & 2 != 0 }

    /// The specification's name for the opcode, "unknown opcode N" for a number it does not define.
    public var name: String { Self.names[id] ?? "unknown opcode \(id)" }

    /// The opcodes of DNG 1.4 (1 to 13) and 1.6's WarpRectilinear2 (14).
    static let names: [UInt32: String] = [
        1: "WarpRectilinear", 2: "WarpFisheye", 3: "FixVignetteRadial", 4: "FixBadPixelsConstant",
        5: "FixBadPixelsList", 6: "TrimBounds", 7: "MapTable", 8: "MapPolynomial", 9: "GainMap",
        10: "DeltaPerRow", 11: "DeltaPerColumn", 12: "ScalePerRow", 13: "ScalePerColumn", 14: "WarpRectilinear2",
    ]

    /// The problem, when its parameters are malformed.
    public var problem: String? {
        if case .malformed(let why) = parameters { return why }
        return nil
    }

    /// "1.3.0.0".
    public var versionText: String { (0..<4).map { String(dngVersion >> (24 - 8 * $0) & 255) }.joined(separator: ".") }

    /// The parameters in short, for `recipe info`: the lens opcodes' numbers, the others' size.
    public var summary: String {
        func n(_ v: Double) -> String { NumberFormatting.shortest((v * 1e6).rounded() / 1e6) }
        func list(_ v: [Double]) -> String { v.map(n).joined(separator: " ") }
        switch parameters {
        case .warpRectilinear(let planes, let cx, let cy):
            let each = planes.count == 1 ? "kr \(list(planes[0].kr)), kt \(list(planes[0].kt))"
                : planes.enumerated().map { "plane \($0.offset): kr \(list($0.element.kr)), kt \(list($0.element.kt))" }.joined(separator: "; ")
            return "\(planes.count) plane\(planes.count == 1 ? "" : "s"), \(each), centre \(n(cx)) \(n(cy))"
        case .fixVignetteRadial(let k, let cx, let cy):
            return "k \(list(k)), centre \(n(cx)) \(n(cy))"
        case .gainMap(let m):
            let area = m.bottom > m.top && m.right > m.left ? "rows \(m.top)–\(m.bottom), columns \(m.left)–\(m.right)" : "the whole image"
            let range = m.gains.isEmpty ? "" : ", gains \(n(Double(m.gains.min()!)))–\(n(Double(m.gains.max()!)))"
            return "\(m.pointsV)×\(m.pointsH) points × \(m.mapPlanes) plane\(m.mapPlanes == 1 ? "" : "s")\(range), plane \(m.plane)"
                + (m.planes > 1 ? "–\(m.plane + m.planes - 1)" : "") + ", \(area), pitch \(m.rowPitch)×\(m.colPitch)"
        case .other:
            return "\(byteCount) bytes of parameters"
        case .malformed(let why):
            return "malformed: \(why)"
        }
    }
}
