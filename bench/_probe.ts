import { applyAppEnv, benchOptions, bootApp } from './setup';
async function main() {
  const opts = benchOptions();
  applyAppEnv(opts);
  const r = await bootApp(opts);
  process.stdout.write(`URL ${r.url}\n`);
}
void main();
