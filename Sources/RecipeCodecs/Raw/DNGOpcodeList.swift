import RecipeCore
import RecipeKernels

/// One of a DNG's opcode lists, parsed from the bytes of its tag: `OpcodeList1` (51008, applied
/// to the raw data as stored), `OpcodeList2` (51009, to the linearised mosaic: a phone's lens
/// shading `GainMap`s) or `OpcodeList3` (51022, to the demosaiced image: `WarpRectilinear`,
/// `FixVignetteRadial`). Adobe DNG Specification 1.4, chapter 7 "Opcode List Processing".
///
/// The layout, big-endian whatever the file's byte order (§7): a LONG count of opcodes, then per
/// opcode a LONG id, a LONG DNG version, a LONG of flags, a LONG byte count and that many bytes of
/// parameters. The file is a stranger's: every count and size is checked against the bytes there
/// are before anything is read or kept, so no allocation follows an unchecked number.
///
/// - A list whose framing breaks (a count of opcodes its bytes cannot hold, an opcode whose byte
///   count runs past the end) is `problem`: none of its opcodes are kept, the photo is rendered
///   without its corrections.
/// - An opcode whose own parameters do not fit its layout is kept as `.malformed` with the reason,
///   and the others of its list stand.
///
/// ```swift
/// let list = DNGOpcodeList.parse(tagBytes, number: 3)
/// list.problem                     // nil
/// list.opcodes.map(\.name)         // ["WarpRectilinear", "FixVignetteRadial"]
/// ```
public struct DNGOpcodeList: Sendable, Hashable {
    /// 1, 2 or 3.
    public var number: Int
    public var opcodes: [DNGOpcode]
    /// Why the list as a whole cannot be read (its opcodes are then empty).
    public var problem: String?

    public init(number: Int, opcodes: [DNGOpcode], problem: String? = nil) {
        (self.number, self.opcodes, self.problem) = (number, opcodes, problem)
    }

    /// "OpcodeList3".
    public var name: String { "OpcodeList\(number)" }

    /// The TIFF tags of lists 1, 2 and 3.
    public static let tags: [UInt16] = [51008, 51009, 51022]

    /// Limits a hostile file meets: at most this many opcodes in a list, planes in a warp, and
    /// gains in a map (a phone's maps hold a few thousand).
    public static let maxOpcodes = 1024
    public static let maxWarpPlanes = 4
    public static let maxGainMapPlanes = 4
    public static let maxGainMapGains = 1 << 22

    /// Parses the bytes of list `number`'s tag.
    public static func parse(_ bytes: [UInt8], number: Int) -> DNGOpcodeList {
        var list = DNGOpcodeList(number: number, opcodes: [])
        var r = BigEndianCursor(bytes[...])
        guard let declared = r.u32() else {
            list.problem = "it is \(bytes.count) bytes long, too short for its count of opcodes"
            return list
        }
        // Each opcode takes at least its 16-byte header.
        let room = (bytes.count - 4) / 16
        guard declared <= room, declared <= maxOpcodes else {
            list.problem = "it says \(declared) opcodes, but its \(bytes.count) bytes hold at most \(min(room, maxOpcodes))"
                + (declared > maxOpcodes ? " (recipe reads up to \(maxOpcodes))" : "")
            return list
        }
        var opcodes: [DNGOpcode] = []
        for index in 0..<Int(declared) {
            let at = r.offset
            guard let id = r.u32(), let version = r.u32(), let flags = r.u32(), let count = r.u32() else {
                list.problem = "opcode \(index + 1) of \(declared) starts at byte \(at), but its 16-byte header runs past the end (\(bytes.count) bytes)"
                return list
            }
            let name = DNGOpcode.names[id] ?? "unknown opcode \(id)"
            guard let parameters = r.take(Int(count)) else {
                list.problem = "opcode \(index + 1) of \(declared) (\(name)) says \(count) bytes of parameters, but \(r.remaining) remain"
                return list
            }
            opcodes.append(DNGOpcode(id: id, dngVersion: version, flags: flags, byteCount: Int(count),
                                     parameters: decode(id: id, parameters)))
        }
        list.opcodes = opcodes
        return list
    }

