import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'coverage/**', 'node_modules/**', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'exit', message: 'Only bin/smslink.js may exit (design rule 2).' },
      ],
    },
  },
  {
    files: ['bin/**', 'bench/**', 'test/**'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    // The bin is CommonJS (bin/package.json), like the bundle it loads, and so is the bench script that loads the bundle the same way.
    files: ['bin/**', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
