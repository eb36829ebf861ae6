import RecipeCore
import RecipeKernels
#if canImport(Glibc)
import Glibc
#endif

/// A DNG's opcode lists: the processing its maker asks of every reader, read from the file's raw
/// IFD (Adobe DNG Specification 1.4, chapter 7 "Opcode List Processing"), and what recipe takes
/// from them: the lens's distortion, chromatic aberration and vignetting in `OpcodeList3`
/// (`lensCalibration`) and the lens shading of `OpcodeList2` (`gainMaps`, which the develop
/// multiplies into the mosaic before the demosaic).
///
/// LibRaw 0.20 neither applies nor hands out the opcode lists, so they are read here from the
/// file's TIFF structure: IFD0, its SubIFDs, and in the raw IFD (the one whose NewSubFileType is
/// 0, the CFA data) the three `OpcodeList` tags and `ActiveArea`. A list found only in IFD0 is
/// taken too (some editors write it there). Only those tags' values are read.
///
/// ```swift
/// let opcodes = DNGOpcodes.read(path: "IMG_0001.DNG")
/// opcodes?.lensCalibration?.distortion   // .dngWarp(planes: [...], centerX: 0.5, centerY: 0.5)
/// opcodes?.warnings                      // ["OpcodeList3: opcode 1 of 2 (WarpRectilinear) is malformed: …"]
/// ```
public struct DNGOpcodes: Sendable, Hashable {
    /// The lists the file has, in order (1, 2, 3).
    public var lists: [DNGOpcodeList]
    /// The image the lists apply to: the raw IFD's ActiveArea (its whole image without one), in
    /// the stored orientation. `OpcodeList2`'s areas and `OpcodeList3`'s centres are relative to it.
    public var imageWidth: Int
    public var imageHeight: Int
    /// Problems with the tags themselves (a list pointing outside the file, or too large).
    public var problems: [String]

    public init(lists: [DNGOpcodeList], imageWidth: Int, imageHeight: Int, problems: [String] = []) {
        (self.lists, self.imageWidth, self.imageHeight, self.problems) = (lists, imageWidth, imageHeight, problems)
    }

    /// The most bytes of opcode lists read from one file.
    public static let maxBytes = 32 << 20

    /// List `number` (1, 2, 3), when the file has it.
    public func list(_ number: Int) -> DNGOpcodeList? { lists.first { $0.number == number } }

    // MARK: What recipe takes from them

    /// The first `WarpRectilinear` of `OpcodeList3` (of 1 or 3 planes) and its first
    /// `FixVignetteRadial`, as the numbers of a lens correction; nil when it has neither. The
    /// coordinates are `DNGLensMaps`'s, over an `imageWidth` × `imageHeight` image.
    public var lensCalibration: LensCalibration? {
        var c = LensCalibration(source: .camera("DNG OpcodeList3"))
        for op in list(3)?.opcodes ?? [] {
            switch op.parameters {
            case .warpRectilinear(let planes, let cx, let cy) where c.distortion == nil && (planes.count == 1 || planes.count == 3):
                c.distortion = .dngWarp(planes: planes, centerX: cx, centerY: cy)
            case .fixVignetteRadial(let k, let cx, let cy) where c.vignetting == nil:
                c.vignetting = .dngRadial(k: k, centerX: cx, centerY: cy)
            default: break
            }
        }
        return c.isEmpty ? nil : c
    }

    /// Whether `OpcodeList3` corrects the vignetting before it warps (the order of its opcodes):
    /// the gain then follows the uncorrected image's geometry.
    public var vignetteBeforeWarp: Bool {
        let ops = list(3)?.opcodes ?? []
        guard let v = ops.firstIndex(where: { if case .fixVignetteRadial = $0.parameters { true } else { false } }),
              let w = ops.firstIndex(where: { if case .warpRectilinear = $0.parameters { true } else { false } }) else { return false }
        return v < w
    }

    /// `OpcodeList2`'s gain maps that apply to a mosaic (plane 0), in order.
    public var gainMaps: [DNGGainMap] {
        (list(2)?.opcodes ?? []).compactMap { if case .gainMap(let m) = $0.parameters, m.appliesToMosaic { m } else { nil } }
    }

    /// What a render should say about the lists: a list or an opcode that cannot be read, an
    /// opcode recipe does not apply though the file says it may not be skipped, a lens opcode of a
    /// kind recipe cannot use. Each names the list, the opcode and the problem.
    public var warnings: [String] {
        var out = problems
        var warpUsed = false, vignetteUsed = false
        for list in lists {
            if let problem = list.problem {
                out.append("\(list.name) is malformed: \(problem); none of its corrections are applied")
                continue
            }
            for (i, op) in list.opcodes.enumerated() {
                let which = "\(list.name): opcode \(i + 1) of \(list.opcodes.count) (\(op.name))"
                switch op.parameters {
                case .malformed(let why):
                    out.append("\(which) is malformed: \(why); not applied")
                case .warpRectilinear(let planes, _, _) where list.number == 3:
                    if planes.count != 1 && planes.count != 3 {
                        out.append("\(which) has \(planes.count) planes, for an image of \(planes.count) colours; not applied to this RGB develop")
                    } else if warpUsed {
                        out.append("\(which) is a second warp; only the first is applied")
                    } else {
                        warpUsed = true
                    }
                case .fixVignetteRadial where list.number == 3:
                    if vignetteUsed { out.append("\(which) is a second vignetting correction; only the first is applied") }
                    vignetteUsed = true
                case .gainMap(let m) where list.number == 2:
                    if !m.appliesToMosaic { out.append("\(which) is for plane \(m.plane) of a multi-plane image; not applied to a mosaic") }
                default:
                    if !op.isOptional { out.append("\(which) is not marked optional, but recipe does not apply it: the render may differ from the camera maker's") }
                }
            }
        }
        return out
    }

