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

    @Test("an atomic output of several MiB, its head rewritten after a seek back (as TIFF does), reads back whole")
    func atomicOutputLarge() throws {
        let dir = TestPaths.temporaryDirectory("atomic-large")
        defer { try? FileManager.default.removeItem(at: dir) }
        let dest = dir.appendingPathComponent("big.bin").path
        // 3.5 MiB of a pattern in odd-sized writes: the stream hands each MiB to writeback as it
        // passes, and the seek back to 0 and on to the end must keep every byte in its place.
        var expected = [UInt8]((0..<(3 << 20) + (1 << 19)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 11) })
        let out = try AtomicOutputFile(path: dest)
        var at = 0
        while at < expected.count {
            let n = min(12_345, expected.count - at)
            #expect(expected[at..<(at + n)].withUnsafeBytes { fwrite($0.baseAddress, 1, n, out.handle) } == n)
            at += n
        }
        let head: [UInt8] = [0x49, 0x49, 0x2A, 0x00]
        #expect(fseeko(out.handle, 0, SEEK_SET) == 0)
        #expect(fwrite(head, 1, head.count, out.handle) == head.count)
        #expect(fseeko(out.handle, 0, SEEK_END) == 0 && ftello(out.handle) == off_t(expected.count))
        #expect(fwrite(head, 1, head.count, out.handle) == head.count)
        expected.replaceSubrange(0..<4, with: head)
        expected += head
        try out.commit()
        #expect(FileManager.default.contents(atPath: dest) == Data(expected))
    }
}
