/// `--progress`.
package enum ProgressMode: String, CaseIterable {
    case auto, bar, lines, none
}