    /// `recipe info`'s lines: one per list, its opcodes in order, the lens ones with their
    /// parameters, the others by name, the malformed ones with their problem.
    public var details: [(label: String, value: String)] {
        lists.map { list in
            guard list.problem == nil else { return (list.name, "malformed: \(list.problem!)") }
            let ops = list.opcodes.map { op -> String in
                let flags = [op.isOptional ? "optional" : nil, op.isPreviewOnly ? "skipped in previews" : nil].compactMap { $0 }
                let head = op.name + (flags.isEmpty ? "" : " (\(flags.joined(separator: ", ")))")
                if case .other = op.parameters { return head }
                return "\(head): \(op.summary)"
            }
            return (list.name, ops.isEmpty ? "empty" : ops.joined(separator: "; "))
        }
    }

    // MARK: Reading

    /// The opcode lists of the DNG at `path`; nil when it has none, or when its TIFF structure
    /// cannot be followed to them (LibRaw, which reads the rest, then says what is wrong).
    public static func read(path: String) -> DNGOpcodes? {
        guard let fd = try? InputFile.openRegular(path) else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        let size = Int(st.st_size)
        return read(size: size) { offset, count in
            guard offset >= 0, count >= 0, offset <= size, count <= size - offset else { return nil }
            var bytes = [UInt8](repeating: 0, count: count)
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
            return n == count ? bytes : nil
        }
    }

    /// The opcode lists of a TIFF structure of `size` bytes read through `source(offset, count)`.
    static func read(size: Int, source: (Int, Int) -> [UInt8]?) -> DNGOpcodes? {
        guard let head = source(0, 8), head[0] == head[1], head[0] == 0x49 || head[0] == 0x4D else { return nil }
        let big = head[0] == 0x4D
        let ifd0Offset = big ? head[4..<8].reduce(0) { $0 << 8 | Int($1) } : head[4..<8].reversed().reduce(0) { $0 << 8 | Int($1) }
        let wanted: Set<UInt16> = Set(DNGOpcodeList.tags + [newSubFileType, imageWidthTag, imageLengthTag, subIFDs, activeArea])
        var budget = maxBytes
        func ifd(at offset: Int) -> TIFFRawIFD? {
            try? TIFFRawIFD.read(at: offset, bigEndian: big, parent: nil, budget: &budget, only: wanted, kind: "DNG", source: source)
        }
        guard let ifd0 = ifd(at: ifd0Offset) else { return nil }
        let subs = (ifd0.integers(subIFDs, bigEndian: big) ?? []).prefix(16).compactMap { ifd(at: $0) }
        // The raw IFD: NewSubFileType 0 (the TIFF default when absent), IFD0 first.
        let raw = ([ifd0] + subs).first { ($0.integers(newSubFileType, bigEndian: big)?.first ?? 0) == 0 } ?? ifd0
        var problems = (ifd0.problems + subs.flatMap(\.problems)).map(named)
        var lists: [DNGOpcodeList] = []
        for (i, tag) in DNGOpcodeList.tags.enumerated() {
            guard let entry = raw.entry(tag) ?? ifd0.entry(tag) else { continue }
            guard entry.type == 7 || entry.type == 1 else {
                problems.append("OpcodeList\(i + 1) has TIFF type \(entry.type), not UNDEFINED; not read")
                continue
            }
            lists.append(DNGOpcodeList.parse(entry.value, number: i + 1))
        }
        guard !lists.isEmpty || !problems.isEmpty else { return nil }
        var (width, height) = (raw.integers(imageWidthTag, bigEndian: big)?.first ?? 0, raw.integers(imageLengthTag, bigEndian: big)?.first ?? 0)
        if let a = raw.integers(activeArea, bigEndian: big), a.count == 4, a[2] > a[0], a[3] > a[1] {
            (width, height) = (a[3] - a[1], a[2] - a[0])
        }
        return DNGOpcodes(lists: lists, imageWidth: width, imageHeight: height, problems: problems)
    }

    static let newSubFileType: UInt16 = 254, imageWidthTag: UInt16 = 256, imageLengthTag: UInt16 = 257
    static let subIFDs: UInt16 = 330, activeArea: UInt16 = 50829

    /// A reader's problem with the opcode lists' tags named as the lists ("OpcodeList2 (tag
    /// 0xC741) is too large").
    private static func named(_ problem: String) -> String {
        var text = problem
        for (i, hex) in ["C740", "C741", "C74E"].enumerated() {
            text = text.replacing("DNG tag 0x\(hex)", with: "OpcodeList\(i + 1) (tag 0x\(hex))")
        }
        return text
    }
}
