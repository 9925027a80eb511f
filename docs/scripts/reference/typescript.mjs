// @ts-check
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Application, Converter, ReflectionKind } from 'typedoc';
import { MarkdownPageEvent } from 'typedoc-plugin-markdown';
import { entryPointsOf } from './entry-points.mjs';
import { generatedPage, vitepressSlug } from './markdown.mjs';
import { apiRoot, docsRoot, repoRoot } from './paths.mjs';

/**
 * @typedef {import('./packages.mjs').PublishedPackage} PublishedPackage
 * @typedef {import('./entry-points.mjs').EntryPoint} EntryPoint
 * @typedef {{ text: string, link?: string, collapsed?: boolean, items?: SidebarItem[] }} SidebarItem
 * @typedef {{ pkg: PublishedPackage, ready: true, entryPoints: EntryPoint[] }
 *   | { pkg: PublishedPackage, ready: false, reason: string }} PackageReference
 * @typedef {{ packages: PackageReference[], sidebar: SidebarItem[] }} TypeScriptReference
 */

/** @param {PublishedPackage} pkg @returns {PackageReference} */
function findEntryPoints(pkg) {
  const packageDir = path.join(repoRoot, pkg.dir);
  const manifest = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
  if (!manifest.exports) return { pkg, ready: false, reason: 'the package has no exports map yet' };
  try {
    return { pkg, ready: true, entryPoints: entryPointsOf(packageDir, manifest) };
  } catch (error) {
    return { pkg, ready: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Module pages are named after what a user imports (`@svc-kit/webhooks/express`), not after the source
 * file (`adapters/express`), so the reference reads like the import lines in the guides.
 * @param {Application} app
 * @param {readonly EntryPoint[]} entries
 */
function nameModulesAfterSpecifiers(app, entries) {
  app.converter.on(Converter.EVENT_CREATE_DECLARATION, (context, reflection) => {
    if (reflection.kind !== ReflectionKind.Module) return;
    const file = context.getSymbolFromReflection(reflection)?.declarations?.[0]?.getSourceFile().fileName;
    const entry = entries.find((candidate) => path.resolve(candidate.source) === path.resolve(file ?? ''));
    if (entry) reflection.name = entry.specifier;
  });
}

/**
 * typedoc-vitepress-theme rewrites anchors to VitePress's heading ids, but skips links that start with
 * `./` or `../` (every link between entry-point pages): `#EVENT_TYPES` must become `#event-types`.
 * @param {Application} app
 */
function alignAnchorsWithVitePress(app) {
  app.renderer.on(MarkdownPageEvent.END, (page) => {
    if (!page.contents) return;
    const parts = page.contents.split(/(```[\s\S]*?```)/);
    page.contents = parts
      .map((part) =>
        part.startsWith('```')
          ? part
          : part.replace(
              /\]\(([^)\s#]*)#([^)\s]+)\)/g,
              (_, file, anchor) => `](${file}#${vitepressSlug(decodeURI(anchor))})`,
            ),
      )
      .join('');
  });
}

/** Longer than this, a code block is cut: the contract's inferred zod types run to half a megabyte. */
const MAX_CODE_BLOCK_LINES = 80;
/**
 * A page with more Markdown than this shows its code unhighlighted: highlighting wraps every token in a
 * styled span, ten times the text's size, and the contract's operation table alone would reach 300 KB.
 */
const MAX_HIGHLIGHTED_PAGE_CHARS = 20_000;

/**
 * Cuts very long code blocks (a type TypeScript inferred, printed in full) to their first lines and says
 * where the rest is, so that no page of the reference grows past ~200 KB.
 * @param {Application} app
 */
function capLongCodeBlocks(app) {
  app.renderer.on(MarkdownPageEvent.END, (page) => {
    if (!page.contents) return;
    const plain = page.contents.length > MAX_HIGHLIGHTED_PAGE_CHARS;
    page.contents = page.contents.replace(/```(\w*)\n([\s\S]*?)```/g, (_block, fenceLang, body) => {
      const lang = plain ? 'text' : fenceLang;
      const lines = body.split('\n');
      if (lines.length <= MAX_CODE_BLOCK_LINES) return `\`\`\`${lang}\n${body}\`\`\``;
      const kept = lines.slice(0, MAX_CODE_BLOCK_LINES).join('\n');
      const more = lines.length - MAX_CODE_BLOCK_LINES;
      return `\`\`\`${lang}\n${kept}\n// … ${more} more lines: the full type is in the package's .d.ts files\n\`\`\``;
    });
  });
}

/**
 * Runs TypeDoc once over the public entry points of every published package (read from their `exports`
 * maps), writing Markdown pages that VitePress renders and indexes for search: an index page per entry
 * point (`/api/webhooks/` for `@svc-kit/webhooks`, `/api/webhooks/express/` for `@svc-kit/webhooks/express`)
 * and a page per exported symbol under it.
 * A package still without an exports map is reported, not fatal, so the guides build while it lands.
 * @param {readonly PublishedPackage[]} published
 * @returns {Promise<TypeScriptReference>}
 */
export async function buildTypeScriptReference(published) {
  const packages = published.map(findEntryPoints);
  const entries = packages.flatMap((ref) => (ref.ready ? ref.entryPoints : []));
  if (entries.length === 0) return { packages, sidebar: [] };

  const app = await Application.bootstrapWithPlugins({
    name: 'svc-kit',
    entryPoints: entries.map((entry) => entry.source),
    entryPointStrategy: 'resolve',
    tsconfig: path.join(docsRoot, 'tsconfig.typedoc.json'),
    plugin: ['typedoc-plugin-markdown', 'typedoc-vitepress-theme'],
    out: apiRoot,
    // @ts-expect-error declared by typedoc-vitepress-theme and typedoc-plugin-markdown, unknown to TypeDoc's types
    docsRoot,
    readme: 'none',
    // Type errors are the typecheck step's job; TypeDoc only reads declarations and comments.
    skipErrorChecking: true,
    excludePrivate: true,
    excludeInternal: true,
    // No repository URL is configured, so source links would point nowhere.
    disableSources: true,
    // One page per symbol: a page per entry point reached 800 KB for the contract's zod types.
    outputFileStrategy: 'members',
    excludeScopesInPaths: true,
    useCodeBlocks: true,
    parametersFormat: 'table',
    interfacePropertiesFormat: 'table',
    typeAliasPropertiesFormat: 'table',
    enumMembersFormat: 'table',
    // Three columns (name, type, description) fit the content column; five squeezed the description to a
    // word a line. `readonly` still shows in the type, inheritance in the "Extends" section.
    tableColumnSettings: { hideModifiers: true, hideInherited: true, hideOverrides: true, hideSources: true },
    // Nested object types (the contract's operation table) as one summary each, not a heading per field.
    typeDeclarationVisibility: 'compact',
    sidebar: { autoConfiguration: true, format: 'vitepress', pretty: true, collapsed: true },
    logLevel: 'Warn',
  });
  nameModulesAfterSpecifiers(app, entries);
  alignAnchorsWithVitePress(app);
  capLongCodeBlocks(app);
  const project = await app.convert();
  if (!project) throw new Error('TypeDoc could not convert the packages');
  await app.generateOutputs(project);
  if (app.logger.hasErrors()) throw new Error('TypeDoc reported errors');

  for (const entry of entries) {
    const file = path.join(docsRoot, pageOf(entry.specifier), 'index.md');
    if (!existsSync(file)) throw new Error(`TypeDoc wrote no page for ${entry.specifier} (expected ${file})`);
    for (const alias of entry.aliases) writeAliasPage(alias, entry.specifier);
  }
  return { packages, sidebar: sidebarOf(packages) };
}

/**
 * Packages in the order of the site (SDK first), each entry point under its package.
 * @param {readonly PackageReference[]} packages
 * @returns {SidebarItem[]}
 */
function sidebarOf(packages) {
  return packages.flatMap((ref) => {
    /** @type {SidebarItem[]} */
    const none = [];
    if (!ref.ready) return none;
    const items = ref.entryPoints.flatMap((entry) =>
      [entry.specifier, ...entry.aliases].map((specifier) => ({ text: specifier, link: pageOf(specifier) })),
    );
    /** @type {SidebarItem[]} */
    const group = items.length === 1 ? items : [{ text: ref.pkg.name, collapsed: false, items }];
    return group;
  });
}

/**
 * A specifier that exports exactly what another one does (`@svc-kit/webhooks/node` and
 * `@svc-kit/webhooks` are the same build on Node) gets a short page pointing at the documented one.
 * @param {string} alias
 * @param {string} specifier
 */
function writeAliasPage(alias, specifier) {
  const file = path.join(docsRoot, pageOf(alias), 'index.md');
  mkdirSync(path.dirname(file), { recursive: true });
  const body = [
    `# ${alias}`,
    `\`${alias}\` exports exactly what [\`${specifier}\`](${pageOf(specifier)}) exports, from the same build: ` +
      'import whichever name you prefer. Every symbol is documented on that page.',
  ].join('\n\n');
  writeFileSync(file, generatedPage({ title: alias }, body));
}

/**
 * The page of an entry point, as a site path: a folder, whose `index` lists the entry point's symbols,
 * each on a page of its own (`/api/webhooks/functions/verify`), so that no page grows past ~200 KB.
 * @param {string} specifier
 */
export function pageOf(specifier) {
  return `/api/${specifier.replace(/^@[^/]+\//, '')}/`;
}
