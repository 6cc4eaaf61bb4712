import { defineConfig } from 'vkit';

export default defineConfig({
  checks: [
    { id: 'lint', run: ['node', 'src/lint.js'], inputs: ['src/**/*.js'] },
    { id: 'unit', run: ['node', 'src/add.test.js'], inputs: ['src/add.js', 'src/add.test.js'], after: ['lint'] },
  ],
});
