/**
 * Each test file sits in the lane that says what it needs (vitest.config.ts), decided by what its
 * imports reach rather than by anyone's judgement, so a new file cannot slip a service into the
 * fast lane:
 *
 *   test/unit/         reaches no service client: no Postgres, Chromium, Temporal or child process
 *   test/integration/  reaches at least one (and so needs Postgres, Chromium or a Temporal server)
 *   test/e2e/          uses the shared stack only
 *   test/e2e-slow/     starts a stack of its own (a second API and worker, a private Postgres)
 *
 * "Reaches" follows value imports through test helpers and product code alike, since a unit test
 * that imports browser/browser-pool.ts can launch Chromium without naming playwright-core itself.
 * Type-only imports are skipped: they vanish at run time.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/** Packages that talk to a service or start a process. Reaching one puts a file outside test/unit. */
const SERVICE_PACKAGES = ['pg', 'playwright-core', 'playwright', '@temporalio/testing', '@temporalio/worker', '@temporalio/client', 'child_process'];
/** Modules that start a stack of their own: reaching one puts an e2e file in test/e2e-slow. */
const OWN_STACK_MODULES = ['scripts/stack.ts', 'test/helpers/private-postgres.ts'];

/** The modules a file imports for their values, as written (`./x.js`, `pg`, `node:fs`). */
function valueImports(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      if (!isTypeOnly(node.importClause)) found.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      if (!node.isTypeOnly) found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteral(arg)) found.push(arg.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function isTypeOnly(clause: ts.ImportClause | undefined): boolean {
  if (!clause) return false; // `import 'x'` runs x
  if (clause.isTypeOnly) return true;
  const named = clause.namedBindings;
  return !clause.name && !!named && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly);
}

/** A package's name (`@temporalio/client/lib/x` → `@temporalio/client`, `node:child_process` → `child_process`). */
function packageName(specifier: string): string {
  const parts = specifier.replace(/^node:/, '').split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/**
 * Everything `entry` reaches through value imports: packages by name, our files by path relative
 * to `root`. Each reached item maps to the file that imported it, so a failure names the chain's end.
 */
function reachedFrom(root: string, entry: string): Map<string, string> {
  const reached = new Map<string, string>();
  const queue = [entry];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    for (const specifier of importsOf(join(root, file))) {
      const target = specifier.startsWith('.') ? resolveLocal(root, file, specifier) : packageName(specifier);
      // A file whose import does not resolve cannot be placed: say so rather than miss what it reaches.
      if (target === undefined) throw new Error(`${file}: cannot resolve ${specifier}`);
      if (reached.has(target)) continue;
      reached.set(target, file);
      if (target.endsWith('.ts')) queue.push(target);
    }
  }
  return reached;
}

/** Product modules are reached from many test files: each is parsed once. */
const parsed = new Map<string, string[]>();
function importsOf(path: string): string[] {
  let specifiers = parsed.get(path);
  if (!specifiers) parsed.set(path, (specifiers = valueImports(path, readFileSync(path, 'utf8'))));
  return specifiers;
}

function resolveLocal(root: string, from: string, specifier: string): string | undefined {
  const base = resolve(root, dirname(from), specifier);
  const candidate = [base.replace(/\.js$/, '.ts'), base, `${base}.ts`, join(base, 'index.ts')].find((c) => c.endsWith('.ts') && existsSync(c));
  return candidate && relative(root, candidate);
}

/** Why `file` needs more than the unit lane gives: `pg (imported by db/connect.ts)`, and the like. */
function servicesReached(root: string, file: string): string[] {
  const reached = reachedFrom(root, file);
  return SERVICE_PACKAGES.filter((p) => reached.has(p)).map((p) => `${p} (imported by ${reached.get(p)})`);
}

function ownStackReached(root: string, file: string): string[] {
  const reached = reachedFrom(root, file);
  return OWN_STACK_MODULES.filter((m) => reached.has(m)).map((m) => `${m} (imported by ${reached.get(m)})`);
}

function testFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => join(dir, f))
    .sort();
}

const ROOT = process.cwd();

describe('test lanes', () => {
  it('keep test/unit free of services: nothing there reaches Postgres, Chromium, Temporal or a child process', () => {
    const files = testFiles('test/unit');
    expect(files.length).toBeGreaterThan(50);
    const offenders = files.flatMap((f) => servicesReached(ROOT, f).map((why) => `${f}: ${why} — move it to test/integration/`));
    expect(offenders).toEqual([]);
  }, 60_000);

  it('keep test/integration for files that need a service: the rest belong in test/unit', () => {
    const files = testFiles('test/integration');
    expect(files.length).toBeGreaterThan(30);
    expect(files.filter((f) => servicesReached(ROOT, f).length === 0).map((f) => `${f} — move it to test/unit/`)).toEqual([]);
  }, 60_000);

  it('keep test/e2e on the shared stack, and files that start their own in test/e2e-slow', () => {
    const shared = testFiles('test/e2e');
    const slow = testFiles('test/e2e-slow');
    expect(shared.length).toBeGreaterThan(10);
    expect(slow.length).toBeGreaterThan(5);
    expect(shared.flatMap((f) => ownStackReached(ROOT, f).map((why) => `${f}: ${why} — move it to test/e2e-slow/`))).toEqual([]);
    expect(slow.filter((f) => ownStackReached(ROOT, f).length === 0).map((f) => `${f} — move it to test/e2e/`)).toEqual([]);
  }, 60_000);

  it('see a service behind a helper, a re-export or a dynamic import, but not behind a type import', () => {
    const root = mkdtempSync(join(tmpdir(), 'trawl-lanes-'));
    const write = (path: string, text: string) => writeFileSync(join(root, path), text);
    try {
      write('pure.ts', "import type { Pool } from 'pg';\nimport { type Client } from 'pg';\nexport type P = Pool | Client;\n");
      write('helper.ts', "import pg from 'pg';\nexport const connect = () => new pg.Client();\n");
      write('barrel.ts', "export { connect } from './helper.js';\n");
      write('lazy.ts', "export const spawn = async () => (await import('node:child_process')).spawn;\n");
      write('pure.test.ts', "import { it } from 'vitest';\nimport type { P } from './pure.js';\nexport type Q = P;\nit('x', () => {});\n");
      write('db.test.ts', "import { connect } from './barrel.js';\nconnect();\n");
      write('spawns.test.ts', "import './lazy.js';\n");
      expect(servicesReached(root, 'pure.test.ts')).toEqual([]);
      expect(servicesReached(root, 'db.test.ts')).toEqual(['pg (imported by helper.ts)']);
      expect(servicesReached(root, 'spawns.test.ts')).toEqual(['child_process (imported by lazy.ts)']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('would catch a real integration file placed in test/unit', () => {
    // The same check the first test runs, on files that do need services: the rule is not vacuous.
    expect(servicesReached(ROOT, 'test/integration/db/migrations.test.ts')).toContain('pg (imported by test/helpers/test-db.ts)');
    expect(servicesReached(ROOT, 'test/integration/browser/webrtc.test.ts')).toContain('playwright-core (imported by browser/browser-pool.ts)');
    expect(servicesReached(ROOT, 'test/integration/workflows/page-job.test.ts')).toContain(
      '@temporalio/testing (imported by test/helpers/workflow-test-env.ts)',
    );
    expect(ownStackReached(ROOT, 'test/e2e-slow/durability.test.ts')).toContain('scripts/stack.ts (imported by test/e2e-slow/durability.test.ts)');
  });
});
