// A webpack loader for the instrumented workflow bundle (../patch-sites.ts): it hands each source to
// the `transform` function of its options, which runs in the bundling process.
/* global module */
module.exports = function patchSiteLoader(source) {
  const { transform } = this.getOptions();
  return transform(source, this.resourcePath);
};
