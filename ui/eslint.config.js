// Lint rules: typescript-eslint's strict type-aware set plus the React hooks rules.
import js from '@eslint/js';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

const FEATURES = ['flashcards', 'calendars', 'landing', 'sync', 'owner'];

/** An import of `folder` (a sibling of src's folders) from any depth. */
const importsOf = (folder) => [`./${folder}`, `./${folder}/*`, `**/${folder}`, `**/${folder}/*`];

function featureBoundaries() {
  const restrict = (files, forbidden, message) => ({
    files,
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: forbidden.flatMap(importsOf), message }] }],
    },
  });
  return [
    ...FEATURES.map((feature) =>
      restrict(
        [`src/${feature}/**`],
        FEATURES.filter((other) => other !== feature),
        'A feature imports only src/lib and src/layout, never another feature.',
      ),
    ),
    restrict(['src/lib/**', 'src/layout/**'], FEATURES, 'src/lib and src/layout are shared by the features and import none of them.'),
  ];
}

export default tseslint.config(
  { ignores: ['dist', 'embed', 'node_modules', 'test-results'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.browser, ...globals.node },
      parserOptions: {
        project: ['./tsconfig.json', './tsconfig.sw.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-confusing-void-expression': 'off',
    },
  },
  // The features (flashcards, calendars, landing, sync, owner) build on lib and layout, never on each other,
  // and lib and layout know no feature: each feature can change or go without touching another.
  ...featureBoundaries(),
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