    /// The parameters of opcode `id`, decoded when it is one of the lens's.
    static func decode(id: UInt32, _ bytes: ArraySlice<UInt8>) -> DNGOpcode.Parameters {
        do {
            switch id {
            case 1: return try warpRectilinear(bytes)
            case 3: return try fixVignetteRadial(bytes)
            case 9: return try .gainMap(gainMap(bytes))
            default: return .other
            }
        } catch {
            return .malformed(error.reason)
        }
    }

    struct Malformed: Error {
        var reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// `WarpRectilinear`: LONG N (planes), N × (kr0 kr1 kr2 kr3 kt0 kt1) DOUBLE, cx cy DOUBLE.
    static func warpRectilinear(_ bytes: ArraySlice<UInt8>) throws(Malformed) -> DNGOpcode.Parameters {
        var r = BigEndianCursor(bytes)
        guard let n = r.u32() else { throw Malformed("its \(bytes.count) bytes of parameters hold no count of planes") }
        guard (1...UInt32(maxWarpPlanes)).contains(n) else { throw Malformed("it has \(n) planes (1 to \(maxWarpPlanes))") }
        let need = 4 + Int(n) * 48 + 16
        guard bytes.count == need else { throw Malformed("it has \(bytes.count) bytes of parameters; \(n) plane\(n == 1 ? " takes" : "s take") \(need)") }
        var planes: [LensCalibration.DNGWarpPlane] = []
        for _ in 0..<Int(n) {
            let k = try finite(&r, 6, "a coefficient")
            planes.append(LensCalibration.DNGWarpPlane(kr: Array(k[0..<4]), kt: Array(k[4..<6])))
        }
        let c = try centre(&r)
        return .warpRectilinear(planes: planes, centerX: c.x, centerY: c.y)
    }

    /// `FixVignetteRadial`: k0 … k4, cx, cy, all DOUBLE.
    static func fixVignetteRadial(_ bytes: ArraySlice<UInt8>) throws(Malformed) -> DNGOpcode.Parameters {
        guard bytes.count == 56 else { throw Malformed("it has \(bytes.count) bytes of parameters; it takes 56") }
        var r = BigEndianCursor(bytes)
        let k = try finite(&r, 5, "a coefficient")
        let c = try centre(&r)
        return .fixVignetteRadial(k: k, centerX: c.x, centerY: c.y)
    }

