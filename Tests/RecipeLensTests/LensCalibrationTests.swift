import Foundation
import RecipeKernels
import Testing
import TestSupport
@testable import RecipeLens

/// A profile's calibration at a focal length, aperture and distance equals lensfun's own
/// interpolation as lensfunpy (lensfun 0.3.4, whose interpolation is 0.3.3's) computes it from the
/// same files: between measured focal lengths, apertures and distances, not only on them.
@Suite struct LensCalibrationTests {
    /// (model, crop factor, focal, aperture, distance) to compare.
    static let points: [(String, Double, Double, Double, Double)] = [
        ("Canon EF 24-105mm f/4L IS USM", 1, 37, 5, 2.2),
        ("Canon EF 24-105mm f/4L IS USM", 1, 90, 8, 1000),
        ("Nikon AF-S Zoom-Nikkor 24-70mm f/2.8G ED", 1, 31.5, 3.3, 3),
        ("Sigma 19mm f/2.8 DN", 1.534, 19, 3.3, 5),
        ("Olympus M.Zuiko Digital ED 12-40mm f/2.8 Pro", 2, 17, 4.5, 1.2),
        ("Tamron SP 70-200mm f/2.8 Di VC USD A009", 1.005, 120, 2.8, 10),
        ("Lumix G Vario 14-42mm f/3.5-5.6 II Asph. Mega OIS", 2, 20, 5, 1000),
    ]

    static let script = """
    import glob, sys, lensfunpy
    db = lensfunpy.Database(glob.glob(sys.argv[1] + '/*.xml'), load_common=False, load_bundled=False)
    for line in sys.stdin:
        model, crop, focal, aperture, distance = line.rstrip('\\n').split('\\t')
        lens = [l for l in db.lenses if l.model == model and abs(l.crop_factor - float(crop)) < 0.001][0]
        d = lens.interpolate_distortion(float(focal))
        t = lens.interpolate_tca(float(focal))
        v = lens.interpolate_vignetting(float(focal), float(aperture), float(distance))
        out = [model]
        for kind, c in (('distortion', d), ('tca', t), ('vignetting', v)):
            out.append(kind + ' ' + (' '.join([str(int(c.model.value))] + [repr(x) for x in c.terms]) if c else 'none'))
        print('\\t'.join(out))
    """

    @Test("distortion, TCA and vignetting terms equal lensfunpy's within 1e-6", LensTestDatabase.required, Requirement.python("lensfunpy"))
    func againstLensfunpy() throws {
        let db = try LensTestDatabase.get()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("recipe-lens-calib-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = folder.appendingPathComponent("interpolate.py")
        try Self.script.write(to: script, atomically: true, encoding: .utf8)
        let input = Self.points.map { "\($0.0)\t\($0.1)\t\($0.2)\t\($0.3)\t\($0.4)" }.joined(separator: "\n") + "\n"
        let inputFile = folder.appendingPathComponent("points.tsv")
        try input.write(to: inputFile, atomically: true, encoding: .utf8)
        let result = try ExternalTool.run("/bin/sh", ["-c", "python3 \"$0\" \"$1\" < \"$2\"", script.path, LensTestDatabase.directory, inputFile.path])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = String(decoding: result.stdout, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == Self.points.count)
        for (point, line) in zip(Self.points, lines) {
            let profile = try #require(db.profiles(named: point.0).first { abs($0.cropFactor - point.1) < 0.001 }, "\(point.0)")
            let ours = profile.calibration(focal: point.2, aperture: point.3, distance: point.4)
            let theirs = Dictionary(uniqueKeysWithValues: line.split(separator: "\t").dropFirst().map { part -> (String, [Double]?) in
                let words = part.split(separator: " ")
                return (String(words[0]), words[1] == "none" ? nil : words.dropFirst().compactMap { Double($0) })
            })
            Self.compare("distortion", Self.terms(ours.distortion), theirs["distortion"] ?? nil, point.0)
            Self.compare("tca", Self.terms(ours.tca), theirs["tca"] ?? nil, point.0)
            Self.compare("vignetting", Self.terms(ours.vignetting), theirs["vignetting"] ?? nil, point.0)
        }
    }

    static func compare(_ kind: String, _ ours: [Double]?, _ theirs: [Double]?, _ lens: String) {
        guard let ours, let theirs else {
            #expect(ours == nil && theirs == nil, "\(lens) \(kind): ours \(String(describing: ours)), lensfunpy's \(String(describing: theirs))")
            return
        }
        #expect(ours.count <= theirs.count && zip(ours, theirs).allSatisfy { abs($0 - $1) <= 1e-6 },
                "\(lens) \(kind): ours \(ours), lensfunpy's \(theirs)")
    }

    /// lensfun's model number and its terms in lensfun's order, as lensfunpy prints them.
    static func terms(_ d: LensCalibration.Distortion?) -> [Double]? {
        switch d {
        case .poly3(let k1)?: [1, k1, 0, 0]
        case .poly5(let k1, let k2)?: [2, k1, k2, 0]
        case .ptlens(let a, let b, let c)?: [3, a, b, c]
        default: nil
        }
    }

    static func terms(_ t: LensCalibration.TCA?) -> [Double]? {
        switch t {
        case .linear(let kr, let kb)?: [1, kr, kb]
        case .poly3(let vr, let vb, let cr, let cb, let br, let bb)?: [2, vr, vb, cr, cb, br, bb]
        default: nil
        }
    }

    static func terms(_ v: LensCalibration.Vignetting?) -> [Double]? {
        if case .pa(let k1, let k2, let k3)? = v { return [1, k1, k2, k3] }
        return nil
    }
}
