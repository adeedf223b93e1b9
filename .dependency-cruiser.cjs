/**
 * npm run check:imports (in npm test): the import rules of docs/architecture.md over all of src, the gateway
 * included. Type-only imports are erased before the check (tsPreCompilationDeps: false), as the compiler erases them;
 * a Worker started with `new URL(...)` is not an import.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      severity: 'error',
      comment: 'A cycle makes evaluation order decide whether a binding exists yet, and ties rooms together.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'view-only-through-engine-client',
      severity: 'error',
      comment: 'The view (src/ui) reaches the engine through its client (src/worker/tab/) only; pure shared code lives outside src/worker.',
      from: { path: '^src/ui/' },
      to: { path: '^src/worker/', pathNot: '^src/worker/tab/' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to nothing.',
      from: { path: '^src/' },
      to: { couldNotResolve: true, dependencyTypesNot: ['core'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.d\\.ts$' },
    tsPreCompilationDeps: false,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'] },
  },
};
