/// Thrown after the command has already reported what went wrong.
package struct CommandFailure: Error {
    package var exitCode: Int32

    package init(exitCode: Int32) { self.exitCode = exitCode }
}
