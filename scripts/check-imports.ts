/**
 * `npm run lint`'s layering check: no import climbs the folder order of LAYERS, no import cycle
 * (scripts/lib/import-layers.ts). Exits 1 with one line per problem.
 */
import { checkImports, describeProblems } from "./lib/import-layers";

const check = checkImports(process.cwd());
const problems = describeProblems(check);
for (const p of problems) console.error(p);
if (problems.length > 0) process.exit(1);
console.log(`imports: ${check.files} files, layers respected, no cycles`);
