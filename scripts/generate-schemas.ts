// Writes docs/schema/*.json from the zod model (npm run schema). A unit test fails when they are stale.
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PUBLISHED_SCHEMAS, renderJsonSchema } from '../src/model/json-schema.js';

const dir = join(import.meta.dirname, '..', 'docs', 'schema');
mkdirSync(dir, { recursive: true });
for (const file of Object.keys(PUBLISHED_SCHEMAS) as (keyof typeof PUBLISHED_SCHEMAS)[]) {
  writeFileSync(join(dir, file), renderJsonSchema(file));
  console.log(`wrote docs/schema/${file}`);
}
