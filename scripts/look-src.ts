// npm run look: the layout of src/ as a reviewer reads it. Rooms are src/'s top-level folders;
// an arrow is a room importing another (type-only imports included: they bind the rooms' code
// together as much as a value does); an arrow is upward when it goes against ROOM_ORDER; a circle
// is a cycle of file imports. Also the largest files and functions. The layout test
// (test/unit/layout/rooms.test.ts) fails on any circle or upward arrow this prints.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { lookAtSources, ROOM_ORDER } from './look/rooms.js';

const checkout = process.argv[2];
const look = lookAtSources(checkout === undefined ? undefined : resolve(checkout));
const print = (line = '') => process.stdout.write(`${line}\n`);

print(`rooms (${look.rooms.length}), lowest first: ${ROOM_ORDER.filter((room) => look.rooms.includes(room)).join(' < ')}`);
print(`arrows (${look.arrows.length}):`);
for (const arrow of look.arrows) print(`  ${arrow.from} -> ${arrow.to}  (${arrow.imports.length} import${arrow.imports.length === 1 ? '' : 's'})`);
print(`upward arrows (${look.upward.length}):`);
for (const arrow of look.upward) for (const edge of arrow.imports) print(`  ${edge}`);
print(`circles (${look.circles.length}):`);
for (const circle of look.circles) print(`  ${circle.join(' -> ')}`);
print('largest files (lines):');
for (const file of look.largestFiles.slice(0, 8)) print(`  ${String(file.lines).padStart(4)}  ${file.path}`);
print('largest functions (lines):');
for (const fn of look.largestFunctions.slice(0, 8)) print(`  ${String(fn.lines).padStart(4)}  ${fn.path}: ${fn.name}`);

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href && (look.upward.length > 0 || look.circles.length > 0)) process.exitCode = 1;
