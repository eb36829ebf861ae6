/// The release. It is also the engine version `recipe apply` records beside every output
/// (`"engine": "recipe 0.11.0"`): a release that changes any output byte must change it, so that
/// batches render again what the new engine draws differently.
package enum RecipeVersion {
    package static let string = "0.11.0"
}