    /// `GainMap`: the area (Top, Left, Bottom, Right LONG; Plane, Planes, RowPitch, ColPitch
    /// LONG), MapPointsV, MapPointsH LONG, MapSpacingV, MapSpacingH, MapOriginV, MapOriginH
    /// DOUBLE, MapPlanes LONG, then the gains FLOAT, row by row, each point's planes together.
    static func gainMap(_ bytes: ArraySlice<UInt8>) throws(Malformed) -> DNGGainMap {
        var r = BigEndianCursor(bytes)
        guard bytes.count >= 76, let t = r.i32(), let l = r.i32(), let b = r.i32(), let rt = r.i32(),
              let plane = r.u32(), let planes = r.u32(), let rowPitch = r.u32(), let colPitch = r.u32(),
              let pointsV = r.u32(), let pointsH = r.u32(), var spacingV = r.f64(), var spacingH = r.f64(),
              var originV = r.f64(), var originH = r.f64(), let mapPlanes = r.u32()
        else { throw Malformed("it has \(bytes.count) bytes of parameters, fewer than the 76 before its gains") }
        guard planes >= 1, plane < 65536, planes < 65536 else { throw Malformed("it applies to \(planes) planes from plane \(plane)") }
        guard rowPitch >= 1, colPitch >= 1 else { throw Malformed("its row and column pitch are \(rowPitch) and \(colPitch) (at least 1)") }
        if b > t && rt > l {
            guard Int(rowPitch) <= Int(b) - Int(t), Int(colPitch) <= Int(rt) - Int(l) else {
                throw Malformed("its pitch \(rowPitch)×\(colPitch) is larger than its area (\(Int(b) - Int(t))×\(Int(rt) - Int(l)))")
            }
        } else if rowPitch != 1 || colPitch != 1 {
            throw Malformed("its area is empty (the whole image) but its pitch is \(rowPitch)×\(colPitch), not 1×1")
        }
        guard pointsV >= 1, pointsH >= 1 else { throw Malformed("its grid is \(pointsV)×\(pointsH) points") }
        guard (1...UInt32(maxGainMapPlanes)).contains(mapPlanes) else { throw Malformed("it has \(mapPlanes) map planes (1 to \(maxGainMapPlanes))") }
        // A one-point axis has no spacing (the DNG SDK reads it as 1, origin 0).
        if pointsV == 1 { (spacingV, originV) = (1, 0) }
        if pointsH == 1 { (spacingH, originH) = (1, 0) }
        guard [spacingV, spacingH, originV, originH].allSatisfy(\.isFinite), spacingV > 0, spacingH > 0 else {
            throw Malformed("its spacing \(spacingV)×\(spacingH) or origin \(originV), \(originH) is not a positive finite number")
        }
        let (vh, o1) = Int(pointsV).multipliedReportingOverflow(by: Int(pointsH))
        let (total, o2) = vh.multipliedReportingOverflow(by: Int(mapPlanes))
        guard !o1, !o2, total <= maxGainMapGains else { throw Malformed("its grid of \(pointsV)×\(pointsH)×\(mapPlanes) gains is over the limit of \(maxGainMapGains)") }
        guard bytes.count == 76 + 4 * total else {
            throw Malformed("it has \(bytes.count) bytes of parameters; \(pointsV)×\(pointsH)×\(mapPlanes) gains take \(76 + 4 * total)")
        }
        var gains: [Float] = []
        gains.reserveCapacity(total)
        for _ in 0..<total {
            guard let g = r.f32(), g.isFinite else { throw Malformed("gain \(gains.count + 1) is not a finite number") }
            gains.append(g)
        }
        return DNGGainMap(top: Int(t), left: Int(l), bottom: Int(b), right: Int(rt), plane: Int(plane), planes: Int(planes),
                          rowPitch: Int(rowPitch), colPitch: Int(colPitch), pointsV: Int(pointsV), pointsH: Int(pointsH),
                          spacingV: spacingV, spacingH: spacingH, originV: originV, originH: originH,
                          mapPlanes: Int(mapPlanes), gains: gains)
    }

    /// `count` DOUBLEs, each finite.
    private static func finite(_ r: inout BigEndianCursor, _ count: Int, _ what: String) throws(Malformed) -> [Double] {
        var values: [Double] = []
        for _ in 0..<count {
            guard let v = r.f64() else { throw Malformed("its parameters end early") }
            guard v.isFinite else { throw Malformed("\(what) is not a finite number") }
            values.append(v)
        }
        return values
    }

    /// The optical centre (cx, cy), each a fraction of the image in [0, 1] (the DNG SDK refuses others).
    private static func centre(_ r: inout BigEndianCursor) throws(Malformed) -> (x: Double, y: Double) {
        let c = try finite(&r, 2, "the optical centre")
        guard (0...1).contains(c[0]), (0...1).contains(c[1]) else {
            throw Malformed("its optical centre (\(c[0]), \(c[1])) is outside the image (0 to 1)")
        }
        return (c[0], c[1])
    }
}

/// Big-endian numbers read from a slice, nil past its end: DNG opcode lists are big-endian in
/// every file (DNG 1.4 §7).
struct BigEndianCursor {
    let bytes: ArraySlice<UInt8>
    private(set) var offset: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        offset = bytes.startIndex
    }

    var remaining: Int { bytes.endIndex - offset }

    /// The next `count` bytes, nil (and nothing consumed) when fewer remain.
    mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, count <= remaining else { return nil }
        defer { offset += count }
        return bytes[offset..<(offset + count)]
    }

    private mutating func number(_ size: Int) -> UInt64? {
        take(size).map { $0.reduce(0) { $0 << 8 | UInt64($1) } }
    }

    mutating func u32() -> UInt32? { number(4).map { UInt32($0) } }
    mutating func i32() -> Int32? { u32().map { Int32(bitPattern: $0) } }
    mutating func f32() -> Float? { u32().map { Float(bitPattern: $0) } }
    mutating func f64() -> Double? { number(8).map { Double(bitPattern: $0) } }
}
