import Foundation
import RecipeCore
import Testing
import TestSupport

@Suite("Core vocabulary")
struct CoreTests {
    @Test("pixel buffer rows are 64-byte aligned and sized from the format")
    func bufferLayout() {
        let b = PixelBuffer(width: 37, rowCapacity: 5, format: PixelFormat(.rgb, .uint16))
        #expect(b.rowBytes == 37 * 6)
        #expect(b.rowStride % 64 == 0 && b.rowStride >= b.rowBytes)
        for r in 0..<5 { #expect(Int(bitPattern: b.row(r)) % 64 == 0) }
    }

    @Test("orientation: sizes swap for 5–8; 0 and junk values mean upright")
    func orientation() {
        #expect(Orientation(exifValue: 0) == .up && Orientation(exifValue: 42) == .up)
        for o in Orientation.allCases {
            let (w, h) = o.orientedSize(width: 4, height: 3)
            #expect((w, h) == (o.rawValue >= 5 ? (3, 4) : (4, 3)))
        }
        // 6 (rotate 90° clockwise to view): the upright top-left pixel is the stored bottom-left.
        #expect(Orientation.right.sourceCoordinate(x: 0, y: 0, uprightWidth: 3, uprightHeight: 4) == (0, 2))
    }

    @Test("atomic output: nothing at the destination until commit; abort leaves nothing behind")
    func atomicFile() throws {
        let dir = TestPaths.temporaryDirectory("atomic")
        defer { try? FileManager.default.removeItem(at: dir) }
        let dest = dir.appendingPathComponent("out.bin").path
        let out = try AtomicOutputFile(path: dest)
        fputs("hello", out.handle)
        #expect(!FileManager.default.fileExists(atPath: dest))
        try out.commit()
        #expect(FileManager.default.contents(atPath: dest) == Data("hello".utf8))
        let aborted = try AtomicOutputFile(path: dir.appendingPathComponent("gone.bin").path)
        aborted.abort()
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["out.bin"])
    }
}
