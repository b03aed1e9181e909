// Shrinks a production node_modules to what runs on one platform, for the image (the Dockerfile's
// deps stage) and scripts/build-image-tree.sh alike:
//   node scripts/image/prune-node-modules.mjs <node_modules> [--target <rust target triple>]
// @temporalio/core-bridge ships its native module prebuilt for five platforms (about 140 MB) and
// the Rust sources it was built from; it loads only releases/<target>/index.node, where <target>
// is this machine's (its common.js says which). Everything else of the package's that is only an
// input of a source build goes too. Plain Node, no dependencies: it runs before any is installed.
/* global console, process */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const [modules, flag, value] = process.argv.slice(2);
if (!modules || (flag !== undefined && (flag !== '--target' || !value))) {
  console.error('usage: prune-node-modules.mjs <node_modules> [--target <rust target triple>]');
  process.exit(2);
}
const bridge = path.resolve(modules, '@temporalio/core-bridge');
if (!existsSync(path.join(bridge, 'package.json'))) {
  console.error(`prune-node-modules: no @temporalio/core-bridge in ${modules}`);
  process.exit(1);
}
// The triple the bridge itself would load on this machine (x86_64-unknown-linux-gnu in the image).
const target = value ?? createRequire(path.join(bridge, 'index.js'))('./common.js').getPrebuiltTargetName();
const releases = path.join(bridge, 'releases');
if (!existsSync(path.join(releases, target, 'index.node'))) {
  console.error(`prune-node-modules: @temporalio/core-bridge has no prebuilt module for ${target}`);
  process.exit(1);
}

const removed = [];
for (const entry of readdirSync(releases)) if (entry !== target) removed.push(path.join(releases, entry));
// The Rust crate and the scripts that build it: read by `cargo`, never by Node.
for (const entry of ['sdk-core', 'src', 'bridge-macros', 'scripts', 'ts', 'Cargo.toml', 'Cargo.lock'])
  removed.push(path.join(bridge, entry));
for (const file of removed) rmSync(file, { recursive: true, force: true });
console.log(
  `@temporalio/core-bridge: kept releases/${target}; removed ${removed.map((f) => path.relative(bridge, f)).join(', ')}`,
);
