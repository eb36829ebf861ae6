import Foundation
import Testing
import TestSupport

/// The shell completions the package installs (`recipe --generate-completion-script`): in bash with
/// bash-completion loaded, as an interactive shell has it, a photo, recipe or folder argument
/// completes file names (it completed nothing, which is worse than no completion).
@Suite("shell completion")
struct CompletionTests: CLITest {
    static let bashCompletion = "/usr/share/bash-completion/bash_completion"

    /// What bash offers after `line` (ending in the word being completed) in `dir`.
    func complete(_ line: String, in dir: String, script: String) throws -> [String] {
        let words = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        let driver = """
            source \(Self.bashCompletion)
            source '\(script)'
            func=$(complete -p recipe | sed -n 's/.* -F \\([^ ]*\\) .*/\\1/p')
            COMP_LINE='\(line)'; COMP_POINT=${#COMP_LINE}
            COMP_WORDS=(\(words.map { "'\($0)'" }.joined(separator: " "))); COMP_CWORD=\(words.count - 1)
            cd '\(dir)' && "$func" recipe '\(words.last!)' '\(words[words.count - 2])'
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let r = try ExternalTool.run("/bin/bash", ["-c", driver])
        #expect(r.status == 0, "\(r.stderr)")
        return String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").map(String.init).sorted()
    }

    @Test("bash completes file names for photos, recipes and folders, options' too", Requirement.file(Self.bashCompletion))
    func bashFiles() throws {
        let dir = TestPaths.temporaryDirectory("completion").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/corpus/shoot", withIntermediateDirectories: true)
        for name in ["corpus/tiny-a.jpg", "corpus/tiny-b.png", "corpus/other.txt", "look.recipe.yaml"] {
            FileManager.default.createFile(atPath: dir + "/" + name, contents: Data())
        }
        let script = dir + "/recipe.bash"
        try ok(["--generate-completion-script", "bash"]).write(toFile: script, atomically: true, encoding: .utf8)
        #expect(try complete("recipe info corpus/tiny", in: dir, script: script) == ["corpus/tiny-a.jpg", "corpus/tiny-b.png"])
        #expect(try complete("recipe render corpus/tiny-a.jpg --recipe lo", in: dir, script: script) == ["look.recipe.yaml"])
        #expect(try complete("recipe apply look.recipe.yaml corpus/sh", in: dir, script: script) == ["corpus/shoot"])
        #expect(try complete("recipe edit corpus/tiny-b", in: dir, script: script) == ["corpus/tiny-b.png"])
    }
}
