/// A plain line diff, for when a file is not a recipe that can be compared by meaning (git's diff
/// driver must still show something): the lines only one side has, under `@@ -old +new @@`
/// headers giving where each run starts.
///
/// ```
/// @@ -4 +4 @@
/// -  - exposure: 0.3
/// +  - exposure: [0.3
/// ```
public enum LineDiff {
    public static func lines(old: String, new: String) -> [String] {
        let a = split(old), b = split(new)
        let common = StageMatching.lcs(a.count, b.count) { a[$0] == b[$1] }
        var out: [String] = []
        var (i, j) = (0, 0)
        for (x, y) in common + [(a.count, b.count)] {
            if i < x || j < y {
                out.append("@@ -\(i + 1) +\(j + 1) @@")
                out += a[i..<x].map { "-" + $0 }
                out += b[j..<y].map { "+" + $0 }
            }
            (i, j) = (x + 1, y + 1)
        }
        return out
    }

    static func split(_ text: String) -> [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }
}
