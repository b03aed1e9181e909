// The layout of src/ as `npm run look` prints it (scripts/look/rooms.ts): no room imports a room
// above it in ROOM_ORDER, no file imports itself through any chain, no file is over 250 lines.
// The reader is shown finding what it forbids on a small tree of its own.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lookAtSources } from '../../../scripts/look/rooms.js';

const MAX_LINES = 250;

describe('the layout of src/', () => {
  const look = lookAtSources();

  it('reads every room and the arrows between them', () => {
    expect(look.rooms).toEqual(expect.arrayContaining(['model', 'contract', 'core', 'kube', 'activities', 'workflows', 'worker', 'client']));
    expect(look.arrows.map((arrow) => `${arrow.from}->${arrow.to}`)).toEqual(expect.arrayContaining(['workflows->core', 'activities->kube', 'worker->activities']));
  });

  it('has no upward arrow', () => {
    expect(look.upward.flatMap((arrow) => arrow.imports)).toEqual([]);
  });

  it('has no circle of imports', () => {
    expect(look.circles.map((circle) => circle.join(' -> '))).toEqual([]);
  });

  it(`has no file over ${MAX_LINES} lines`, () => {
    expect(look.largestFiles.filter((file) => file.lines > MAX_LINES).map((file) => `${file.path}: ${file.lines}`)).toEqual([]);
  });
});

describe('the reader finds what the layout forbids', () => {
  const root = mkdtempSync(join(tmpdir(), 'dispatch-look-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  write('src/model/a.ts', "import type { B } from '../core/b.js';\nexport type A = B;\n");
  write('src/core/b.ts', "import { c } from './c.js';\nexport type B = string;\nexport const b = c;\n");
  write('src/core/c.ts', "import { b } from './b.js';\nexport const c = () => b;\n");
  write('src/worker/w.ts', `${"import { c } from '../core/c.js';\n"}${'export const w = c;\n'.repeat(300)}`);
  const look = lookAtSources(root);

  it('an upward arrow, type-only imports included', () => {
    expect(look.upward.flatMap((arrow) => arrow.imports)).toEqual(['src/model/a.ts -> src/core/b.ts']);
  });

  it('a circle', () => {
    expect(look.circles).toEqual([['src/core/b.ts', 'src/core/c.ts', 'src/core/b.ts']]);
  });

  it('the largest file', () => {
    expect(look.largestFiles[0]).toEqual({ path: 'src/worker/w.ts', lines: 301 });
  });
});
