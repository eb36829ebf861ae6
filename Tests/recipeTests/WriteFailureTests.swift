import Foundation
import Testing
import TestSupport

/// A write that fails says why, in the system's words, naming the output: a full disk is "no
/// space left on device" whatever the format, not libpng's "Write Error" or libtiff's "Maximum
/// TIFF file size exceeded" (what they made of the failed write before).
@Suite("write failures")
struct WriteFailureTests: CLITest {
    /// Mounting a tmpfs needs root (and a kernel that lets this process mount).
    static let canMount: Bool = {
        guard getuid() == 0, let mount = ExternalTool.find("mount") ?? (FileManager.default.isExecutableFile(atPath: "/bin/mount") ? "/bin/mount" : nil),
              let umount = ExternalTool.find("umount") ?? (FileManager.default.isExecutableFile(atPath: "/bin/umount") ? "/bin/umount" : nil)
        else { return false }
        let dir = TestPaths.temporaryDirectory("tmpfs-probe").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        guard (try? ExternalTool.run(mount, ["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir]))?.status == 0 else { return false }
        _ = try? ExternalTool.run(umount, [dir])
        return true
    }()

    @Test("a full disk: every format's render fails with `OUT: no space left on device`, exit 1, nothing left behind",
          .enabled(if: canMount, "needs root to mount a small tmpfs (a full disk on demand)"))
    func fullDisk() throws {
        let dir = TestPaths.temporaryDirectory("full-disk").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let mount = ExternalTool.find("mount") ?? "/bin/mount", umount = ExternalTool.find("umount") ?? "/bin/umount"
        // 64 KiB: less than any of these outputs of the 768×512 photo (the lossless HEIC is ~500 KB).
        let r = try ExternalTool.run(mount, ["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir])
        try #require(r.status == 0, "mount: \(r.stderr)")
        defer { _ = try? ExternalTool.run(umount, [dir]) }
        let photo = TestPaths.samples.appendingPathComponent("kodim03.png").path
        for (ext, extra) in [("png", []), ("tif", []), ("jpg", ["--quality", "100"]), ("webp", ["--lossless"]), ("heic", ["--lossless"])] {
            let out = dir + "/out.\(ext)"
            let result = try recipe(["render", photo, "-o", out] + extra)
            #expect(result.status == 1, "\(ext): exit \(result.status)")
            #expect(result.stderr.contains("\(out): no space left on device"), "\(ext): \(result.stderr)")
            let left = try FileManager.default.contentsOfDirectory(atPath: dir)
            #expect(left.isEmpty, "\(ext): left behind \(left)")
        }
    }
}
