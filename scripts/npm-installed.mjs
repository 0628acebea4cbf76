// Checks that DIR/node_modules holds exactly what DIR/package-lock.json
// locks: every locked package installed at its locked version (an optional
// one may be missing: it is for another platform), and nothing installed that
// the lock does not name. It reads the installed packages' own package.json
// files, never the lock's bytes, so it holds whichever npm wrote the lock or
// ran the install.
//
// Usage: node scripts/npm-installed.mjs DIR
// Prints "N packages as locked (M optional ones for other platforms left
// out)" and exits 0; otherwise prints one line per difference (at most 20,
// then a count) and exits 1. Exits 2 when DIR has no package-lock.json.
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

const dir = process.argv[2];
if (!dir || !existsSync(join(dir, "package-lock.json"))) {
    console.error(`npm-installed: no package-lock.json in ${dir ?? "(no directory given)"}`);
    process.exit(2);
}

const lock = JSON.parse(readFileSync(join(dir, "package-lock.json"), "utf8"));
const locked = Object.entries(lock.packages ?? {}).filter(([path]) => path.startsWith("node_modules/"));
const lockedPaths = new Set(locked.map(([path]) => path));

const version = (path) => {
    try {
        return JSON.parse(readFileSync(join(dir, path, "package.json"), "utf8")).version;
    } catch {
        return undefined;
    }
};

const problems = [];
let installed = 0;
let leftOut = 0;
for (const [path, entry] of locked) {
    if (entry.link) continue;
    const got = version(path);
    if (got === undefined) {
        if (entry.optional) leftOut += 1;
        else problems.push(`${path}: locked at ${entry.version}, not installed`);
    } else if (got !== entry.version) {
        problems.push(`${path}: locked at ${entry.version}, installed ${got}`);
    } else {
        installed += 1;
    }
}

// Every package folder under node_modules (scoped ones, nested node_modules),
// as the lock names it: "node_modules/a/node_modules/@s/b".
function* packageFolders(base) {
    let names;
    try {
        names = readdirSync(join(dir, base), { withFileTypes: true });
    } catch {
        return;
    }
    for (const d of names) {
        if (!d.isDirectory() || d.name.startsWith(".")) continue;
        if (d.name.startsWith("@")) {
            for (const s of readdirSync(join(dir, base, d.name), { withFileTypes: true })) {
                if (s.isDirectory()) yield* packageAndNested(`${base}/${d.name}/${s.name}`);
            }
        } else {
            yield* packageAndNested(`${base}/${d.name}`);
        }
    }
}
function* packageAndNested(path) {
    yield path;
    yield* packageFolders(`${path}/node_modules`);
}
for (const path of packageFolders("node_modules")) {
    if (!lockedPaths.has(path) && existsSync(join(dir, path, "package.json"))) {
        problems.push(`${path}: installed ${version(path)}, not in the lock`);
    }
}

if (problems.length > 0) {
    for (const p of problems.slice(0, 20)) console.error(`  ${p}`);
    if (problems.length > 20) console.error(`  (${problems.length - 20} more)`);
    console.error(`npm-installed: ${dir}/node_modules differs from its lock in ${problems.length} place(s)`);
    process.exit(1);
}
console.log(`${installed} packages as locked (${leftOut} optional ones for other platforms left out)`);
